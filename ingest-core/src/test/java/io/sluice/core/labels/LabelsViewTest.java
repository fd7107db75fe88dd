package io.sluice.core.labels;

import static io.sluice.core.labels.LabelsBuilderTest.raw;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LabelsViewTest {
    private static final long SEED = 0x71E3L;
    private static final LabelLimits ANY = new LabelLimits(16, 64, 256, false);

    private final Arena arena = Arena.ofConfined();
    private final LabelsBuilder builder = new LabelsBuilder(ANY);

    @AfterEach
    void close() {
        arena.close();
    }

    @Test
    void iteratesNamesAndValuesByOffset() {
        byte[] b = canonical("__name__", "up", "job", "node", "zone", "\u00e9t\u00e9");
        LabelsView view = new LabelsView().wrap(b, 0, b.length);
        List<String> seen = new ArrayList<>();
        while (view.next()) {
            seen.add(new String(b, view.nameOffset(), view.nameLength(), StandardCharsets.UTF_8) + "="
                    + new String(b, view.valueOffset(), view.valueLength(), StandardCharsets.UTF_8));
        }
        assertThat(seen).containsExactly("__name__=up", "job=node", "zone=\u00e9t\u00e9");
        assertThat(view.count()).isEqualTo(3);
        assertThat(view.length()).isEqualTo(b.length);
        assertThat(view.hash()).isEqualTo(builder.hash());
        assertThatThrownBy(view::nameOffset).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void findsAValueWithoutStringsOnArraysAndSegments() {
        byte[] b = canonical("__name__", "up", "job", "node", "zone", "a");
        for (LabelsView view : List.of(new LabelsView().wrap(b, 0, b.length), segmentView(b))) {
            byte[] job = "job".getBytes(StandardCharsets.UTF_8);
            assertThat(view.find(job, 0, job.length)).isTrue();
            assertThat(view.valueEquals("node".getBytes(StandardCharsets.UTF_8), 0, 4)).isTrue();
            assertThat(view.valueEquals("nod".getBytes(StandardCharsets.UTF_8), 0, 3)).isFalse();
            assertThat(view.value()).isEqualTo("node");
            byte[] missing = "jobs".getBytes(StandardCharsets.UTF_8);
            assertThat(view.find(missing, 0, missing.length)).isFalse();
            assertThat(view.get("zone")).isEqualTo("a");
            assertThat(view.get("a")).as("before every name").isNull();
            assertThat(view.get("zz")).as("after every name").isNull();
            assertThat(view.toMap()).containsExactly(Map.entry("__name__", "up"), Map.entry("job", "node"),
                    Map.entry("zone", "a"));
        }
    }

    @Test
    void comparesLikePrometheusLabelsCompare() {
        List<byte[]> ordered = List.of(
                canonical("a", "1"),
                canonical("a", "1", "b", "1"),
                canonical("a", "1", "c", "0"),
                canonical("a", "10"),
                canonical("a", "2"),
                canonical("b", "0"),
                canonical("\u00e9", "0"));
        for (int i = 0; i < ordered.size(); i++) {
            for (int j = 0; j < ordered.size(); j++) {
                int expected = Integer.signum(Integer.compare(i, j));
                byte[] x = ordered.get(i);
                byte[] y = ordered.get(j);
                assertThat(Integer.signum(new LabelsView().wrap(x, 0, x.length).compareTo(segmentView(y))))
                        .as("%d vs %d", i, j).isEqualTo(expected);
                assertThat(Integer.signum(segmentView(x).compareTo(new LabelsView().wrap(y, 0, y.length))))
                        .isEqualTo(expected);
                assertThat(Integer.signum(segmentView(x).compareTo(segmentView(y)))).isEqualTo(expected);
            }
        }
    }

    @Test
    void sortingByCompareToMatchesAReferenceOrder() {
        Random random = new Random(SEED);
        List<byte[]> sets = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int n = 1 + random.nextInt(3);
            String[] nv = new String[2 * n];
            for (int k = 0; k < n; k++) {
                nv[2 * k] = String.valueOf((char) ('a' + random.nextInt(3))) + k;
                nv[2 * k + 1] = String.valueOf(random.nextInt(3));
            }
            sets.add(canonical(nv));
        }
        LabelsView x = new LabelsView();
        LabelsView y = new LabelsView();
        List<byte[]> sorted = new ArrayList<>(sets);
        sorted.sort((p, q) -> x.wrap(p, 0, p.length).compareTo(y.wrap(q, 0, q.length)));
        List<byte[]> reference = new ArrayList<>(sets);
        reference.sort(Comparator.comparing(LabelsViewTest::pairs, LabelsViewTest::comparePairs));
        assertThat(sorted).as("seed %d", SEED).containsExactlyElementsOf(reference);
    }

    @Test
    void equalityIsByBytesAcrossStorage() {
        byte[] a = canonical("__name__", "up", "job", "node");
        byte[] padded = new byte[a.length + 3];
        System.arraycopy(a, 0, padded, 3, a.length);
        byte[] c = canonical("__name__", "up", "job", "nodf");
        LabelsView va = new LabelsView().wrap(a, 0, a.length);
        assertThat(va.bytesEqual(new LabelsView().wrap(padded, 3, a.length))).isTrue();
        assertThat(va.bytesEqual(segmentView(a))).isTrue();
        assertThat(segmentView(a).bytesEqual(segmentView(a))).isTrue();
        assertThat(segmentView(a).bytesEqual(va)).isTrue();
        assertThat(va.bytesEqual(segmentView(c))).isFalse();
        assertThat(segmentView(a).bytesEqual(segmentView(c))).isFalse();
        assertThat(va.bytesEqual(c, 0, c.length)).isFalse();
        assertThat(segmentView(a).bytesEqual(padded, 3, a.length)).isTrue();
        assertThat(va.bytesEqual(a, 0, a.length - 1)).isFalse();
        assertThat(segmentView(a).hash()).isEqualTo(va.hash());
    }

    @Test
    void printsLikePrometheus() {
        byte[] b = canonical("__name__", "up", "path", "a\"b\\c\nd");
        assertThat(new LabelsView().wrap(b, 0, b.length).toString())
                .isEqualTo("{__name__=\"up\", path=\"a\\\"b\\\\c\\nd\"}");
        assertThat(new LabelsView().wrap(b, 0, 0).toString()).isEqualTo("{}");
    }

    @Test
    void malformedBytesAreLoudWithTheirOffset() {
        byte[] truncated = raw(1, "a", 5, "x");
        LabelsView view = new LabelsView().wrap(truncated, 0, truncated.length);
        assertThatThrownBy(view::next).isInstanceOf(IllegalStateException.class).hasMessageContaining("offset 2");
        byte[] runaway = raw(1, "a", 0x80, 0x80, 0x80);
        assertThatThrownBy(new LabelsView().wrap(runaway, 0, runaway.length)::next)
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("offset 2");
        assertThatThrownBy(() -> new LabelsView().wrap(truncated, 2, 10)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    private byte[] canonical(String... nameValues) {
        builder.reset();
        for (int i = 0; i < nameValues.length; i += 2) {
            builder.add(nameValues[i], nameValues[i + 1]);
        }
        assertThat(builder.build()).isEqualTo(LabelsStatus.OK);
        return Arrays.copyOf(builder.bytes(), builder.length());
    }

    private LabelsView segmentView(byte[] b) {
        MemorySegment s = arena.allocate(b.length + 8);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 8, b.length);
        return new LabelsView().wrap(s, 8, b.length);
    }

    private static List<String[]> pairs(byte[] b) {
        List<String[]> pairs = new ArrayList<>();
        new LabelsView().wrap(b, 0, b.length).toMap().forEach((n, v) -> pairs.add(new String[] {n, v}));
        return pairs;
    }

    /** Prometheus' labels.Compare, written on Strings (ASCII here, so String order is byte order). */
    private static int comparePairs(List<String[]> a, List<String[]> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i)[0].compareTo(b.get(i)[0]);
            if (c == 0) {
                c = a.get(i)[1].compareTo(b.get(i)[1]);
            }
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }
}
