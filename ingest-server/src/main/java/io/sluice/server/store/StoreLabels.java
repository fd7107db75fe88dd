package io.sluice.server.store;

import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.CanonicalLabels;
import io.sluice.core.labels.LabelsView;
import io.sluice.promql.labels.Labels;
import io.sluice.server.store.proto.Label;
import io.sluice.server.store.proto.LabelMatcher;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Labels as the StoreAPI serves them: a series' own labels with the instance's external labels
 * (which win on a clash, as in Thanos), minus the labels a request asks to leave out
 * ({@code without_replica_labels}), sorted by name; and requests' matchers turned into the head's,
 * with those on external labels decided here. Order is Prometheus' ({@code labels.Compare}): byte
 * order of the UTF-8 names, then values, a prefix first. Immutable, any thread.
 */
final class StoreLabels {
    /** Byte order of UTF-8 strings (= code point order, not {@link String#compareTo}'s UTF-16 order). */
    static final Comparator<String> UTF8_ORDER = Labels::compareUtf8;
    /** Prometheus' order of label sets. */
    static final Comparator<List<Label>> LABEL_SET_ORDER = StoreLabels::compareLabelSets;

    private final Map<String, String> external;
    /** The external labels' names and values as UTF-8, in byte order of the names. */
    private final byte[][] externalNames;
    private final byte[][] externalValues;

    StoreLabels(Map<String, String> external) {
        this.external = external;
        List<Map.Entry<String, String>> sorted = new ArrayList<>(external.entrySet());
        sorted.sort((a, b) -> Labels.compareUtf8(a.getKey(), b.getKey()));
        externalNames = new byte[sorted.size()][];
        externalValues = new byte[sorted.size()][];
        for (int i = 0; i < sorted.size(); i++) {
            externalNames[i] = sorted.get(i).getKey().getBytes(StandardCharsets.UTF_8);
            externalValues[i] = sorted.get(i).getValue().getBytes(StandardCharsets.UTF_8);
        }
    }

    Map<String, String> external() {
        return external;
    }

    /**
     * The served labels of a series, sorted by name, in the head's canonical encoding (uvarint length
     * and UTF-8 bytes of each name and value, {@link CanonicalLabels}), so that they are encoded and
     * compared ({@link HeadQuery#compareCanonical}) as bytes, with no object per label.
     *
     * @param series the series' labels, a view of {@code bytes} from index 0 (a snapshot's)
     * @param without the names to leave out, UTF-8 ({@link #utf8})
     */
    byte[] served(LabelsView series, byte[] bytes, byte[][] without) {
        // room for all the series' labels and the served external labels: the answer's length unless a
        // series label is left out (an external label of its name wins, or the request leaves it out)
        byte[] out = new byte[series.length() + servedExternalLength(without)];
        int pos = 0;
        int e = 0;
        for (LabelsView l = series.rewind(); l.next(); ) {
            int nameAt = l.nameOffset();
            int nameLength = l.nameLength();
            for (; e < externalNames.length && Arrays.compareUnsigned(externalNames[e], 0, externalNames[e].length,
                    bytes, nameAt, nameAt + nameLength) < 0; e++) {
                pos = put(out, pos, e, without);
            }
            if (isExternalOrWithout(e, without, bytes, nameAt, nameLength)) {
                continue;
            }
            pos = CanonicalLabels.putUvarint(out, pos, nameLength);
            System.arraycopy(bytes, nameAt, out, pos, nameLength);
            pos += nameLength;
            pos = CanonicalLabels.putUvarint(out, pos, l.valueLength());
            System.arraycopy(bytes, l.valueOffset(), out, pos, l.valueLength());
            pos += l.valueLength();
        }
        for (; e < externalNames.length; e++) {
            pos = put(out, pos, e, without);
        }
        return pos == out.length ? out : Arrays.copyOf(out, pos);
    }

    /** The canonical length of the external labels {@code without} does not leave out. */
    private int servedExternalLength(byte[][] without) {
        int size = 0;
        for (int e = 0; e < externalNames.length; e++) {
            byte[] name = externalNames[e];
            if (!isIn(without, name, 0, name.length)) {
                size += CanonicalLabels.uvarintLength(name.length) + name.length
                        + CanonicalLabels.uvarintLength(externalValues[e].length) + externalValues[e].length;
            }
        }
        return size;
    }

    /** Whether the series' label at {@code nameAt} is not served: external label {@code e} has its name, or it is left out. */
    private boolean isExternalOrWithout(int e, byte[][] without, byte[] bytes, int nameAt, int nameLength) {
        return e < externalNames.length && Arrays.equals(externalNames[e], 0, externalNames[e].length,
                bytes, nameAt, nameAt + nameLength) // the external label wins
                || isIn(without, bytes, nameAt, nameLength);
    }

    /** Names as UTF-8 bytes, for {@link #served}. */
    static byte[][] utf8(Collection<String> names) {
        return names.stream().map(n -> n.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
    }

    private int put(byte[] out, int pos, int e, byte[][] without) {
        byte[] name = externalNames[e];
        if (isIn(without, name, 0, name.length)) {
            return pos;
        }
        pos = CanonicalLabels.putUvarint(out, pos, name.length);
        System.arraycopy(name, 0, out, pos, name.length);
        pos += name.length;
        pos = CanonicalLabels.putUvarint(out, pos, externalValues[e].length);
        System.arraycopy(externalValues[e], 0, out, pos, externalValues[e].length);
        return pos + externalValues[e].length;
    }

    private static boolean isIn(byte[][] names, byte[] bytes, int offset, int length) {
        for (byte[] n : names) {
            if (Arrays.equals(n, 0, n.length, bytes, offset, offset + length)) {
                return true;
            }
        }
        return false;
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
            int c = Labels.compareUtf8(a.get(i).getName(), b.get(i).getName());
            if (c != 0) {
                return c;
            }
            c = Labels.compareUtf8(a.get(i).getValue(), b.get(i).getValue());
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }
}
