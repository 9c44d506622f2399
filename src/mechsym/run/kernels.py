"""Every kernel the lab has, in one registry, with what it takes to run it at its smallest.

Each entry names a kernel (a Java class in build/mechsym.jar, or ``c:<name>`` for the C binary
build/c/<name>) and gives:

- ``smoke``: the smallest valid arguments (well under a second of work after start-up);
- ``bad``: one argument with a value the kernel must refuse, and that argument's name;
- ``fault``: the test-only arguments that make the kernel's own check fail, or ``None`` with the
  reason in ``no_fault``;
- ``columns``: the CSV header a smoke run prints (the kernel's own columns, then the lab's common
  ones, :data:`COMMON_COLUMNS`);
- ``no_jit_gc``: for a Java kernel whose smoke run carries no ``jit_ms``/``gc_ms``/``gc_count`` rows
  (common/JitGc.java: the JIT and GC time inside each timed run), the reason; C kernels have no JIT.

tests/test_kernel_contract.py runs the kernel contract of DESIGN.md over every entry (bad, unknown and
duplicated arguments exit 2 with one line; the fault exits 3 and prints nothing; a smoke run exits 0
with these columns), and fails when a class with a ``main`` or a C source is missing here. A new
experiment registers its kernel here and gets those tests for free.

Arguments may contain ``{scratch}``: an empty directory the caller provides (SequentialIo writes its
file there).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import MechsymError
from .launch import REQUIRED_COLUMNS, java_argv, native_path

#: The columns every kernel prints last, in this order (common/Csv.java; DESIGN.md "Kernels"):
#: one row per measurement of a measured or warm-up iteration.
COMMON_COLUMNS: tuple[str, ...] = tuple(REQUIRED_COLUMNS)


@dataclass(frozen=True)
class Kernel:
    name: str
    smoke: tuple[str, ...]
    bad: tuple[str, str]
    columns: tuple[str, ...]
    fault: tuple[str, ...] | None = None
    no_fault: str = ""
    no_jit_gc: str = ""

    def __post_init__(self):
        if (self.fault is None) == (not self.no_fault):
            raise ValueError(f"kernel {self.name}: give either fault arguments or the reason there are none")
        if self.columns[-len(COMMON_COLUMNS):] != COMMON_COLUMNS:
            raise ValueError(f"kernel {self.name}: columns must end with {', '.join(COMMON_COLUMNS)}")

    @property
    def short(self) -> str:
        """LockContention, pingpong: for test ids and messages."""
        return self.name.rsplit(".", 1)[-1].removeprefix("c:")

    @property
    def is_c(self) -> bool:
        return self.name.startswith("c:")

    def args(self, *extra: str, scratch: str | Path = "") -> list[str]:
        """The smoke arguments with ``extra`` added; an extra argument replaces a smoke argument of the
        same name (so the result never names an argument twice unless ``extra`` does)."""
        names = {_arg_name(a) for a in extra}
        out = [a for a in self.smoke if _arg_name(a) not in names] + list(extra)
        return [a.replace("{scratch}", str(scratch)) for a in out]


def _arg_name(arg: str) -> str:
    return arg.split("=", 1)[0]


KERNELS: tuple[Kernel, ...] = (
    Kernel("mechsym.locks.LockContention",
           smoke=("--threads=1", "--iterations=1000", "--warmup-iterations=100", "--runs=1"),
           bad=("--threads=0", "--threads"),
           fault=("--inject=drop-one",),
           columns=("pinning", "vm_biased_locking", "vm_biased_startup_delay_ms", *COMMON_COLUMNS)),
    Kernel("mechsym.signalling.LockedSignalling",
           smoke=("--iterations=1000", "--runs=1", "--warmup-runs=0", "--sample-every=10"),
           bad=("--iterations=0", "--iterations"),
           fault=("--inject=skip",),
           columns=("pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.signalling.VolatilePingPong",
           # yield: two spinning threads on one CPU of a busy 2-core machine would wait for the scheduler
           smoke=("--iterations=1000", "--runs=1", "--warmup-runs=0", "--wait=yield", "--sample-every=10"),
           bad=("--iterations=0", "--iterations"),
           fault=("--inject=skip",),
           columns=("pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.io.SequentialIo",
           smoke=("--file={scratch}/seqio.dat", "--size=65536", "--passes=1", "--warmup-passes=0"),
           bad=("--passes=0", "--passes"),
           fault=("--inject=corrupt",),
           columns=("method", "sync", "evict", "size_bytes", *COMMON_COLUMNS)),
    Kernel("mechsym.spsc.SpscThroughput",
           smoke=("--ops=1000", "--iterations=1", "--measured=1", "--capacity=64"),
           bad=("--ops=0", "--ops"),
           fault=("--inject=duplicate-one",),
           columns=("queue", "protocol", "pinning", "producer_cpu", "consumer_cpu", "vm_cond_card_mark",
                    "vm_compile_threshold", "vm_tiered_compilation", "vm_numa", "queue_line_offset",
                    "buffer_line_offset", *COMMON_COLUMNS)),
    Kernel("mechsym.ipc.IpcThroughput",
           smoke=("--transport=threads", "--messages=1000", "--runs=1", "--warmup-runs=0", "--dir={scratch}"),
           bad=("--messages=0", "--messages"),
           fault=("--inject=lose-one",),
           columns=("transport", "layout", "protocol", "wait", "pinning", "producer_cpu", "consumer_cpu",
                    "head_line_offset", "tail_cache_line_offset", "tail_line_offset", "head_cache_line_offset",
                    "buffer_line_offset", *COMMON_COLUMNS)),
    Kernel("mechsym.spsc.SpscLayout",
           smoke=("--queue=I1",),
           bad=("--queue=O9", "--queue"),
           fault=("--inject=unpadded",),
           columns=("queue", "class", "field", "type", "jol_error", *COMMON_COLUMNS),
           no_jit_gc="no timed region: it reads field offsets"),
    Kernel("c:pingpong",
           smoke=("--iterations=1000", "--runs=1", "--warmup-runs=0", "--wait=yield", "--sample-every=10"),
           bad=("--iterations=0", "--iterations"),
           fault=("--inject=skip",),
           columns=("pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.singlewriter.CounterCost",
           smoke=("--method=cas", "--threads=2", "--iterations=10000", "--runs=1", "--warmup-runs=0"),
           bad=("--threads=3", "--threads"),
           fault=("--inject=lose-one",),
           columns=("pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.bidding.BiddingSimulation",
           smoke=("--clients=2", "--items=1,2", "--bids-per-item=50", "--runs=1", "--warmup-runs=0"),
           bad=("--items=4,2", "--items"),
           fault=("--inject=drop-bid",),
           columns=("items", *COMMON_COLUMNS)),
    Kernel("c:single_writer",
           smoke=("--method=cas", "--threads=2", "--iterations=10000", "--runs=1", "--warmup-runs=0"),
           bad=("--threads=3", "--threads"),
           fault=("--inject=lose-one",),
           columns=("pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.falsesharing.FalseSharing",
           smoke=("--layout=unpadded", "--threads=2", "--iterations=10000", "--runs=1", "--warmup-runs=0"),
           bad=("--threads=0", "--threads"),
           fault=("--inject=short",),
           columns=("pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.falsesharing.CounterLayout",
           smoke=("--layout=padded-longs", "--threads=2"),
           bad=("--threads=1", "--threads"),
           fault=("--inject=unpadded",),
           columns=("layout", "class", "field", "restrict_contended", "jol_error", *COMMON_COLUMNS),
           no_jit_gc="no timed region: it reads field offsets"),
    Kernel("mechsym.atomic.AtomicIncrement",
           smoke=("--variant=cas-loop", "--threads=2", "--count=10000"),
           bad=("--threads=0", "--threads"),
           fault=("--inject=skip",),
           columns=("pinning", *COMMON_COLUMNS)),
    Kernel("c:atomic_counter",
           smoke=("--variant=cas", "--threads=2", "--count=10000"),
           bad=("--threads=0", "--threads"),
           fault=("--inject=skip",),
           columns=("pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.writecombining.WriteCombining",
           smoke=("--iterations=100000", "--items=4096", "--arrays=6", "--per-loop=3", "--runs=1", "--warmup-runs=0"),
           bad=("--iterations=1", "--iterations"),
           fault=("--inject=drop-array",),
           columns=("arrays", "per_loop", *COMMON_COLUMNS)),
    Kernel("c:writecombining",
           smoke=("--iterations=100000", "--items=4096", "--arrays=6", "--per-loop=3", "--runs=1", "--warmup-runs=0"),
           bad=("--iterations=1", "--iterations"),
           fault=("--inject=drop-array",),
           columns=("arrays", "per_loop", *COMMON_COLUMNS)),
    Kernel("mechsym.ping.PingBuffet",
           # timer: one JVM, no server; the experiment's tests run the two-JVM modes
           smoke=("--mode=timer", "--pings=1000", "--runs=1", "--warmup-runs=0"),
           bad=("--pings=0", "--pings"),
           fault=("--inject=bad-echo",),
           columns=("mode", "pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.batching.SmartBatching",
           smoke=("--mode=batching", "--burst=3", "--bursts=5", "--interval-us=1000", "--runs=1", "--warmup-runs=0"),
           bad=("--burst=0", "--burst"),
           fault=("--inject=drop-one",),
           columns=("mode", *COMMON_COLUMNS)),
    Kernel("mechsym.callerchoose.SplitCost",
           smoke=("--method=list", "--words=10", "--ops=1000", "--runs=1", "--warmup-runs=0"),
           bad=("--words=0", "--words"),
           fault=("--inject=checksum",),
           columns=("method", "words", *COMMON_COLUMNS)),
    Kernel("mechsym.disruptor.DisruptorThroughput",
           smoke=("--channel=disruptor-yielding", "--events=1000", "--runs=1", "--warmup-runs=0", "--size=64"),
           bad=("--events=0", "--events"),
           fault=("--inject=skip",),
           columns=("channel", "pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.calibration.Floors",
           smoke=("--measure=cas", "--ops=10000", "--runs=1", "--warmup-runs=0"),
           bad=("--measure=bogus", "--measure"),
           fault=("--inject=skip",),
           columns=("measure", "pinning", *COMMON_COLUMNS)),
    Kernel("c:calibration",
           smoke=("--measure=line", "--trips=1000", "--wait=yield", "--runs=1", "--warmup-runs=0"),
           bad=("--trips=0", "--trips"),
           fault=("--inject=skip",),
           columns=("measure", "pinning", *COMMON_COLUMNS)),
    Kernel("mechsym.affinity.MulticastRate",
           # the sender alone (TTL 0 on lo: nothing leaves the host); the experiment's tests run the pair
           smoke=("--role=sender", "--messages=1000"),
           bad=("--messages=0", "--messages"),
           fault=("--role=receiver", "--inject=deaf", "--idle-ms=100"),
           columns=("role", *COMMON_COLUMNS),
           no_jit_gc="its runs are the seconds of one loop (reading the counters each second would be inside the "
                     "timed loop), and each side of the pair is its own JVM"),
)

BY_NAME: dict[str, Kernel] = {k.name: k for k in KERNELS}


def get(name: str) -> Kernel:
    """The registered kernel called ``name``; a one-line error listing the known ones otherwise."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise MechsymError(f"kernel '{name}': not registered in mechsym.run.kernels (known: {', '.join(BY_NAME)})") \
            from None


def command(name: str, args=(), jdk=None, flags=()) -> list[str]:
    """The command line that runs kernel ``name`` (a Java class, registered or not, or ``c:<binary>``) with
    ``args``: ``<jdk>/bin/java <flags> -cp <classpath> <class> args`` or ``build/c/<binary> args``."""
    if name.startswith("c:"):
        if flags:
            raise MechsymError(f"kernel {name}: JVM flags {' '.join(flags)} given to a C kernel")
        return [str(native_path(name[2:])), *args]
    from ..machine.jdk import discover

    return java_argv((jdk or discover()[0]).java, name, args, flags)
