package io.sluice.core.labels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A reusable flyweight over canonical label bytes ({@link CanonicalLabels}) in a {@code byte[]} or
 * a {@link MemorySegment}: iterates labels, finds a name's value and compares sets without
 * creating Strings. Only {@link #toMap()}, {@link #toString()}, {@link #name()}, {@link #value()}
 * and {@link #get(String)} allocate (queries and tests).
 *
 * <p>The bytes must already be canonical (built by {@link LabelsBuilder} or validated by its
 * {@code fromCanonical}); a malformed length found here is a broken invariant and throws
 * {@link IllegalStateException} with its offset. Offsets returned are from the first byte of the
 * label set (for a view over {@link LabelsBuilder#bytes()} that is also the array index).
 *
 * <pre>{@code
 * view.wrap(builder.bytes(), 0, builder.length());
 * while (view.next()) {
 *     int nameId = symbols.intern(builder.bytes(), view.nameOffset(), view.nameLength());
 *     ...
 * }
 * }</pre>
 * Not thread-safe: one view per thread, like any flyweight.
 */
public final class LabelsView {
    private byte[] array; // exactly one of array and segment is set while wrapped
    private MemorySegment segment;
    private long base; // index in array or offset in segment of the first byte
    private int length;

    private int cursor; // where the next label starts
    private int nameOffset = -1;
    private int nameLength;
    private int valueOffset;
    private int valueLength;

    public LabelsView wrap(byte[] bytes, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.length);
        return wrapped(bytes, null, offset, length);
    }

    public LabelsView wrap(MemorySegment bytes, long offset, int length) {
        Objects.checkFromIndexSize(offset, length, bytes.byteSize());
        return wrapped(null, bytes, offset, length);
    }

    private LabelsView wrapped(byte[] a, MemorySegment s, long offset, int len) {
        array = a;
        segment = s;
        base = offset;
        length = len;
        return rewind();
    }

    /** Moves the cursor before the first label. */
    public LabelsView rewind() {
        cursor = 0;
        nameOffset = -1;
        return this;
    }

    /** Bytes of the whole label set. */
    public int length() {
        return length;
    }

    /** Labels in the set (a scan; the cursor is rewound). */
    public int count() {
        rewind();
        int n = 0;
        while (next()) {
            n++;
        }
        rewind();
        return n;
    }

    /** Advances to the next label; false after the last. */
    public boolean next() {
        if (cursor >= length) {
            nameOffset = -1;
            return false;
        }
        nameLength = readLength(cursor);
        nameOffset = cursor + CanonicalLabels.uvarintLength(nameLength);
        int valueAt = nameOffset + nameLength;
        valueLength = readLength(valueAt);
        valueOffset = valueAt + CanonicalLabels.uvarintLength(valueLength);
        cursor = valueOffset + valueLength;
        if (cursor > length) {
            throw malformed(valueAt);
        }
        return true;
    }

    public int nameOffset() {
        checkPositioned();
        return nameOffset;
    }

    public int nameLength() {
        checkPositioned();
        return nameLength;
    }

    public int valueOffset() {
        checkPositioned();
        return valueOffset;
    }

    public int valueLength() {
        checkPositioned();
        return valueLength;
    }

    /**
     * Positions the cursor on the label named {@code name[off, off + len)} and returns true, or
     * returns false (cursor rewound) when the set has no such label; stops early since names are sorted.
     */
    public boolean find(byte[] name, int off, int len) {
        rewind();
        while (next()) {
            int c = compareRange(nameOffset, nameLength, name, off, len);
            if (c == 0) {
                return true;
            }
            if (c > 0) {
                break;
            }
        }
        rewind();
        return false;
    }

    /** The value of label {@code name}, or null if absent (allocates; for queries and tests). */
    public String get(String name) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        return find(n, 0, n.length) ? value() : null;
    }

    /** The current label's name (allocates). */
    public String name() {
        return string(nameOffset(), nameLength);
    }

    /** The current label's value (allocates). */
    public String value() {
        return string(valueOffset(), valueLength);
    }

    /** Whether the current label's value equals {@code value[off, off + len)}. */
    public boolean valueEquals(byte[] value, int off, int len) {
        return valueLength() == len && compareRange(valueOffset, valueLength, value, off, len) == 0;
    }

    /** Whether both views hold the same bytes, i.e. the same label set. */
    public boolean bytesEqual(LabelsView other) {
        if (length != other.length) {
            return false;
        }
        if (array != null && other.array != null) {
            return Arrays.equals(array, (int) base, (int) base + length, other.array, (int) other.base,
                    (int) other.base + length);
        }
        if (segment != null && other.segment != null) {
            return MemorySegment.mismatch(segment, base, base + length, other.segment, other.base,
                    other.base + length) < 0;
        }
        for (int i = 0; i < length; i++) {
            if (byteAt(i) != other.byteAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the view holds exactly {@code bytes[off, off + len)}. */
    public boolean bytesEqual(byte[] bytes, int off, int len) {
        return length == len && compareRange(0, length, bytes, off, len) == 0;
    }

    /**
     * Prometheus' {@code labels.Compare} order: label by label, name then value (unsigned bytes),
     * and a set that is a prefix of the other sorts first. Rewinds both cursors.
     */
    public int compareTo(LabelsView other) {
        rewind();
        other.rewind();
        while (true) {
            boolean hasThis = next();
            boolean hasOther = other.next();
            if (!hasThis || !hasOther) {
                rewind();
                other.rewind();
                return Boolean.compare(hasThis, hasOther);
            }
            int c = compareAcross(nameOffset, nameLength, other, other.nameOffset, other.nameLength);
            if (c == 0) {
                c = compareAcross(valueOffset, valueLength, other, other.valueOffset, other.valueLength);
            }
            if (c != 0) {
                rewind();
                other.rewind();
                return c;
            }
        }
    }

    /** The series hash of the viewed bytes. */
    public long hash() {
        return array != null ? MurmurHash3.hash64(array, (int) base, length) : MurmurHash3.hash64(segment, base, length);
    }

    /** Name to value in canonical order (allocates; for queries and tests). */
    public Map<String, String> toMap() {
        Map<String, String> map = new LinkedHashMap<>();
        rewind();
        while (next()) {
            map.put(name(), value());
        }
        rewind();
        return map;
    }

    /** {@code {__name__="up", job="node"}}, quoting values like Prometheus (allocates). */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, String> e : toMap().entrySet()) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(e.getKey()).append("=\"");
            appendEscaped(sb, e.getValue());
            sb.append('"');
        }
        return sb.append('}').toString();
    }

    private static void appendEscaped(StringBuilder sb, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                default -> sb.append(c);
            }
        }
    }

    private int compareAcross(int off, int len, LabelsView other, int otherOff, int otherLen) {
        if (other.array != null) {
            return compareRange(off, len, other.array, (int) other.base + otherOff, otherLen);
        }
        if (array != null) {
            return -other.compareRange(otherOff, otherLen, array, (int) base + off, len);
        }
        int n = Math.min(len, otherLen);
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(byteAt(off + i) & 0xFF, other.byteAt(otherOff + i) & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(len, otherLen);
    }

    /** Unsigned comparison of this view's {@code [off, off + len)} with {@code b[bOff, bOff + bLen)}. */
    private int compareRange(int off, int len, byte[] b, int bOff, int bLen) {
        if (array != null) {
            return CanonicalLabels.compareBytes(array, (int) base + off, len, b, bOff, bLen);
        }
        int n = Math.min(len, bLen);
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(byteAt(off + i) & 0xFF, b[bOff + i] & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(len, bLen);
    }

    private byte byteAt(int offset) {
        return array != null ? array[(int) base + offset] : segment.get(ValueLayout.JAVA_BYTE, base + offset);
    }

    /** A canonical (minimal, at most three bytes) uvarint length at {@code offset}; loud if malformed. */
    private int readLength(int offset) {
        int value = 0;
        for (int i = 0; i < CanonicalLabels.MAX_UVARINT_BYTES && offset + i < length; i++) {
            int x = byteAt(offset + i) & 0xFF;
            value |= (x & 0x7F) << (7 * i);
            if (x < 0x80) {
                return value;
            }
        }
        throw malformed(offset);
    }

    private String string(int offset, int len) {
        if (array != null) {
            return new String(array, (int) base + offset, len, StandardCharsets.UTF_8);
        }
        byte[] copy = new byte[len];
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, base + offset, copy, 0, len);
        return new String(copy, StandardCharsets.UTF_8);
    }

    private void checkPositioned() {
        if (nameOffset < 0) {
            throw new IllegalStateException("no current label: call next() or find() first");
        }
    }

    private IllegalStateException malformed(int offset) {
        return new IllegalStateException("malformed canonical labels at offset " + offset + " of " + length
                + " bytes: the bytes were not built or validated by LabelsBuilder");
    }
}
