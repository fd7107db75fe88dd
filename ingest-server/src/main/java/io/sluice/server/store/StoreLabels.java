package io.sluice.server.store;

import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelsView;
import io.sluice.server.store.proto.Label;
import io.sluice.server.store.proto.LabelMatcher;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Labels as the StoreAPI serves them: a series' own labels with the instance's external labels
 * (which win on a clash, as in Thanos), minus the labels a request asks to leave out
 * ({@code without_replica_labels}), sorted by name; and requests' matchers turned into the head's,
 * with those on external labels decided here. Order is Prometheus' ({@code labels.Compare}): byte
 * order of the UTF-8 names, then values, a prefix first. Immutable, any thread.
 */
final class StoreLabels {
    /** Byte order of UTF-8 strings (= code point order, not {@link String#compareTo}'s UTF-16 order). */
    static final Comparator<String> UTF8_ORDER = StoreLabels::compareCodePoints;
    /** Prometheus' order of label sets. */
    static final Comparator<List<Label>> LABEL_SET_ORDER = StoreLabels::compareLabelSets;

    private final Map<String, String> external;

    StoreLabels(Map<String, String> external) {
        this.external = external;
    }

    Map<String, String> external() {
        return external;
    }

    /** The served labels of a series, sorted. */
    List<Label> served(LabelsView series, Set<String> without) {
        List<Label> out = new ArrayList<>(series.count() + external.size());
        for (LabelsView l = series.rewind(); l.next(); ) {
            String name = l.name();
            if (!external.containsKey(name) && !without.contains(name)) {
                out.add(Label.newBuilder().setName(name).setValue(l.value()).build());
            }
        }
        for (Map.Entry<String, String> e : external.entrySet()) {
            if (!without.contains(e.getKey())) {
                out.add(Label.newBuilder().setName(e.getKey()).setValue(e.getValue()).build());
            }
        }
        out.sort((a, b) -> compareCodePoints(a.getName(), b.getName()));
        return out;
    }

    /**
     * The head matchers of a request: matchers on an external label are checked against its value
     * here and dropped; null when one fails (this instance has nothing that matches). An empty
     * result means "every series" (the caller selects {@code __name__=~".+"}).
     *
     * @throws IllegalArgumentException for a regex RE2 rejects or an unknown matcher type
     */
    List<Matcher> headMatchers(List<LabelMatcher> matchers) {
        List<Matcher> out = new ArrayList<>(matchers.size());
        for (LabelMatcher m : matchers) {
            Matcher.Type type = switch (m.getType()) {
                case EQ -> Matcher.Type.EQ;
                case NEQ -> Matcher.Type.NEQ;
                case RE -> Matcher.Type.RE;
                case NRE -> Matcher.Type.NRE;
                case UNRECOGNIZED -> throw new IllegalArgumentException("unknown matcher type " + m.getTypeValue()
                        + " for label " + m.getName());
            };
            Matcher matcher = Matcher.of(type, m.getName(), m.getValue());
            String value = external.get(m.getName());
            if (value != null) {
                if (!matcher.matches(value)) {
                    return null;
                }
                continue;
            }
            out.add(matcher);
        }
        return out;
    }

    static int compareLabelSets(List<Label> a, List<Label> b) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            int c = compareCodePoints(a.get(i).getName(), b.get(i).getName());
            if (c != 0) {
                return c;
            }
            c = compareCodePoints(a.get(i).getValue(), b.get(i).getValue());
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
