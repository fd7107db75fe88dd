package io.sluice.core.labels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Builds the canonical bytes ({@link CanonicalLabels}) and the series hash of one label set at a
 * time, from labels added in any order or from bytes that claim to be canonical already.
 *
 * <p>One builder per consumer thread, reused for every series: {@link #reset()}, {@link #add}
 * repeatedly, {@link #build()}, then read {@link #bytes()}, {@link #length()}, {@link #hash()}
 * until the next reset. Zero allocation in steady state: the buffers grow to the largest set seen
 * (bounded by {@link LabelLimits#maxCanonicalBytes()}) and are reused; sorting permutes an
 * {@code int[]} in place. Not thread-safe; everything here is owned by the thread using it.
 *
 * <p>Rules (docs/format/labels.md): a label with an empty value is absent, so it is dropped by
 * {@code add} before any other check, including duplicate detection ({@code a="1", a=""} is
 * {@code {a="1"}}), as Prometheus' {@code labels.Builder} does. Bad input is reported by the
 * {@link LabelsStatus} that {@code build} returns, never by an exception; when several labels are
 * bad, the first in {@code add} order is reported, then duplicates, then a missing metric name.
 */
public final class LabelsBuilder {
    private static final int INITIAL_BUFFER_BYTES = 1024;

    private final LabelLimits limits;
    private final CanonicalValidator validator;

    // Raw names and values copied at add(), so the caller may reuse its buffer at once.
    private byte[] scratch = new byte[INITIAL_BUFFER_BYTES];
    private int scratchBytes;
    // Per stored label (non-empty value): where its name and value are in scratch, its add() number.
    private final int[] nameOff;
    private final int[] nameLen;
    private final int[] valueOff;
    private final int[] valueLen;
    private final int[] addNumber;
    private final int[] order; // indices of the stored labels, sorted by name in build()
    private int stored;
    private int adds;

    private LabelsStatus status = LabelsStatus.OK; // first error seen since reset()
    private int errorPosition = -1;

    private byte[] out = new byte[INITIAL_BUFFER_BYTES];
    private int outBytes;
    private int outCount;
    private long hash;
    private boolean built;

    public LabelsBuilder(LabelLimits limits) {
        this.limits = limits;
        this.validator = new CanonicalValidator(limits);
        int max = limits.maxLabels();
        nameOff = new int[max];
        nameLen = new int[max];
        valueOff = new int[max];
        valueLen = new int[max];
        addNumber = new int[max];
        order = new int[max];
    }

    public LabelLimits limits() {
        return limits;
    }

    /** Starts a new label set. */
    public LabelsBuilder reset() {
        stored = 0;
        adds = 0;
        scratchBytes = 0;
        status = LabelsStatus.OK;
        errorPosition = -1;
        built = false;
        return this;
    }

    /** Adds one label from UTF-8 bytes; order does not matter. The bytes are copied. */
    public LabelsBuilder add(byte[] name, int nameOffset, int nameLength, byte[] value, int valueOffset, int valueLength) {
        built = false;
        int number = adds++;
        if (valueLength == 0 || status != LabelsStatus.OK) {
            return this; // absent label, or the set is already rejected
        }
        LabelsStatus s = CanonicalValidator.checkLabel(limits, name, nameOffset, nameLength, value, valueOffset, valueLength);
        if (s == LabelsStatus.OK && stored == limits.maxLabels()) {
            s = LabelsStatus.TOO_MANY_LABELS;
        }
        if (s != LabelsStatus.OK) {
            fail(s, number);
            return this;
        }
        ensureScratch(nameLength + valueLength);
        nameOff[stored] = copyToScratch(name, nameOffset, nameLength);
        nameLen[stored] = nameLength;
        valueOff[stored] = copyToScratch(value, valueOffset, valueLength);
        valueLen[stored] = valueLength;
        addNumber[stored] = number;
        stored++;
        return this;
    }

    /** Convenience for tests and queries: encodes the strings as UTF-8 (allocates). */
    public LabelsBuilder add(String name, String value) {
        byte[] n = name.getBytes(StandardCharsets.UTF_8);
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        return add(n, 0, n.length, v, 0, v.length);
    }

    /**
     * Sorts, validates and encodes the labels added since {@link #reset()}. On {@link LabelsStatus#OK}
     * the canonical bytes and hash are readable; otherwise {@link #errorPosition()} is the 0-based
     * number of the {@code add} call at fault (-1 for a missing metric name).
     */
    public LabelsStatus build() {
        if (status != LabelsStatus.OK) {
            return status;
        }
        sortByName();
        for (int i = 1; i < stored; i++) {
            if (compareNames(order[i - 1], order[i]) == 0) {
                return fail(LabelsStatus.DUPLICATE_NAME, Math.max(addNumber[order[i - 1]], addNumber[order[i]]));
            }
        }
        if (limits.requireMetricName() && !hasMetricName()) {
            return fail(LabelsStatus.NO_METRIC_NAME, -1);
        }
        encode();
        hash = MurmurHash3.hash64(out, 0, outBytes);
        outCount = stored;
        built = true;
        return LabelsStatus.OK;
    }

    /**
     * Takes bytes that claim to be canonical (the native format, WAL replay): copies and validates
     * them (order, uniqueness, UTF-8, minimal lengths, limits). On failure
     * {@link #errorPosition()} is the offset of the offending label or byte from {@code offset}.
     */
    public LabelsStatus fromCanonical(byte[] b, int offset, int length) {
        reset();
        LabelsStatus s = validator.validate(b, offset, length);
        if (s != LabelsStatus.OK) {
            return fail(s, validator.errorOffset());
        }
        ensureOut(length);
        System.arraycopy(b, offset, out, 0, length);
        return accept(length);
    }

    /** {@link #fromCanonical(byte[], int, int)} for bytes in a memory segment (a mapped WAL). */
    public LabelsStatus fromCanonical(MemorySegment segment, long offset, int length) {
        reset();
        if (length > limits.maxCanonicalBytes()) {
            return fail(LabelsStatus.TOO_LONG, limits.maxCanonicalBytes());
        }
        ensureOut(length);
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset, out, 0, length);
        LabelsStatus s = validator.validate(out, 0, length);
        if (s != LabelsStatus.OK) {
            return fail(s, validator.errorOffset());
        }
        return accept(length);
    }

    /** The canonical bytes, valid in {@code [0, length())} after a successful build until the next reset. */
    public byte[] bytes() {
        checkBuilt();
        return out;
    }

    public int length() {
        checkBuilt();
        return outBytes;
    }

    /** The series hash of {@link #bytes()}: {@link MurmurHash3#hash64(byte[], int, int)}. */
    public long hash() {
        checkBuilt();
        return hash;
    }

    /** Labels in the built set. */
    public int count() {
        checkBuilt();
        return outCount;
    }

    /** Where the last failure was (see {@link #build()} and {@link #fromCanonical}); -1 if none. */
    public int errorPosition() {
        return errorPosition;
    }

    private LabelsStatus accept(int length) {
        outBytes = length;
        outCount = validator.count();
        hash = MurmurHash3.hash64(out, 0, length);
        built = true;
        return LabelsStatus.OK;
    }

    private LabelsStatus fail(LabelsStatus s, int position) {
        status = s;
        errorPosition = position;
        built = false;
        return s;
    }

    /** Binary insertion sort: n log n name comparisons, n^2/4 int moves (cheap for n <= 256). */
    private void sortByName() {
        for (int i = 0; i < stored; i++) {
            int label = i;
            int lo = 0;
            int hi = i;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (compareNames(order[mid], label) <= 0) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            System.arraycopy(order, lo, order, lo + 1, i - lo);
            order[lo] = label;
        }
    }

    private int compareNames(int a, int b) {
        return CanonicalLabels.compareBytes(scratch, nameOff[a], nameLen[a], scratch, nameOff[b], nameLen[b]);
    }

    private boolean hasMetricName() {
        for (int i = 0; i < stored; i++) {
            if (CanonicalLabels.isMetricName(scratch, nameOff[i], nameLen[i])) {
                return true;
            }
        }
        return false;
    }

    private void encode() {
        int size = 0;
        for (int i = 0; i < stored; i++) {
            size += CanonicalLabels.uvarintLength(nameLen[i]) + nameLen[i]
                    + CanonicalLabels.uvarintLength(valueLen[i]) + valueLen[i];
        }
        ensureOut(size);
        int pos = 0;
        for (int k = 0; k < stored; k++) {
            int i = order[k];
            pos = CanonicalLabels.putUvarint(out, pos, nameLen[i]);
            System.arraycopy(scratch, nameOff[i], out, pos, nameLen[i]);
            pos += nameLen[i];
            pos = CanonicalLabels.putUvarint(out, pos, valueLen[i]);
            System.arraycopy(scratch, valueOff[i], out, pos, valueLen[i]);
            pos += valueLen[i];
        }
        outBytes = pos;
    }

    private int copyToScratch(byte[] src, int off, int len) {
        int at = scratchBytes;
        System.arraycopy(src, off, scratch, at, len);
        scratchBytes += len;
        return at;
    }

    private void ensureScratch(int more) {
        if (scratchBytes + more > scratch.length) {
            scratch = Arrays.copyOf(scratch, Math.max(scratch.length * 2, scratchBytes + more));
        }
    }

    private void ensureOut(int size) {
        if (size > out.length) {
            out = new byte[Math.max(out.length * 2, size)];
        }
    }

    private void checkBuilt() {
        if (!built) {
            throw new IllegalStateException("no label set built: build() or fromCanonical() must return OK first");
        }
    }
}
