package io.sluice.core.head.series;

import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_CAPACITY_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_COUNT_OFFSET;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_FILE_REF;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_HANDLE;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_MAX_TIME;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_ENTRY_MIN_TIME;
import static io.sluice.core.head.series.SeriesDescriptor.CLOSED_LIST_OFFSET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.chunk.ChunkHandle;
import io.sluice.core.chunk.ChunkMemory;
import io.sluice.core.memory.MemoryAccounting;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClosedChunkLists#add} grows the list in line (its own JIT unit, see there): entries survive every
 * move, small lists move to large ones past 128 entries, the capacity is the power of two the growth
 * rule says, a restore's {@link ClosedChunkLists#addByReference} continues the same list, and a chunk
 * that cannot be real is refused with the list unchanged. One series struct in a real arena, real
 * chunk memory.
 */
class ClosedChunkListsTest {
    private final Arena arena = Arena.ofConfined();
    private final MemoryAccounting accounting = new MemoryAccounting();
    private final ChunkMemory chunks = new ChunkMemory(accounting);
    private final ClosedChunkLists closed = new ClosedChunkLists(chunks, new ClosedListAllocator(chunks, accounting));
    private final MemorySegment s = arena.allocate(SeriesDescriptor.STRIDE, Long.BYTES); // zeroed: no list
    private final List<long[]> expected = new ArrayList<>(); // {handle, min, max, ref} per entry

    @AfterEach
    void close() {
        closed.close();
        chunks.close();
        arena.close();
    }

    @Test
    void addKeepsEveryEntryAcrossGrowthAndTheMoveToALargeList() {
        for (int i = 0; i < 300; i++) {
            long block = chunks.allocate(64);
            add(block, 10L * i, 10L * i + 9, 1_000 + i);
            expected.add(new long[] {block, 10L * i, 10L * i + 9, 1_000 + i});
            int count = s.get(ValueLayout.JAVA_INT, CLOSED_COUNT_OFFSET);
            assertThat(count).isEqualTo(i + 1);
            assertThat(s.get(ValueLayout.JAVA_INT, CLOSED_CAPACITY_OFFSET)).as("capacity after %d entries", count)
                    .isEqualTo(Math.max(4, Integer.highestOneBit(Math.max(1, count - 1)) << 1));
        }
        assertEntries();
    }

    @Test
    void aRestoreContinuesTheListAddBuilt() {
        for (int i = 0; i < 5; i++) {
            long block = chunks.allocate(64);
            add(block, 10L * i, 10L * i + 9, 1_000 + i);
            expected.add(new long[] {block, 10L * i, 10L * i + 9, 1_000 + i});
        }
        MemorySegment triples = arena.allocate(3L * 3 * Long.BYTES, Long.BYTES);
        ValueLayout.OfLong little = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 3; i++) {
            long ref = 2_000 + i;
            triples.set(little, 24L * i, ref);
            triples.set(little, 24L * i + 8, 100L + 10 * i);
            triples.set(little, 24L * i + 16, 109L + 10 * i);
            expected.add(new long[] {ChunkHandle.NONE, 100L + 10 * i, 109L + 10 * i, ref});
        }
        int seq = SeriesSeqLock.begin(s, 0);
        closed.addByReference(s, 0, triples, 0, 3);
        SeriesSeqLock.end(s, 0, seq);
        assertThat(s.get(ValueLayout.JAVA_INT, CLOSED_CAPACITY_OFFSET)).isEqualTo(8);
        assertEntries();
    }

    @Test
    void aChunkThatCannotBeRealIsRefusedAndTheListIsUnchanged() {
        long block = chunks.allocate(64);
        add(block, 0, 9, 1_000);
        long list = s.get(ValueLayout.JAVA_LONG, CLOSED_LIST_OFFSET);
        assertThatThrownBy(() -> add(chunks.allocate(64), 20, 10, 1_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("20..10");
        assertThatThrownBy(() -> add(ChunkHandle.NONE, 20, 29, 1_001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a closed chunk");
        assertThat(s.get(ValueLayout.JAVA_INT, CLOSED_COUNT_OFFSET)).isEqualTo(1);
        assertThat(s.get(ValueLayout.JAVA_LONG, CLOSED_LIST_OFFSET)).isEqualTo(list);
        expected.add(new long[] {block, 0, 9, 1_000});
        assertEntries();
    }

    private void add(long block, long minTimeMs, long maxTimeMs, long ref) {
        int seq = SeriesSeqLock.begin(s, 0);
        try {
            closed.add(s, 0, block, minTimeMs, maxTimeMs, ref);
        } finally {
            SeriesSeqLock.end(s, 0, seq);
        }
    }

    private void assertEntries() {
        assertThat(s.get(ValueLayout.JAVA_INT, CLOSED_COUNT_OFFSET)).isEqualTo(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            long[] e = expected.get(i);
            assertThat(new long[] {closed.entry(s, 0, i, CLOSED_ENTRY_HANDLE), closed.entry(s, 0, i, CLOSED_ENTRY_MIN_TIME),
                    closed.entry(s, 0, i, CLOSED_ENTRY_MAX_TIME), closed.entry(s, 0, i, CLOSED_ENTRY_FILE_REF)})
                    .as("entry %d", i).containsExactly(e);
        }
    }
}
