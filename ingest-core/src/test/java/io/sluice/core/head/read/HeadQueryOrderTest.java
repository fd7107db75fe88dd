package io.sluice.core.head.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.labels.CanonicalLabels;
import io.sluice.core.labels.LabelsView;
import java.util.ArrayList;
import java.util.Arrays;
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
     * The comparison on the first bytes of reused buffers (what follows them ignored) agrees with the one
     * on arrays; the empty set is first.
     */
    @Test
    void comparesLabelsInBufferPrefixesAsOnArrays() {
        byte[] x = CanonicalLabels.encode("__name__", "m", "a", "1");
        byte[] y = CanonicalLabels.encode("__name__", "m", "a", "1", "b", "2");
        byte[] bx = Arrays.copyOf(x, 300);
        byte[] by = Arrays.copyOf(y, 300);
        Arrays.fill(bx, x.length, bx.length, (byte) 7);
        assertThat(HeadQuery.compareCanonical(bx, x.length, by, y.length)).isNegative();
        assertThat(HeadQuery.compareCanonical(by, y.length, bx, x.length)).isPositive();
        assertThat(HeadQuery.compareCanonical(bx, x.length, x, x.length)).isZero();
        assertThat(HeadQuery.compareCanonical(by, 0, bx, x.length)).as("the empty set (a placeholder's)").isNegative();
        assertThat(HeadQuery.compareCanonical(bx, x.length, by, 0)).isPositive();
        assertThat(HeadQuery.compareCanonical(bx, 0, by, 0)).isZero();
    }
}
