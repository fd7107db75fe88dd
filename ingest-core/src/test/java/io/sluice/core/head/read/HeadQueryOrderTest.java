package io.sluice.core.head.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.labels.CanonicalLabels;
import io.sluice.core.labels.LabelsView;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HeadQueryOrderTest {
    /** The result's sort comparator agrees in sign with LabelsView.compareTo on random label sets. */
    @Test
    void comparesCanonicalLabelsAsLabelsViewDoes() {
        SplittableRandom random = new SplittableRandom(7);
        String[] names = {"__name__", "a", "ab", "b", "é", "job", "z"};
        String[] values = {"x", "xy", "y", "é", "\uFFFD", "\uD83D\uDE00", "a".repeat(200), "a".repeat(201)};
        List<byte[]> sets = new ArrayList<>();
        for (int s = 0; s < 300; s++) {
            Map<String, String> labels = new LinkedHashMap<>();
            for (int i = random.nextInt(4); i >= 0; i--) {
                labels.put(names[random.nextInt(names.length)], values[random.nextInt(values.length)]);
            }
            List<String> flat = new ArrayList<>();
            labels.forEach((n, v) -> {
                flat.add(n);
                flat.add(v);
            });
            sets.add(CanonicalLabels.encode(flat.toArray(String[]::new)));
        }
        LabelsView a = new LabelsView();
        LabelsView b = new LabelsView();
        int equal = 0;
        for (byte[] x : sets) {
            for (byte[] y : sets) {
                int expected = Integer.signum(a.wrap(x, 0, x.length).compareTo(b.wrap(y, 0, y.length)));
                assertThat(Integer.signum(HeadQuery.compareCanonical(x, y))).isEqualTo(expected);
                equal += expected == 0 ? 1 : 0;
            }
        }
        assertThat(equal).isLessThan(300 * 300 / 2);
    }

    /**
     * The comparison on memory segments (the label arena's, at an offset) agrees with the one on arrays;
     * the empty set (an evicted id's placeholder: an empty range of {@link MemorySegment#NULL}) is first.
     */
    @Test
    void comparesLabelsInPlaceAsOnArrays() {
        byte[] x = CanonicalLabels.encode("__name__", "m", "a", "1");
        byte[] y = CanonicalLabels.encode("__name__", "m", "a", "1", "b", "2");
        byte[] both = new byte[7 + x.length + y.length];
        System.arraycopy(x, 0, both, 7, x.length);
        System.arraycopy(y, 0, both, 7 + x.length, y.length);
        MemorySegment arena = MemorySegment.ofArray(both);
        assertThat(HeadQuery.compareCanonical(arena, 7, 7 + x.length, arena, 7 + x.length, both.length)).isNegative();
        assertThat(HeadQuery.compareCanonical(arena, 7 + x.length, both.length, arena, 7, 7 + x.length)).isPositive();
        assertThat(HeadQuery.compareCanonical(arena, 7, 7 + x.length, MemorySegment.ofArray(x), 0, x.length)).isZero();
        assertThat(HeadQuery.compareCanonical(MemorySegment.NULL, 0, 0, arena, 7, 7 + x.length)).isNegative();
        assertThat(HeadQuery.compareCanonical(arena, 7, 7 + x.length, MemorySegment.NULL, 0, 0)).isPositive();
        assertThat(HeadQuery.compareCanonical(MemorySegment.NULL, 0, 0, MemorySegment.NULL, 0, 0)).isZero();
    }
}
