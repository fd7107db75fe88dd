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
