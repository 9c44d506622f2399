package mechsym.disruptor;

import mechsym.common.CheckFailed;

/**
 * The consumer's side of the check: every event's number in order (one
 * xor and one or on the value just read, no branch; the result is read
 * after the runs), runs counted as they complete.
 */
final class Tally {
    /** The queues' elements: a cycle of 64 distinct objects (four cache lines, read by both threads). */
    static final int CYCLE = 64;
    final long events;
    final Object[] values = new Object[CYCLE];
    long count;
    long nextEnd;
    long bad;
    volatile int runsDone;
    volatile boolean abort;

    Tally(final long events) {
        this.events = events;
        this.nextEnd = events;
        for (int k = 0; k < CYCLE; k++) {
            values[k] = Long.valueOf(k);
        }
    }

    /** The object a queue carries for event number i. */
    Object value(final long i) {
        return values[(int) i & (CYCLE - 1)];
    }

    void take(final long number) {
        bad |= number ^ count;
        advance();
    }

    void takeRef(final Object e) {
        bad |= e == values[(int) count & (CYCLE - 1)] ? 0 : 1;
        advance();
    }

    private void advance() {
        if (++count == nextEnd) {
            nextEnd += events;
            runsDone = runsDone + 1;
        }
    }

    void requireInOrder() {
        CheckFailed.require(bad == 0, "an event arrived out of order (lost, duplicated or reordered)");
    }
}
