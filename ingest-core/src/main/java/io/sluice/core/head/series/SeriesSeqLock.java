package io.sluice.core.head.series;

import static io.sluice.core.head.series.SeriesDescriptor.SEQ_OFFSET;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The writer's side of a series' sequence lock ({@link SeriesDescriptor}: {@code seq}, odd while the
 * shard moves or frees the series' chunk bytes or list). Readers: {@link SeriesStore#snapshot}.
 * The shard thread only.
 */
final class SeriesSeqLock {
    private static final VarHandle SEQ = ValueLayout.JAVA_INT.varHandle();

    private SeriesSeqLock() {
    }

    /** Makes the sequence odd before any byte moves; returns the value to hand to {@link #end}. */
    static int begin(MemorySegment s, long b) {
        int seq = s.get(ValueLayout.JAVA_INT, b + SEQ_OFFSET);
        SEQ.setOpaque(s, b + SEQ_OFFSET, seq + 1);
        VarHandle.storeStoreFence(); // the odd value is visible before any moved byte
        return seq;
    }

    /** Publishes the moved bytes: the sequence is even again, and changed. */
    static void end(MemorySegment s, long b, int seq) {
        SEQ.setRelease(s, b + SEQ_OFFSET, seq + 2);
    }
}
