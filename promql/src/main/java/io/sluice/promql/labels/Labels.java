package io.sluice.promql.labels;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An immutable label set, sorted by name, as PromQL sees a series: names and values in one array
 * ({@code [n0, v0, n1, v1, ...]}). One per series, never one per sample. Ordering ({@link #compareTo})
 * is Prometheus' {@code labels.Compare}: label by label, name then value, a shorter set first; names
 * and values compare as Go compares strings, by their UTF-8 bytes ({@link #compareUtf8}).
 */
public final class Labels implements Comparable<Labels> {
    /** The metric name label. */
    public static final String METRIC_NAME = "__name__";
    /** The metric's type and unit labels, which go where the name goes. */
    public static final String METRIC_TYPE = "__type__";
    public static final String METRIC_UNIT = "__unit__";

    public static final Labels EMPTY = new Labels(new String[0]);

    private final String[] pairs;
    private int hash;

    private Labels(String[] sortedPairs) {
        this.pairs = sortedPairs;
    }

    /** From alternating names and values, in any order; a later duplicate name wins; empty values are dropped. */
    public static Labels of(String... namesAndValues) {
        if ((namesAndValues.length & 1) != 0) {
            throw new IllegalArgumentException("odd number of strings: names and values alternate");
        }
        Builder b = new Builder();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            b.set(namesAndValues[i], namesAndValues[i + 1]);
        }
        return b.build();
    }

    /**
     * From alternating names and values already in ascending name order with no empty value, as a
     * store's canonical labels are: no map and no sort (the array is taken, not copied). Input that is
     * not in that form is still accepted, at the {@link Builder}'s cost.
     */
    public static Labels ofSorted(String[] namesAndValues) {
        if ((namesAndValues.length & 1) != 0) {
            throw new IllegalArgumentException("odd number of strings: names and values alternate");
        }
        if (namesAndValues.length == 0) {
            return EMPTY;
        }
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1].isEmpty() || (i > 0 && compareUtf8(namesAndValues[i - 2], namesAndValues[i]) >= 0)) {
                return of(namesAndValues);
            }
        }
        return new Labels(namesAndValues);
    }

    public static Labels fromMap(Map<String, String> map) {
        Builder b = new Builder();
        map.forEach(b::set);
        return b.build();
    }

    public int size() {
        return pairs.length >> 1;
    }

    public boolean isEmpty() {
        return pairs.length == 0;
    }

    public String name(int i) {
        return pairs[i << 1];
    }

    public String value(int i) {
        return pairs[(i << 1) + 1];
    }

    /** The value of {@code name}, or {@code ""} when absent (PromQL treats a missing label as empty). */
    public String get(String name) {
        int i = indexOf(name);
        return i < 0 ? "" : pairs[(i << 1) + 1];
    }

    public boolean has(String name) {
        return indexOf(name) >= 0;
    }

    private int indexOf(String name) {
        int lo = 0;
        int hi = size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compareUtf8(pairs[mid << 1], name);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    /** The metric name, or {@code ""}. */
    public String metricName() {
        return get(METRIC_NAME);
    }

    /**
     * These labels without the metric's metadata labels {@code __name__}, {@code __type__} and
     * {@code __unit__}: what Prometheus drops where an operation drops the metric name
     * ({@code DropReserved(schema.IsMetadataLabel)}), whether or not it keeps type and unit labels.
     */
    public Labels withoutMetadata() {
        int drop = 0;
        for (int i = 0; i < pairs.length; i += 2) {
            if (isMetadata(pairs[i])) {
                drop += 2;
            }
        }
        if (drop == 0) {
            return this;
        }
        if (drop == pairs.length) {
            return EMPTY;
        }
        String[] kept = new String[pairs.length - drop];
        int k = 0;
        for (int i = 0; i < pairs.length; i += 2) {
            if (!isMetadata(pairs[i])) {
                kept[k++] = pairs[i];
                kept[k++] = pairs[i + 1];
            }
        }
        return new Labels(kept);
    }

    /** Whether {@code name} is {@code __name__}, {@code __type__} or {@code __unit__}. */
    public static boolean isMetadata(String name) {
        return name.startsWith("__") && (name.equals(METRIC_NAME) || name.equals(METRIC_TYPE) || name.equals(METRIC_UNIT));
    }

    /**
     * These labels with {@code name} set to {@code value}, or without it when {@code value} is empty
     * (as {@link Builder#set}): one array copy, no map.
     */
    public Labels with(String name, String value) {
        int i = indexOf(name);
        if (value == null || value.isEmpty()) {
            if (i < 0) {
                return this;
            }
            String[] kept = new String[pairs.length - 2];
            System.arraycopy(pairs, 0, kept, 0, i << 1);
            System.arraycopy(pairs, (i << 1) + 2, kept, i << 1, kept.length - (i << 1));
            return kept.length == 0 ? EMPTY : new Labels(kept);
        }
        if (i >= 0) {
            if (pairs[(i << 1) + 1].equals(value)) {
                return this;
            }
            String[] replaced = pairs.clone();
            replaced[(i << 1) + 1] = value;
            return new Labels(replaced);
        }
        int at = 0;
        while (at < pairs.length && compareUtf8(pairs[at], name) < 0) {
            at += 2;
        }
        String[] grown = new String[pairs.length + 2];
        System.arraycopy(pairs, 0, grown, 0, at);
        grown[at] = name;
        grown[at + 1] = value;
        System.arraycopy(pairs, at, grown, at + 2, pairs.length - at);
        return new Labels(grown);
    }

    /** These labels without the given names. */
    public Labels without(Collection<String> names) {
        List<String> kept = new ArrayList<>(pairs.length);
        for (int i = 0; i < pairs.length; i += 2) {
            if (!names.contains(pairs[i])) {
                kept.add(pairs[i]);
                kept.add(pairs[i + 1]);
            }
        }
        return kept.size() == pairs.length ? this : new Labels(kept.toArray(String[]::new));
    }

    /** Only the given names. */
    public Labels only(Collection<String> names) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < pairs.length; i += 2) {
            if (names.contains(pairs[i])) {
                kept.add(pairs[i]);
                kept.add(pairs[i + 1]);
            }
        }
        return kept.size() == pairs.length ? this : new Labels(kept.toArray(String[]::new));
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        for (int i = 0; i < pairs.length; i += 2) {
            b.set(pairs[i], pairs[i + 1]);
        }
        return b;
    }

    public Map<String, String> toMap() {
        Map<String, String> m = new TreeMap<>(Labels::compareUtf8);
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    @Override
    public int compareTo(Labels o) {
        int n = Math.min(pairs.length, o.pairs.length);
        for (int i = 0; i < n; i += 2) {
            int c = compareUtf8(pairs[i], o.pairs[i]);
            if (c != 0) {
                return c;
            }
            c = compareUtf8(pairs[i + 1], o.pairs[i + 1]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(pairs.length, o.pairs.length);
    }

    /**
     * Compares as Go compares strings: by their UTF-8 bytes, which is code-point order. Java's
     * {@link String#compareTo} compares UTF-16 units instead, and puts a character above U+FFFF (a
     * surrogate pair, units D800-DFFF) before one in U+E000-U+FFFF; Prometheus, the head's label order
     * and a Thanos store put it after. Written by hand because no JDK method compares this way without
     * allocating: the mismatching units are moved so that surrogates rank above U+E000-U+FFFF.
     */
    public static int compareUtf8(String a, String b) {
        if (a == b) {
            return 0; // names, and values read through one symbol table, are often the same instance
        }
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char ca = a.charAt(i);
            char cb = b.charAt(i);
            if (ca != cb) {
                return codePointRank(ca) - codePointRank(cb);
            }
        }
        return a.length() - b.length();
    }

    /** A UTF-16 unit's place in code-point order: surrogates (D800-DFFF) after U+E000-U+FFFF. */
    private static int codePointRank(char c) {
        if (c >= 0xE000) {
            return c - 0x800;
        }
        return c >= 0xD800 ? c + 0x2000 : c;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Labels l && Arrays.equals(pairs, l.pairs);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = Arrays.hashCode(pairs);
            hash = h;
        }
        return h;
    }

    /** Prometheus' notation: {@code name{a="b", c="d"}} (the name outside the braces when it is a plain identifier). */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        String name = metricName();
        boolean nameOutside = !name.isEmpty() && isIdentifier(name);
        if (nameOutside) {
            sb.append(name);
        }
        sb.append('{');
        boolean first = true;
        for (int i = 0; i < pairs.length; i += 2) {
            if (nameOutside && pairs[i].equals(METRIC_NAME)) {
                continue;
            }
            if (!first) {
                sb.append(", ");
            }
            first = false;
            sb.append(isIdentifier(pairs[i]) ? pairs[i] : quote(pairs[i])).append('=').append(quote(pairs[i + 1]));
        }
        return sb.append('}').toString();
    }

    static boolean isIdentifier(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                default -> sb.append(c);
            }
        }
        return sb.append('"').toString();
    }

    /** Collects labels in any order; {@link #build()} sorts them. An empty value deletes the label. */
    public static final class Builder {
        private final TreeMap<String, String> map = new TreeMap<>(Labels::compareUtf8);

        public Builder set(String name, String value) {
            if (value == null || value.isEmpty()) {
                map.remove(name);
            } else {
                map.put(name, value);
            }
            return this;
        }

        public Builder delete(String name) {
            map.remove(name);
            return this;
        }

        public String get(String name) {
            return map.getOrDefault(name, "");
        }

        public Labels build() {
            if (map.isEmpty()) {
                return EMPTY;
            }
            String[] p = new String[map.size() * 2];
            int i = 0;
            for (Map.Entry<String, String> e : map.entrySet()) {
                p[i++] = e.getKey();
                p[i++] = e.getValue();
            }
            return new Labels(p);
        }
    }
}
