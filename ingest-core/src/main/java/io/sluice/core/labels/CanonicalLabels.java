package io.sluice.core.labels;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The canonical encoding of a label set: a series' identity, the input of its hash, the labels of
 * the WAL's SERIES record and of the native wire format (docs/format/labels.md says the same).
 *
 * <pre>
 *   label 0                                   label 1          ...   label n-1
 *  +-----------------+------+------------------+-------+-----+------+
 *  | uvarint nameLen | name | uvarint valueLen | value | ... | ...  |
 *  +-----------------+------+------------------+-------+-----+------+
 *    1..3 bytes        UTF-8  1..3 bytes         UTF-8
 * </pre>
 *
 * <ul>
 *   <li>Labels in strictly ascending order of name, compared as unsigned bytes (the order of Go
 *       strings, which Prometheus sorts labels by; not Java's UTF-16 {@code String.compareTo}).
 *       Strictly: names are unique.</li>
 *   <li>uvarint: unsigned LEB128 as in protobuf and Go's {@code binary.PutUvarint}, seven bits a
 *       byte, low group first, the high bit set on every byte but the last; minimal (no trailing
 *       0x80 0x00 padding).</li>
 *   <li>Names are 1..{@value #MAX_NAME_BYTES} bytes, values 1..{@value #MAX_VALUE_BYTES} bytes:
 *       an empty value means the label is absent (as in Prometheus) so it is never written; both
 *       fit an unsigned 16-bit length and a uvarint of at most three bytes.</li>
 *   <li>At most {@value #MAX_LABELS} labels, so at most about 33.5 MB in all; {@link LabelLimits}
 *       narrows these format maxima to what a deployment accepts (default about 2.2 MB).</li>
 *   <li>No count and no total length: the container (WAL record, wire frame) knows the total
 *       length; the empty label set is zero bytes.</li>
 * </ul>
 *
 * <p>Because order, uniqueness, emptiness and varint width are all fixed, every label set has
 * exactly one encoding, so equal label sets have equal bytes and equal hashes.
 */
public final class CanonicalLabels {
    /** Format maximum of labels in one set. */
    public static final int MAX_LABELS = 256;
    /** Format maximum of a name's UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 65_535;
    /** Format maximum of a value's UTF-8 bytes. */
    public static final int MAX_VALUE_BYTES = 65_535;
    /** Width of the largest length prefix (a uvarint of 65,535). */
    public static final int MAX_UVARINT_BYTES = 3;
    /** The label that holds the metric name. */
    public static final String METRIC_NAME = "__name__";

    static final byte[] METRIC_NAME_BYTES = METRIC_NAME.getBytes(StandardCharsets.UTF_8);

    /** The format's own maxima, for {@link #encode}; no {@code __name__} required (the head's limits decide that). */
    private static final LabelLimits FORMAT_LIMITS = new LabelLimits(MAX_LABELS, MAX_NAME_BYTES, MAX_VALUE_BYTES, false);

    private CanonicalLabels() {
    }

    /*
     * A convenience for producers that prepare their series once (the load generator, tests): it
     * allocates, so it does not belong on a per-sample path, and the head validates what it receives.
     */
    /** Canonical bytes of {@code name, value, name, value, ...}; a duplicate or unencodable label is an IllegalArgumentException. */
    public static byte[] encode(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values must come in pairs, got " + namesAndValues.length);
        }
        LabelsBuilder builder = new LabelsBuilder(FORMAT_LIMITS);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            builder.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        LabelsStatus status = builder.build();
        if (status == LabelsStatus.DUPLICATE_NAME) {
            throw new IllegalArgumentException("duplicate label name in " + String.join(",", namesAndValues));
        }
        if (status != LabelsStatus.OK) {
            throw new IllegalArgumentException("cannot encode labels (" + status + "): " + String.join(",", namesAndValues));
        }
        return Arrays.copyOf(builder.bytes(), builder.length());
    }

    /** Bytes the uvarint of {@code value} (0..{@value #MAX_VALUE_BYTES}) takes. */
    public static int uvarintLength(int value) {
        return value < 0x80 ? 1 : value < 0x4000 ? 2 : 3;
    }

    /** Writes the uvarint of {@code value} (0..2^21-1) at {@code pos}; returns the position after it. */
    public static int putUvarint(byte[] b, int pos, int value) {
        while (value >= 0x80) {
            b[pos++] = (byte) (value | 0x80);
            value >>>= 7;
        }
        b[pos++] = (byte) value;
        return pos;
    }

    /**
     * Reads the uvarint at {@code pos} (bytes before {@code end}) as a length: its value, or -1 when
     * it is truncated, not minimal or above 65,535. The reader advances by {@link #uvarintLength}
     * of the value, which is exact because only minimal encodings are accepted.
     */
    public static int getUvarint(byte[] b, int pos, int end) {
        int value = 0;
        for (int i = 0; i < MAX_UVARINT_BYTES; i++) {
            if (pos + i >= end) {
                return -1;
            }
            int x = b[pos + i] & 0xFF;
            value |= (x & 0x7F) << (7 * i);
            if (x < 0x80) {
                boolean minimal = i == 0 || x != 0;
                return minimal && value <= 0xFFFF ? value : -1;
            }
        }
        return -1;
    }

    /** Unsigned byte-wise comparison: the label order of the encoding. */
    public static int compareBytes(byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
        return Arrays.compareUnsigned(a, aOff, aOff + aLen, b, bOff, bOff + bLen);
    }

    static boolean isMetricName(byte[] b, int off, int len) {
        return Arrays.equals(b, off, off + len, METRIC_NAME_BYTES, 0, METRIC_NAME_BYTES.length);
    }
}
