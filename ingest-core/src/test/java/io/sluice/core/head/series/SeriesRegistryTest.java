package io.sluice.core.head.series;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SeriesRegistryTest {
    /** Labels stored per id, compared byte by byte, as the shard's series store does. */
    private final List<byte[]> labelsById = new ArrayList<>();
    private final SeriesRegistry.LabelsMatcher matcher = (id, labels, off, len) ->
            MemorySegment.mismatch(MemorySegment.ofArray(labelsById.get(id)), 0, labelsById.get(id).length, labels, off, off + len) == -1;

    private int add(SeriesRegistry registry, long hash, String labels) {
        byte[] bytes = labels.getBytes(StandardCharsets.UTF_8);
        assertThat(registry.find(hash, MemorySegment.ofArray(bytes), 0, bytes.length, matcher)).isEqualTo(SeriesRegistry.ABSENT);
        labelsById.add(bytes);
        int id = labelsById.size() - 1;
        registry.insert(hash, id);
        return id;
    }

    private int find(SeriesRegistry registry, long hash, String labels) {
        byte[] bytes = labels.getBytes(StandardCharsets.UTF_8);
        return registry.find(hash, MemorySegment.ofArray(bytes), 0, bytes.length, matcher);
    }

    @Test
    void forcedHashCollisionsStayDistinctSeries() {
        SeriesRegistry registry = new SeriesRegistry(4);
        long sameHash = 0xDEADBEEFL;
        int a = add(registry, sameHash, "job=a");
        int b = add(registry, sameHash, "job=b");
        int c = add(registry, sameHash, "job=c");
        assertThat(find(registry, sameHash, "job=a")).isEqualTo(a);
        assertThat(find(registry, sameHash, "job=b")).isEqualTo(b);
        assertThat(find(registry, sameHash, "job=c")).isEqualTo(c);
        assertThat(find(registry, sameHash, "job=d")).isEqualTo(SeriesRegistry.ABSENT);
        assertThat(registry.remove(sameHash, b)).isTrue();
        assertThat(find(registry, sameHash, "job=a")).isEqualTo(a);
        assertThat(find(registry, sameHash, "job=b")).isEqualTo(SeriesRegistry.ABSENT);
        assertThat(find(registry, sameHash, "job=c")).isEqualTo(c);
    }

    @Test
    void ensureCapacitySizesOnceAndKeepsEverySeries() {
        SeriesRegistry registry = new SeriesRegistry(4);
        int a = add(registry, 1L, "job=a");
        int b = add(registry, 1L << 40, "job=b");
        registry.ensureCapacity(100_000); // a checkpoint load of 100,000 series
        long sized = registry.footprintBytes();
        assertThat(sized).as("room for 100,000 series at half load").isGreaterThanOrEqualTo(200_000L * 12);
        assertThat(find(registry, 1L, "job=a")).isEqualTo(a);
        assertThat(find(registry, 1L << 40, "job=b")).isEqualTo(b);
        for (int i = 2; i < 100_000; i++) {
            add(registry, i * 0x9E3779B97F4A7C15L, "s=" + i);
        }
        assertThat(registry.footprintBytes()).as("no growth on the way").isEqualTo(sized);
        assertThat(registry.size()).isEqualTo(100_000);
        assertThat(find(registry, 77 * 0x9E3779B97F4A7C15L, "s=77")).isEqualTo(77);
        registry.ensureCapacity(10);
        assertThat(registry.footprintBytes()).as("never shrinks").isEqualTo(sized);
    }

    @Test
    void randomInsertsAndRemovalsMatchAHashMap() {
        long seed = 42;
        SplittableRandom random = new SplittableRandom(seed);
        SeriesRegistry registry = new SeriesRegistry(16);
        Map<String, Integer> expected = new HashMap<>();
        Map<String, Long> hashOf = new HashMap<>();
        for (int step = 0; step < 100_000; step++) {
            String labels = "s=" + random.nextInt(5_000);
            long hash = random.nextInt(4) == 0 ? labels.length() : labels.hashCode(); // many collisions on purpose
            hashOf.putIfAbsent(labels, hash);
            hash = hashOf.get(labels);
            Integer id = expected.get(labels);
            if (id == null) {
                expected.put(labels, add(registry, hash, labels));
            } else if (random.nextBoolean()) {
                assertThat(registry.remove(hash, id)).as("seed %d step %d", seed, step).isTrue();
                expected.remove(labels);
            } else {
                assertThat(find(registry, hash, labels)).as("seed %d step %d", seed, step).isEqualTo(id);
            }
        }
        assertThat(registry.size()).isEqualTo(expected.size());
        expected.forEach((labels, id) -> assertThat(find(registry, hashOf.get(labels), labels)).isEqualTo(id));
    }
}
