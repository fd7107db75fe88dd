package io.sluice.core.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class PostingsTest {
    private static final long SEED = 0x9057L;

    @Test
    void indexesPairsValuesNamesAndAllSeries() {
        Postings postings = new Postings();
        postings.add(7, new int[] {0, 2}, new int[] {1, 3}, 2);
        postings.add(9, new int[] {0, 2, 99}, new int[] {1, 4, 5}, 3);
        assertThat(postings.postings(0, 1).toArray()).containsExactly(7, 9);
        assertThat(postings.postings(2, 3).toArray()).containsExactly(7);
        assertThat(postings.postings(2, 5).isEmpty()).isTrue();
        assertThat(postings.valueIds(2).toArray()).containsExactly(3, 4);
        assertThat(postings.valueIds(1000).isEmpty()).isTrue();
        assertThat(postings.nameIds().toArray()).containsExactly(0, 2, 99);
        assertThat(postings.allSeries().toArray()).containsExactly(7, 9);
        assertThat(postings.seriesCount()).isEqualTo(2);
        assertThat(postings.heapBytes()).isPositive();

        RoaringBitmap copy = postings.postings(0, 1);
        copy.add(1234);
        assertThat(postings.postings(0, 1).contains(1234)).as("readers get copies").isFalse();

        postings.remove(9, new int[] {0, 2, 99}, new int[] {1, 4, 5}, 3);
        assertThat(postings.postings(0, 1).toArray()).containsExactly(7);
        assertThat(postings.valueIds(2).toArray()).containsExactly(3);
        assertThat(postings.nameIds().toArray()).containsExactly(0, 2);
        assertThat(postings.allSeries().toArray()).containsExactly(7);
    }

    @Test
    void removingLabelsASeriesNeverHadIsLoud() {
        Postings postings = new Postings();
        postings.add(1, new int[] {0}, new int[] {1}, 1);
        assertThatThrownBy(() -> postings.remove(2, new int[] {0}, new int[] {1}, 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("series 2");
        assertThatThrownBy(() -> postings.remove(1, new int[] {0}, new int[] {2}, 1))
                .isInstanceOf(IllegalStateException.class);
    }

    /**
     * add() skips the value and name bitmaps when the pair exists (they hold it already): under random
     * adds and removes of series, values and names in use still equal a model's, also for pairs that
     * emptied and came back.
     */
    @Test
    void valuesAndNamesFollowThePairsUnderRandomAddsAndRemoves() {
        Random random = new Random(SEED);
        Postings postings = new Postings();
        Map<Integer, int[][]> live = new HashMap<>(); // series id -> {names, values}
        int nextId = 0;
        for (int op = 0; op < 20_000; op++) {
            if (!live.isEmpty() && random.nextInt(3) == 0) {
                int id = live.keySet().stream().skip(random.nextInt(live.size())).findFirst().orElseThrow();
                int[][] labels = live.remove(id);
                postings.remove(id, labels[0], labels[1], labels[0].length);
            } else {
                int n = 1 + random.nextInt(4);
                int[] names = new int[n];
                int[] values = new int[n];
                for (int i = 0; i < n; i++) {
                    names[i] = i * 10 + random.nextInt(3); // distinct names within a series
                    values[i] = random.nextInt(6);
                }
                postings.add(nextId, names, values, n);
                live.put(nextId++, new int[][] {names, values});
            }
            if (op % 500 == 0) {
                Map<Integer, RoaringBitmap> values = new HashMap<>();
                for (int[][] labels : live.values()) {
                    for (int i = 0; i < labels[0].length; i++) {
                        values.computeIfAbsent(labels[0][i], k -> new RoaringBitmap()).add(labels[1][i]);
                    }
                }
                assertThat(postings.nameIds()).as("seed %d op %d names", SEED, op)
                        .isEqualTo(RoaringBitmap.bitmapOf(values.keySet().stream().mapToInt(Integer::intValue).toArray()));
                for (int name = 0; name < 40; name++) {
                    assertThat(postings.valueIds(name)).as("seed %d op %d values of %d", SEED, op, name)
                            .isEqualTo(values.getOrDefault(name, new RoaringBitmap()));
                }
            }
        }
    }

    @Test
    void pairMapAgreesWithAHashMapUnderRandomAddsAndRemoves() {
        Random random = new Random(SEED);
        PairPostingsMap map = new PairPostingsMap();
        Map<Long, RoaringBitmap> reference = new HashMap<>();
        for (int op = 0; op < 200_000; op++) {
            long key = PairPostingsMap.key(random.nextInt(50), random.nextInt(random.nextBoolean() ? 100 : 5000));
            if (random.nextInt(3) == 0) {
                assertThat(map.remove(key)).as("seed %d op %d", SEED, op).isEqualTo(reference.remove(key) != null);
            } else {
                RoaringBitmap b = map.getOrCreate(key);
                RoaringBitmap previous = reference.putIfAbsent(key, b);
                assertThat(previous == null || previous == b).as("seed %d op %d same bitmap", SEED, op).isTrue();
            }
            if (op % 10_000 == 0) {
                for (Map.Entry<Long, RoaringBitmap> e : reference.entrySet()) {
                    assertThat(map.get(e.getKey())).as("seed %d op %d", SEED, op).isSameAs(e.getValue());
                }
            }
            assertThat(map.size()).isEqualTo(reference.size());
        }
        assertThat(map.get(PairPostingsMap.key(-1, -1))).isNull();
        assertThat(PairPostingsMap.key(1, -1)).isEqualTo(0x1_FFFF_FFFFL);
    }
}
