package io.sluice.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.labels.CanonicalLabels;
import io.sluice.core.labels.LabelsView;
import io.sluice.server.store.proto.Label;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Served label sets as bytes ({@link StoreLabels#served}) against the same sets built as maps: external
 * labels merged in name order (UTF-8 byte order), winning a clash, names in {@code without} left out;
 * and the byte order they are sorted in is Prometheus' order of the label sets ({@code compareLabelSets}),
 * including where adding an external label reorders two series.
 */
class StoreLabelsTest {
    private static byte[] served(StoreLabels labels, byte[] series, String... without) {
        LabelsView view = new LabelsView().wrap(series, 0, series.length);
        return labels.served(view, series, StoreLabels.utf8(List.of(without)));
    }

    private static Map<String, String> map(byte[] canonical) {
        Map<String, String> out = new TreeMap<>();
        for (LabelsView l = new LabelsView().wrap(canonical, 0, canonical.length); l.next(); ) {
            out.put(l.name(), l.value());
        }
        return out;
    }

    private static List<String> names(byte[] canonical) {
        List<String> out = new ArrayList<>();
        for (LabelsView l = new LabelsView().wrap(canonical, 0, canonical.length); l.next(); ) {
            out.add(l.name());
        }
        return out;
    }

    @Test
    void externalLabelsMergeWinAndAreLeftOutOnRequest() {
        StoreLabels labels = new StoreLabels(Map.of("cluster", "eu1", "replica", "a", "ü", "x", "job", "ext"));
        byte[] series = CanonicalLabels.encode("__name__", "up", "instance", "h1", "job", "api", "zone", "z", "é", "v");
        byte[] got = served(labels, series);
        assertThat(names(got)).containsExactly("__name__", "cluster", "instance", "job", "replica", "zone", "é", "ü");
        assertThat(map(got)).isEqualTo(new TreeMap<>(Map.of("__name__", "up", "cluster", "eu1", "instance", "h1",
                "job", "ext", "replica", "a", "zone", "z", "é", "v", "ü", "x")));
        assertThat(names(served(labels, series, "replica", "zone", "nothing")))
                .containsExactly("__name__", "cluster", "instance", "job", "é", "ü");
        assertThat(served(new StoreLabels(Map.of()), series)).isEqualTo(series);
        assertThat(names(served(new StoreLabels(Map.of()), series, "instance"))).containsExactly("__name__", "job", "zone", "é");
        assertThat(served(labels, new byte[0])).isEqualTo(CanonicalLabels.encode("cluster", "eu1", "job", "ext", "replica", "a", "ü", "x"));
    }

    @Test
    void theByteOrderIsPrometheusOrderEvenWhereAnExternalLabelReorders() {
        StoreLabels labels = new StoreLabels(Map.of("c", "1"));
        byte[] a = CanonicalLabels.encode("__name__", "m", "a", "1");
        byte[] b = CanonicalLabels.encode("__name__", "m", "a", "1", "b", "1");
        assertThat(HeadQuery.compareCanonical(a, b)).isNegative(); // a prefix first
        byte[] servedA = served(labels, a);
        byte[] servedB = served(labels, b);
        assertThat(HeadQuery.compareCanonical(servedA, servedB)).as("{a, c} after {a, b, c}").isPositive();

        List<byte[]> sets = new ArrayList<>(List.of(servedA, servedB, served(labels, CanonicalLabels.encode("__name__", "m")),
                served(labels, CanonicalLabels.encode("__name__", "mé", "a", "2")),
                served(labels, CanonicalLabels.encode("__name__", "m", "a", "1", "d", "0"), "c")));
        List<byte[]> byBytes = new ArrayList<>(sets);
        byBytes.sort(HeadQuery::compareCanonical);
        List<byte[]> byLabels = new ArrayList<>(sets);
        byLabels.sort(Comparator.comparing(StoreLabelsTest::protoLabels, StoreLabels::compareLabelSets));
        assertThat(byBytes).containsExactlyElementsOf(byLabels);
        assertThat(Set.copyOf(byBytes.stream().map(Arrays::toString).toList())).hasSize(5);
    }

    private static List<Label> protoLabels(byte[] canonical) {
        List<Label> out = new ArrayList<>();
        for (LabelsView l = new LabelsView().wrap(canonical, 0, canonical.length); l.next(); ) {
            out.add(Label.newBuilder().setName(l.name()).setValue(l.value()).build());
        }
        return out;
    }
}
