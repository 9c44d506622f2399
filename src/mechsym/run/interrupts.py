"""SIGTERM and SIGHUP (the terminal closed) end the bench the way Ctrl-C does: as KeyboardInterrupt("signal N"), so
that the same clean-ups run (kernel killed, what finished kept as 'interrupted', scratch removed) and the command
says so in one line. A signal the caller ignores stays ignored (`nohup mechsym run ...` must survive its terminal
closing). While a run is being stored, every one of them waits until it is.
"""

from __future__ import annotations

import contextlib
import signal
import threading

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _interrupt(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


def interrupt_on_stop_signals() -> dict:
    """SIGTERM and SIGHUP raise KeyboardInterrupt("signal N") from now on (those the caller ignores stay ignored);
    returns the handlers replaced."""
    return {s: signal.signal(s, _interrupt) for s in STOP_SIGNALS if signal.getsignal(s) is not signal.SIG_IGN}


def signal_number(e: KeyboardInterrupt) -> int:
    """The signal that raised this KeyboardInterrupt: N for "signal N", else SIGINT (Ctrl-C)."""
    return int(str(e).split()[-1]) if str(e).startswith("signal ") else int(signal.SIGINT)


@contextlib.contextmanager
def signals_interrupt():
    """SIGTERM (and SIGHUP: the terminal closed) end a run as Ctrl-C does (kernel killed, what finished kept as
    'interrupted', sessions cleaned up)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = interrupt_on_stop_signals()
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextlib.contextmanager
def signals_deferred():
    """While a run is being stored: Ctrl-C, SIGTERM and SIGHUP wait until it is (then raise KeyboardInterrupt), so
    that a signal never leaves half a run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    sigs = [s for s in (signal.SIGINT, *STOP_SIGNALS) if signal.getsignal(s) is not signal.SIG_IGN]
    old = {s: signal.signal(s, lambda signum, frame: got.append(signum)) for s in sigs}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if got:
        raise KeyboardInterrupt(f"signal {got[0]}")
