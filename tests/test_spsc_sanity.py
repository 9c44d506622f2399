"""One contract for every SPSC queue variant (JCTools' QueueSanityTest, in spirit), in process through JPype.

The variants come from the kernel itself (SpscThroughput.queues()), so a new variant is tested the day it is
listed. Single-threaded here: one Python thread plays producer and consumer in turn, which the SPSC contract
allows (each side is still used by one thread at a time). Concurrency is tested by the kernel's own harness
(tests/test_spsc_kernel.py). The queues' interface has no size() or isEmpty(); the model test checks them
only if it ever gets them.

The four inlined variants I1..I4 repeat the same offer/poll code on purpose (each layout is its own class
hierarchy); these tests are what keeps the copies alike."""

import collections
import random

import pytest

from mechsym.run import bridge

KERNEL = "mechsym.spsc.SpscThroughput"
VARIANTS = [str(q) for q in bridge.kernel(KERNEL).queues()]
CAPACITIES = [2, 4, 64]


def new_queue(name, capacity):
    import jpype

    return jpype.JClass("mechsym.spsc.SpscQueue").create(name, capacity)


def new_queue_or_refusal(name, capacity):
    """A new queue, or None when the variant refuses this capacity (as jctools refuses 2: SpscArrayQueue holds at
    least 4): a variant either holds exactly the capacity asked for, or says so, naming --capacity."""
    import jpype

    try:
        return new_queue(name, capacity)
    except jpype.JClass("mechsym.common.BadArgument") as e:
        assert str(e.getMessage()).startswith(f"--capacity={capacity}: "), e.getMessage()
        return None


def value(i):
    """Element i: a distinct java.lang.Long."""
    import jpype

    return jpype.JClass("java.lang.Long")(number(i))


def number(i):
    return 1_000_000 + i


def test_the_kernel_lists_the_post_variants_and_jctools():
    assert {"O1", "O2", "I1", "I2", "I3", "I4", "jctools"} <= set(VARIANTS)


@pytest.mark.kernel
@pytest.mark.parametrize("name", VARIANTS)
def test_a_new_queue_is_empty(name):
    q = new_queue(name, 8)
    assert q.poll() is None
    assert q.poll() is None  # and stays so


@pytest.mark.kernel
@pytest.mark.parametrize("capacity", CAPACITIES)
@pytest.mark.parametrize("name", VARIANTS)
def test_offer_refuses_exactly_at_capacity(name, capacity):
    q = new_queue_or_refusal(name, capacity)
    if q is None:
        return
    for lap in range(3):  # full, drained, full again: the limit holds after wrapping
        assert all(q.offer(value(i)) for i in range(capacity)), f"lap {lap}: refused before capacity {capacity}"
        assert not q.offer(value(capacity)), f"lap {lap}: accepted element {capacity + 1} of capacity {capacity}"
        assert int(q.poll()) == number(0)
        assert q.offer(value(capacity))  # one slot freed, one accepted
        assert not q.offer(value(capacity + 1))
        got = [int(q.poll()) for _ in range(capacity)]
        assert got == [number(i) for i in range(1, capacity + 1)]
        assert q.poll() is None


@pytest.mark.kernel
@pytest.mark.parametrize("capacity", CAPACITIES)
@pytest.mark.parametrize("name", VARIANTS)
def test_fifo_across_many_laps_of_the_ring(name, capacity):
    q = new_queue_or_refusal(name, capacity)
    if q is None:
        return
    sent = taken = 0
    laps = 50
    while taken < laps * capacity:
        # fill to full, drain to empty, with the boundaries falling on every slot of the ring in turn
        while q.offer(value(sent)):
            sent += 1
        assert sent - taken == capacity
        while (e := q.poll()) is not None:
            assert int(e) == number(taken), f"element {taken}"
            taken += 1
        assert taken == sent
    assert q.poll() is None


@pytest.mark.kernel
@pytest.mark.parametrize("name", VARIANTS)
def test_random_offers_and_polls_behave_like_a_bounded_fifo(name):
    """The same seeded sequence of offers and polls on every variant, each result compared with a model."""
    import jpype

    capacity = 8
    q = new_queue(name, capacity)
    sized = all(hasattr(q, m) for m in ("size", "isEmpty"))
    model = collections.deque()
    rng = random.Random(20130715)
    n = 0
    for step in range(5000):
        if rng.random() < 0.5:
            accepted = bool(q.offer(value(n)))
            assert accepted == (len(model) < capacity), f"step {step}: offer with {len(model)} held"
            if accepted:
                model.append(n)
            n += 1
        else:
            e = q.poll()
            if model:
                assert e is not None and int(e) == number(model.popleft()), f"step {step}"
            else:
                assert e is None, f"step {step}: poll on empty gave {e}"
        if sized:
            assert q.size() == len(model) and bool(q.isEmpty()) == (not model)
    assert isinstance(q, jpype.JClass("mechsym.spsc.SpscQueue"))


@pytest.mark.kernel
def test_only_jctools_refuses_the_smallest_capacity():
    # SpscArrayQueue rounds a capacity below 4 up to 4; the wrapper refuses instead of measuring another size
    assert [name for name in VARIANTS if new_queue_or_refusal(name, 2) is None] == ["jctools"]
