package io.sluice.core.head;

import io.sluice.core.chunk.XorChunkDescriptor;
import io.sluice.core.chunk.XorIterator;
import io.sluice.core.labels.LabelsView;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A reader's private copy of one series: its canonical labels and the bytes of its chunks that
 * overlap a time range, taken consistently (see {@link SeriesStore#snapshot}). Reusable: one per
 * reading thread, its buffers grow to the largest series read and are then reused.
 *
 * <p>Iterate with {@link #samples()}: samples in [minTimeMs, maxTimeMs], in time order.
 */
public final class SeriesSnapshot {
    private byte[] labels = new byte[256];
    private int labelsLength;
    private final LabelsView labelsView = new LabelsView();
    private byte[] chunkBytes = new byte[4096];
    private MemorySegment chunkSegment = MemorySegment.ofArray(chunkBytes);
    private int chunkBytesUsed;
    private int[] chunkOffsets = new int[16];
    private int[] chunkLengths = new int[16];
    private int[] chunkSamples = new int[16];
    private int chunkCount;
    private int seriesId;
    private long minTimeMs;
    private long maxTimeMs;
    private final Samples samples = new Samples();

    void reset(int id, long minTime, long maxTime) {
        this.seriesId = id;
        this.minTimeMs = minTime;
        this.maxTimeMs = maxTime;
        this.chunkCount = 0;
        this.chunkBytesUsed = 0;
        this.labelsLength = 0;
    }

    void setLabels(SeriesStore store, int id) {
        int length = store.labelsLength(id);
        if (length > labels.length) {
            labels = new byte[Math.max(length, labels.length * 2)];
        }
        labelsLength = store.copyLabels(id, labels);
    }

    /** Copies {@code capacityBytes} of a chunk; {@code numSamples} < 0 means "read the chunk's own count". */
    void addChunk(MemorySegment page, long offset, int capacityBytes, int numSamples) {
        if (chunkBytesUsed + capacityBytes > chunkBytes.length) {
            chunkBytes = Arrays.copyOf(chunkBytes, Math.max(chunkBytesUsed + capacityBytes, chunkBytes.length * 2));
            chunkSegment = MemorySegment.ofArray(chunkBytes);
        }
        if (chunkCount == chunkOffsets.length) {
            int n = chunkCount * 2;
            chunkOffsets = Arrays.copyOf(chunkOffsets, n);
            chunkLengths = Arrays.copyOf(chunkLengths, n);
            chunkSamples = Arrays.copyOf(chunkSamples, n);
        }
        MemorySegment.copy(page, ValueLayout.JAVA_BYTE, offset, chunkBytes, chunkBytesUsed, capacityBytes);
        chunkOffsets[chunkCount] = chunkBytesUsed;
        chunkLengths[chunkCount] = capacityBytes;
        chunkSamples[chunkCount] = numSamples;
        chunkCount++;
        chunkBytesUsed += capacityBytes;
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
            while (true) {
                if (!inChunk) {
                    if (chunk == chunkCount) {
                        return false;
                    }
                    int off = chunkOffsets[chunk];
                    int n = chunkSamples[chunk] >= 0 ? chunkSamples[chunk]
                            : XorChunkDescriptor.headerNumSamples(chunkSegment, off);
                    iterator.reset(chunkSegment, off, chunkLengths[chunk], n);
                    chunk++;
                    inChunk = true;
                }
                if (!iterator.next()) {
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
