package io.sluice.core.head.series;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.chunk.XorIterator;
import io.sluice.core.memory.MemoryAccounting;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The out-of-order store inside a series store: outcomes, chunking, retention, eviction, and no cost for in-order series. */
class OutOfOrderStoreTest {
    private static long bits(double v) {
        return Double.doubleToRawLongBits(v);
    }

    private static int create(SeriesStore store, String name) {
        byte[] labels = name.getBytes(StandardCharsets.UTF_8);
        return store.create(name.hashCode(), labels, 0, labels.length);
    }

    private static List<Long> timestamps(SeriesStore store, int id, long min, long max) {
        SeriesSnapshot snapshot = new SeriesSnapshot();
        store.snapshot(id, min, max, snapshot);
        List<Long> out = new ArrayList<>();
        for (SeriesSnapshot.Samples it = snapshot.samples(); it.next(); ) {
            out.add(it.timestampMs());
        }
        return out;
    }

    @Test
    void outcomesChunkingRetentionAndEviction() {
        try (SeriesStore store = new SeriesStore(new MemoryAccounting(), ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS)) {
            store.outOfOrderWindowMs(3_600_000);
            int inOrder = create(store, "in-order");
            int late = create(store, "late");
            TreeMap<Long, Long> model = new TreeMap<>();
            for (int k = 0; k < 400; k++) {
                assertThat(store.append(inOrder, 1_000_000L + k * 1_000, bits(k))).isEqualTo(SeriesStore.APPENDED);
                assertThat(store.append(late, 1_000_000L + k * 1_000, bits(k))).isEqualTo(SeriesStore.APPENDED);
                model.put(1_000_000L + k * 1_000, bits(k));
            }
            assertThat(store.outOfOrder().isEmpty()).as("no late sample yet: nothing beside the structs").isTrue();
            for (int k = 0; k < 200; k++) { // between the in-order samples, newest first
                long t = 1_000_000L + (399 - k) * 1_000 - 500;
                assertThat(store.append(late, t, bits(-k))).isEqualTo(SeriesStore.APPENDED_OUT_OF_ORDER);
                model.put(t, bits(-k));
            }
            // Repeats of in-order and of out-of-order samples, wherever they lie; then a too-old one.
            assertThat(store.append(late, 1_000_000L + 10_000, bits(10))).isEqualTo(SeriesStore.DUPLICATE);
            assertThat(store.append(late, 1_000_000L + 10_000, bits(11))).isEqualTo(SeriesStore.DUPLICATE_TIMESTAMP);
            assertThat(store.append(late, 1_000_000L + 398_500, bits(0))).isEqualTo(SeriesStore.DUPLICATE); // the first late sample (k = 0)
            assertThat(store.append(late, 1_000_000L + 398_500, bits(7))).isEqualTo(SeriesStore.DUPLICATE_TIMESTAMP);
            assertThat(store.append(late, 1_000_000L + 399_000 - 3_600_001, bits(7))).isEqualTo(SeriesStore.TOO_OLD);

            assertThat(store.outOfOrder().get(inOrder)).as("an in-order series has no entry").isNull();
            OutOfOrderStore.Late entry = store.outOfOrder().get(late);
            assertThat(entry.chunks().length).isEqualTo(200 / OutOfOrderStore.BUFFER_SAMPLES);
            assertThat(entry.timestampsMs()).hasSize(200 % OutOfOrderStore.BUFFER_SAMPLES);
            for (int c = 0; c < entry.chunks().length; c++) { // each chunk decodes time-ordered to its count and range
                XorIterator it = new XorIterator().reset(entry.chunks()[c]);
                long previous = Long.MIN_VALUE;
                while (it.next()) {
                    assertThat(it.timestampMs()).isGreaterThan(previous);
                    previous = it.timestampMs();
                }
                assertThat(it.numRead()).isEqualTo(entry.chunkSamples()[c]);
                assertThat(previous).isEqualTo(entry.chunkMaxMs()[c]);
            }
            assertThat(store.outOfOrder().sampleCount()).isEqualTo(200);
            assertThat(timestamps(store, late, Long.MIN_VALUE, Long.MAX_VALUE)).containsExactlyElementsOf(model.keySet());
            assertThat(timestamps(store, late, 1_250_000, 1_260_000))
                    .containsExactlyElementsOf(model.subMap(1_250_000L, true, 1_260_000L, true).keySet());

            // Retention: everything out of order is older than this cutoff.
            store.dropExpired(late, 1_000_000L + 400_000);
            assertThat(store.outOfOrder().get(late)).isNull();
            assertThat(store.outOfOrder().sampleCount()).isZero();
            assertThat(store.outOfOrder().chunkBytes()).isZero();

            // Eviction drops a series' out-of-order samples with it.
            assertThat(store.append(late, 1_000_000L + 398_100, bits(1))).isEqualTo(SeriesStore.APPENDED_OUT_OF_ORDER);
            assertThat(store.outOfOrder().get(late)).isNotNull();
            store.evict(late);
            assertThat(store.outOfOrder().get(late)).isNull();
            assertThat(store.outOfOrder().isEmpty()).isTrue();
        }
    }

    @Test
    void retentionKeepsTheFirstTimeAtTheOldestOutOfOrderSampleLeft() {
        try (SeriesStore store = new SeriesStore(new MemoryAccounting(), ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS)) {
            store.outOfOrderWindowMs(SeriesStore.UNLIMITED_WINDOW);
            int id = create(store, "s");
            for (int k = 0; k < 1_000; k++) { // several closed in-order chunks
                store.append(id, 1_000_000L + k * 1_000, bits(k));
            }
            for (int k = 0; k < OutOfOrderStore.BUFFER_SAMPLES; k++) { // one out-of-order chunk spanning [1_000_500, 1_600_500]
                store.append(id, 1_000_500L + k * 600_000L / (OutOfOrderStore.BUFFER_SAMPLES - 1), bits(-1));
            }
            store.dropExpired(id, 1_500_000); // the in-order chunks before it go, the out-of-order chunk stays
            assertThat(store.minTime(id)).isEqualTo(1_000_500);
            assertThat(store.append(id, 1_000_500, bits(-1))).as("still found: a duplicate").isEqualTo(SeriesStore.DUPLICATE);
            assertThat(timestamps(store, id, 1_000_000, 1_001_000)).containsExactly(1_000_500L);
        }
    }

    @Test
    void aSampleOlderThanTheSeriesFirstLowersItsMinTime() {
        try (SeriesStore store = new SeriesStore(new MemoryAccounting(), ChunkCutPolicy.DEFAULT_CHUNK_RANGE_MS)) {
            store.outOfOrderWindowMs(60_000);
            int id = create(store, "s");
            store.append(id, 100_000, bits(1));
            assertThat(store.append(id, 50_000, bits(2))).isEqualTo(SeriesStore.APPENDED_OUT_OF_ORDER);
            assertThat(store.minTime(id)).isEqualTo(50_000);
            assertThat(timestamps(store, id, 0, 60_000)).containsExactly(50_000L);
        }
    }
}
