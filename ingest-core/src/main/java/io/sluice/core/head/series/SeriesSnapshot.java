package io.sluice.core.head.series;

import io.sluice.core.chunk.ChunkCutPolicy;
import io.sluice.core.chunk.HeapXorEncoder;
import io.sluice.core.chunk.XorChunkDescriptor;
import io.sluice.core.chunk.XorIterator;
import io.sluice.core.labels.LabelsView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;

/**
 * A reader's private copy of one series: its canonical labels and the bytes of its chunks that
 * overlap a time range, taken consistently by the series store ({@code SeriesStore.snapshot}). Reusable: one per
 * reading thread, its buffers grow to the largest series read and are then reused.
 *
 * <p>Iterate with {@link #samples()}: samples in [minTimeMs, maxTimeMs], in time order.
 */
public final class SeriesSnapshot {
    private byte[] ownLabels = new byte[256];
    private byte[] labels = ownLabels; // ownLabels or a caller's array (labelsShared)
    private int labelsLength;
    private final LabelsView labelsView = new LabelsView();
    private byte[] chunkBytes = new byte[4096];
    private int chunkBytesUsed;
    private int[] chunkOffsets = new int[16];
    private int[] chunkLengths = new int[16];
    private int[] chunkSamples = new int[16];
    // A chunk whose exact length and times the writer knew (a closed chunk read from its file):
    // exactChunk needs no decode. chunkMinTimes[i] > chunkMaxTimes[i] when unknown.
    private long[] chunkMinTimes = new long[16];
    private long[] chunkMaxTimes = new long[16];
    private int chunkCount;
    // For a reader of the newest sample alone (readNewestOnly): the series' newest sample instead of chunks
    private boolean newestOnly;
    private boolean newestKnown;
    private long newestTimeMs;
    private long newestValueBits;
    private int seriesId;
    private long minTimeMs;
    private long maxTimeMs;
    private final Samples samples = new Samples();
    // Merging a series' out-of-order samples (mergeOutOfOrder): grown on first use, then reused.
    private HeapXorEncoder encoder;
    private long[] mergedTs = new long[0];
    private long[] mergedVs = new long[0];

    public void reset(int id, long minTime, long maxTime) {
        this.seriesId = id;
        this.minTimeMs = minTime;
        this.maxTimeMs = maxTime;
        this.chunkCount = 0;
        this.chunkBytesUsed = 0;
        this.labelsLength = 0;
        this.newestKnown = false;
    }

    /**
     * Makes this snapshot one for a reader that calls only {@link Samples#latest}{@code (from, to)} with
     * {@code to} at or after the range's end (an instant read): the series store then copies no chunk
     * when it can tell the series' newest sample and that sample is in range ({@link #newestSample}),
     * else the chunks as usual. Kept over {@link #reset}.
     */
    public void readNewestOnly() {
        newestOnly = true;
    }

    public boolean newestOnly() {
        return newestOnly;
    }

    /** Whether the snapshot holds a sample: a chunk or the newest sample. */
    public boolean isEmpty() {
        return chunkCount == 0 && !newestKnown;
    }

    /**
     * The series' newest sample, in range, in place of its chunks (for {@link #readNewestOnly}):
     * {@link Samples#latest} answers from it.
     */
    public void newestSample(long timeMs, long valueBits) {
        newestKnown = true;
        newestTimeMs = timeMs;
        newestValueBits = valueBits;
    }

    /** A buffer of at least {@code length} bytes for the writer to copy the series' labels into. */
    public byte[] labelBuffer(int length) {
        if (length > ownLabels.length) {
            ownLabels = new byte[Math.max(length, ownLabels.length * 2)];
        }
        labels = ownLabels;
        return labels;
    }

    /** The series' labels are the first {@code length} bytes of {@link #labelBuffer}. */
    public void labelsCopied(int length) {
        labelsLength = length;
    }

    /** The series' labels are the whole of {@code canonical}, a copy the reader made: referred to, not copied. */
    public void labelsShared(byte[] canonical) {
        labels = canonical;
        labelsLength = canonical.length;
    }

    /** Copies {@code capacityBytes} of a chunk; {@code numSamples} < 0 means "read the chunk's own count". */
    public void addChunk(MemorySegment page, long offset, int capacityBytes, int numSamples) {
        addChunk(page, offset, capacityBytes, numSamples, 0, -1);
    }

    /**
     * Copies a closed chunk of exactly {@code length} bytes (Prometheus' {@code Bytes()}: its header's
     * count final, the bits after its last sample zero) whose first and last timestamps are known, as
     * a chunk file holds it: {@link #exactChunk} then serves it without decoding.
     */
    public void addExactChunk(MemorySegment page, long offset, int length, long minTimeMs, long maxTimeMs) {
        addChunk(page, offset, length, -1, minTimeMs, maxTimeMs);
    }

    /**
     * Copies the first {@code numSamples} samples of an open chunk whose last timestamp is known:
     * the {@code bitLength} bits (header included) its appender had published with that count. The
     * copy is what Prometheus' {@code Bytes()} would return for those samples — the count in its
     * header, the bits after the last sample zero — so {@link #exactChunk} serves it without decoding.
     */
    public void addOpenChunk(MemorySegment page, long offset, int bitLength, int numSamples, long minTimeMs, long maxTimeMs) {
        int length = (bitLength + Byte.SIZE - 1) / Byte.SIZE;
        addChunk(page, offset, length, numSamples, minTimeMs, maxTimeMs);
        int at = chunkOffsets[chunkCount - 1];
        chunkBytes[at + XorChunkDescriptor.NUM_SAMPLES_OFFSET] = (byte) (numSamples >>> 8);
        chunkBytes[at + XorChunkDescriptor.NUM_SAMPLES_OFFSET + 1] = (byte) numSamples;
        int bitsInLastByte = bitLength % Byte.SIZE;
        if (bitsInLastByte != 0) {
            chunkBytes[at + length - 1] &= (byte) (0xFF << (Byte.SIZE - bitsInLastByte));
        }
    }

    private void addChunk(MemorySegment page, long offset, int capacityBytes, int numSamples, long minTime, long maxTime) {
        if (chunkBytesUsed + capacityBytes > chunkBytes.length) {
            chunkBytes = Arrays.copyOf(chunkBytes, Math.max(chunkBytesUsed + capacityBytes, chunkBytes.length * 2));
        }
        if (chunkCount == chunkOffsets.length) {
            int n = chunkCount * 2;
            chunkOffsets = Arrays.copyOf(chunkOffsets, n);
            chunkLengths = Arrays.copyOf(chunkLengths, n);
            chunkSamples = Arrays.copyOf(chunkSamples, n);
            chunkMinTimes = Arrays.copyOf(chunkMinTimes, n);
            chunkMaxTimes = Arrays.copyOf(chunkMaxTimes, n);
        }
        MemorySegment.copy(page, ValueLayout.JAVA_BYTE, offset, chunkBytes, chunkBytesUsed, capacityBytes);
        chunkOffsets[chunkCount] = chunkBytesUsed;
        chunkLengths[chunkCount] = capacityBytes;
        chunkSamples[chunkCount] = numSamples;
        chunkMinTimes[chunkCount] = minTime;
        chunkMaxTimes[chunkCount] = maxTime;
        chunkCount++;
        chunkBytesUsed += capacityBytes;
    }

    /**
     * Merges the series' out-of-order samples {@code ts}/{@code vs}[0..n) (time-ordered, none at a
     * timestamp the chunks hold) with the samples of the chunks copied so far, keeping those in
     * [minTimeMs, maxTimeMs], and replaces the chunks with new time-ordered XOR chunks of at most
     * {@link ChunkCutPolicy#SAMPLES_PER_CHUNK} samples each. So every reader, remote-read's chunk
     * responses included, sees one time-ordered stream; only series with out-of-order data pay.
     */
    public void mergeOutOfOrder(long[] ts, long[] vs, int n) {
        int inRange = 0;
        for (int i = 0; i < n; i++) {
            if (ts[i] >= minTimeMs && ts[i] <= maxTimeMs) {
                inRange++;
            }
        }
        if (inRange == 0) {
            return;
        }
        int capacity = inRange;
        for (int c = 0; c < chunkCount; c++) {
            capacity += chunkSamples[c] >= 0 ? chunkSamples[c] : headerNumSamples(chunkOffsets[c]);
        }
        if (mergedTs.length < capacity) {
            mergedTs = new long[capacity];
            mergedVs = new long[capacity];
        }
        int m = 0;
        int j = 0;
        for (Samples it = samples(); it.next(); ) {
            long t = it.timestampMs();
            for (; j < n && ts[j] <= t; j++) {
                if (ts[j] < t && ts[j] >= minTimeMs) { // equal: the in-order sample is kept
                    mergedTs[m] = ts[j];
                    mergedVs[m++] = vs[j];
                }
            }
            mergedTs[m] = t;
            mergedVs[m++] = it.valueBits();
        }
        for (; j < n && ts[j] <= maxTimeMs; j++) {
            if (ts[j] >= minTimeMs) {
                mergedTs[m] = ts[j];
                mergedVs[m++] = vs[j];
            }
        }
        if (encoder == null) {
            encoder = new HeapXorEncoder();
        }
        chunkCount = 0;
        chunkBytesUsed = 0;
        for (int from = 0; from < m; from += ChunkCutPolicy.SAMPLES_PER_CHUNK) {
            int to = Math.min(m, from + ChunkCutPolicy.SAMPLES_PER_CHUNK);
            encoder.encode(mergedTs, mergedVs, from, to);
            addChunk(MemorySegment.ofArray(encoder.bytes()), 0, encoder.length(), to - from);
        }
    }

    private int headerNumSamples(int chunkOffset) {
        int at = chunkOffset + XorChunkDescriptor.NUM_SAMPLES_OFFSET;
        return ((chunkBytes[at] & 0xFF) << 8) | (chunkBytes[at + 1] & 0xFF);
    }

    public int seriesId() {
        return seriesId;
    }

    /** The series' labels; valid until the next snapshot into this object. */
    public LabelsView labels() {
        return labelsView.wrap(labels, 0, labelsLength);
    }

    public byte[] labelsArray() {
        return labels;
    }

    public int labelsLength() {
        return labelsLength;
    }

    public int chunkCount() {
        return chunkCount;
    }

    /**
     * Chunk {@code index} (0 .. {@link #chunkCount()} - 1, in time order) exactly as Prometheus'
     * {@code XORChunk.Bytes()} returns it — the sample count in the header, the bit stream up to the
     * last sample, the bits after it zero — with its first and last timestamps: what remote-read's
     * {@code STREAMED_XOR_CHUNKS} sends. Whole chunks: samples outside the snapshot's range stay in
     * (except for a series with out-of-order samples, whose chunks were re-encoded from the merged
     * samples in range: {@link #mergeOutOfOrder}).
     * The open chunk is cut at the sample count its writer had published, so bytes of a sample being
     * appended meanwhile never leak in. Decodes the chunk once (for its bit length and times), unless
     * it was {@linkplain #addExactChunk added with them}.
     *
     * @throws IllegalStateException if the chunk does not decode (a broken invariant: we wrote it)
     */
    public ExactChunk exactChunk(int index, ExactChunk into) {
        Objects.checkIndex(index, chunkCount);
        int off = chunkOffsets[index];
        int n = chunkSamples[index] >= 0 ? chunkSamples[index] : headerNumSamples(off);
        if (chunkMinTimes[index] <= chunkMaxTimes[index]) {
            into.set(chunkBytes, off, chunkLengths[index], n, chunkMinTimes[index], chunkMaxTimes[index]);
            return into;
        }
        XorIterator it = into.iterator.reset(chunkBytes, off, chunkLengths[index], n);
        long first = 0;
        long last = 0;
        while (it.next()) {
            if (it.numRead() == 1) {
                first = it.timestampMs();
            }
            last = it.timestampMs();
        }
        if (it.hasError() || it.numRead() != n) {
            throw new IllegalStateException("chunk " + index + " of series " + seriesId + " does not decode: "
                    + it.error() + " at bit " + it.errorBitPosition());
        }
        int length = (int) ((it.bitLength() + Byte.SIZE - 1) / Byte.SIZE);
        // made exact in place (this copy is the snapshot's own): the count in the header, the bits after the last sample zero
        chunkBytes[off + XorChunkDescriptor.NUM_SAMPLES_OFFSET] = (byte) (n >>> 8);
        chunkBytes[off + XorChunkDescriptor.NUM_SAMPLES_OFFSET + 1] = (byte) n;
        int bitsInLastByte = (int) (it.bitLength() % Byte.SIZE);
        if (bitsInLastByte != 0) {
            chunkBytes[off + length - 1] &= (byte) (0xFF << (Byte.SIZE - bitsInLastByte));
        }
        into.set(chunkBytes, off, length, n, first, last);
        return into;
    }

    /**
     * One chunk's exact bytes and time range ({@link #exactChunk}): a view of the snapshot's copy,
     * valid until the next snapshot into it. Reusable.
     */
    public static final class ExactChunk {
        private final XorIterator iterator = new XorIterator();
        private byte[] bytes;
        private int offset;
        private int length;
        private int numSamples;
        private long minTimeMs;
        private long maxTimeMs;

        void set(byte[] source, int off, int len, int n, long first, long last) {
            bytes = source;
            offset = off;
            length = len;
            numSamples = n;
            minTimeMs = first;
            maxTimeMs = last;
        }

        /** The chunk is {@code bytes()[offset(), offset() + length())}. */
        public byte[] bytes() {
            return bytes;
        }

        public int offset() {
            return offset;
        }

        public int length() {
            return length;
        }

        /** A copy of the chunk's bytes. */
        public byte[] toByteArray() {
            return Arrays.copyOfRange(bytes, offset, offset + length);
        }

        public int numSamples() {
            return numSamples;
        }

        /** Timestamp of the chunk's first sample. */
        public long minTimeMs() {
            return minTimeMs;
        }

        /** Timestamp of the chunk's last sample. */
        public long maxTimeMs() {
            return maxTimeMs;
        }
    }

    /** The samples of this snapshot in the requested range; restarts on every call. */
    public Samples samples() {
        return samples.start();
    }

    /** Iterates a snapshot's samples in [minTimeMs, maxTimeMs], in time order, without allocating. */
    public final class Samples {
        private final XorIterator iterator = new XorIterator();
        private int chunk;
        private boolean inChunk;
        private long timestampMs;
        private long valueBits;
        private boolean corrupt;

        Samples start() {
            chunk = 0;
            inChunk = false;
            corrupt = false;
            return this;
        }

        public boolean next() {
            return advance(Long.MIN_VALUE, false);
        }

        /**
         * Moves to the first sample at or after {@code targetMs} (in range), staying on the current one when
         * it already is; false when there is none. Decodes the samples before it in the chunk's own loop
         * ({@link XorIterator#seek}), without returning each one.
         */
        public boolean seek(long targetMs) {
            return advance(targetMs, true);
        }

        private boolean advance(long targetMs, boolean seek) {
            long target = Math.max(targetMs, minTimeMs);
            while (true) {
                if (!inChunk) {
                    if (chunk == chunkCount) {
                        return false;
                    }
                    int off = chunkOffsets[chunk];
                    int n = chunkSamples[chunk] >= 0 ? chunkSamples[chunk]
                            : headerNumSamples(off);
                    iterator.reset(chunkBytes, off, chunkLengths[chunk], n);
                    chunk++;
                    inChunk = true;
                }
                if (!(seek ? iterator.seek(target) : iterator.next())) {
                    corrupt |= iterator.hasError();
                    inChunk = false;
                    continue;
                }
                long t = iterator.timestampMs();
                if (t < minTimeMs) {
                    continue;
                }
                if (t > maxTimeMs) {
                    inChunk = false;
                    chunk = chunkCount; // chunks are in time order: nothing later can be in range
                    return false;
                }
                timestampMs = t;
                valueBits = iterator.valueBits();
                return true;
            }
        }

        /**
         * Moves to the latest sample in [fromMs, toMs] (and in range), the one read of an instant
         * selection; false when there is none. Ends the iteration: {@link #next} is false afterwards.
         * When the series' newest sample is known ({@link #newestSample}) and at or before both ends, it
         * is the answer without a decode; else the chunks are decoded from {@code fromMs} on.
         */
        public boolean latest(long fromMs, long toMs) {
            long from = Math.max(fromMs, minTimeMs);
            long to = Math.min(toMs, maxTimeMs);
            chunk = chunkCount; // whatever the path, the iteration ends here
            inChunk = false;
            if (newestKnown && newestTimeMs <= to) {
                timestampMs = newestTimeMs;
                valueBits = newestValueBits;
                return newestTimeMs >= from;
            }
            start();
            boolean found = false;
            long t = 0;
            long bits = 0;
            for (boolean more = seek(from); more && timestampMs <= to; more = next()) {
                found = true;
                t = timestampMs;
                bits = valueBits;
            }
            chunk = chunkCount;
            inChunk = false;
            timestampMs = t;
            valueBits = bits;
            return found;
        }

        public long timestampMs() {
            return timestampMs;
        }

        public long valueBits() {
            return valueBits;
        }

        public double value() {
            return Double.longBitsToDouble(valueBits);
        }

        /** True if a chunk failed to decode (a broken invariant: head chunks are written by us). */
        public boolean hasCorruptChunk() {
            return corrupt;
        }
    }
}
