package io.sluice.core.head.series;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.memory.MemoryAccounting;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A closed chunk whose chunk file write failed (the sink returned 0) keeps no ref; handing it to the
 * sink again ({@link SeriesStore#persistClosed}, what the next checkpoint does) passes exactly the
 * chunk's bytes (its length found by decoding it), time range and sample count, and records the ref.
 */
class PersistClosedAgainTest {
    private record Persisted(int seriesId, byte[] bytes, long minTimeMs, long maxTimeMs, int numSamples) {
    }

    @Test
    void aChunkWhoseWriteFailedIsHandedOverAgainWithItsExactBytes() {
        List<Persisted> persisted = new ArrayList<>();
        boolean[] failing = {true};
        try (SeriesStore store = new SeriesStore(new MemoryAccounting(), ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS)) {
            store.chunkSink((id, page, offset, length, minTimeMs, maxTimeMs, numSamples) -> {
                if (failing[0]) {
                    return 0L;
                }
                persisted.add(new Persisted(id, page.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE),
                        minTimeMs, maxTimeMs, numSamples));
                return 1_000L + persisted.size();
            });
            byte[] labels = "series-0".getBytes(StandardCharsets.UTF_8);
            int id = store.create(1L, labels, 0, labels.length);
            SplittableRandom random = new SplittableRandom(3);
            int n = 1_000;
            long[] ts = new long[n];
            long[] vs = new long[n];
            for (int i = 0; i < n; i++) {
                ts[i] = 1_700_000_000_000L + 15_000L * i + random.nextInt(50);
                vs[i] = Double.doubleToRawLongBits(random.nextDouble() * 100);
            }
            store.appendRun(id, ts, vs, 0, n, new AppendCounts());
            int closed = store.closedCount(id);
            assertThat(closed).as("chunks cut").isGreaterThanOrEqualTo(3);
            SeriesSnapshot snapshot = new SeriesSnapshot();
            store.snapshot(id, Long.MIN_VALUE, Long.MAX_VALUE, snapshot);
            failing[0] = false;
            SeriesSnapshot.ExactChunk exact = new SeriesSnapshot.ExactChunk();
            for (int c = 0; c < closed; c++) {
                assertThat(store.closedRef(id, c)).as("chunk %d has no ref after the failed write", c).isZero();
                assertThat(store.persistClosed(id, c)).isEqualTo(1_000L + c + 1);
                assertThat(store.closedRef(id, c)).isEqualTo(1_000L + c + 1);
                snapshot.exactChunk(c, exact);
                Persisted p = persisted.get(c);
                assertThat(p.seriesId()).isEqualTo(id);
                assertThat(p.bytes()).as("chunk %d bytes", c).isEqualTo(exact.toByteArray());
                assertThat(p.numSamples()).isEqualTo(exact.numSamples());
                assertThat(p.minTimeMs()).isEqualTo(exact.minTimeMs());
                assertThat(p.maxTimeMs()).isEqualTo(exact.maxTimeMs());
            }
        }
    }
}
