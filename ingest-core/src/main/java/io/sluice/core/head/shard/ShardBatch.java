package io.sluice.core.head.shard;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Samples for one shard, built by a consumer thread and applied by the shard worker. A batch is
 * a flat, reusable byte array: no object per series or sample. Ownership moves with the batch:
 * the consumer writes it, hands it over through the shard's queue (which publishes it), the shard
 * reads it and returns it to the shard's pool for reuse.
 *
 * <pre>
 *  entry := RECORD    | tag=1 | streamId:i32 | offset:i64 |
 *         | SERIES    | tag=2 | hash:i64 | labelsLength:i32 | labels | sampleCount:i32 | (t:i64 bits:i64)* |
 *         | WATERMARK | tag=3 | streamId:i32 | offset:i64 |
 *         | CONTINUES | tag=4 | streamId:i32 | offset:i64 |
 *  (little-endian; labels are the canonical label bytes, docs/format/labels.md)
 * </pre>
 *
 * RECORD marks that the following SERIES entries came from Kafka record {@code offset} of stream
 * {@code streamId}; the shard skips them if it has already applied that offset (exactly-once on
 * restart). WATERMARK says "this shard has seen everything of the stream up to {@code offset}",
 * sent for every polled stream whether or not the shard got samples from it (offsets-only
 * hand-off), so a shard that never sees a partition does not hold its commit back. CONTINUES says
 * "record {@code offset} goes on in a later batch": a producer that must hand a batch over in the
 * middle of a record ends it with this, so the shard holds the stream's watermark at
 * {@code offset - 1} until the batch that completes the record (and repeats its RECORD entry) is
 * applied; otherwise that repeated RECORD would be skipped as already applied.
 *
 * <p>Every append returns false when the batch is full; the writer then hands the batch over and
 * repeats the RECORD and SERIES context in the next one. {@link #mark()}/{@link #rewind(int)} let
 * a consumer drop what a malformed Kafka record had added.
 */
public final class ShardBatch {
    static final byte RECORD = 1;
    static final byte SERIES = 2;
    static final byte WATERMARK = 3;
    static final byte CONTINUES = 4;
    /** Bytes of a RECORD, WATERMARK or CONTINUES entry (for producers sizing what they add). */
    public static final int RECORD_BYTES = 1 + 4 + 8;
    /** Bytes of a SERIES entry besides its labels and samples. */
    public static final int SERIES_HEADER_BYTES = 1 + 8 + 4 + 4;
    /** Bytes of one sample in a SERIES entry. */
    public static final int SAMPLE_BYTES = 16;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final byte[] bytes;
    private final MemorySegment segment;   // a view of bytes, made once: wrapping per lookup allocates
    private final int shard;
    private int length;
    private int sampleCountPosition = -1;   // of the open SERIES entry, -1 if none
    private int lastSeriesPosition = -1;    // of the SERIES entry that ends the batch, -1 if another entry does
    private int samples;
    long queuedNanos;                       // set by Shard.submit (producer), read by the shard thread after the queue hand-off

    public ShardBatch(int shard, int capacityBytes) {
        if (capacityBytes < 1024) {
            throw new IllegalArgumentException("batch capacity below 1 KiB: " + capacityBytes);
        }
        this.shard = shard;
        this.bytes = new byte[capacityBytes];
        this.segment = MemorySegment.ofArray(bytes);
    }

    public int shard() {
        return shard;
    }

    public int capacityBytes() {
        return bytes.length;
    }

    public int lengthBytes() {
        return length;
    }

    /** Samples in this batch. */
    public int sampleCount() {
        return samples;
    }

    public boolean isEmpty() {
        return length == 0;
    }

    public void clear() {
        length = 0;
        samples = 0;
        sampleCountPosition = -1;
        lastSeriesPosition = -1;
    }

    public boolean record(int streamId, long offset) {
        return putStreamOffset(RECORD, streamId, offset);
    }

    public boolean watermark(int streamId, long offset) {
        return putStreamOffset(WATERMARK, streamId, offset);
    }

    /**
     * Marks that record {@code offset} of {@code streamId} continues in a later batch. Call it last,
     * before handing over a batch in the middle of a record. Needs {@value #RECORD_BYTES} bytes: keep
     * that much room (see {@link #remainingBytes()}).
     */
    public boolean recordContinues(int streamId, long offset) {
        return putStreamOffset(CONTINUES, streamId, offset);
    }

    /** Bytes still free in this batch. */
    public int remainingBytes() {
        return bytes.length - length;
    }

    private boolean putStreamOffset(byte tag, int streamId, long offset) {
        if (length + RECORD_BYTES > bytes.length) {
            return false;
        }
        bytes[length] = tag;
        INT.set(bytes, length + 1, streamId);
        LONG.set(bytes, length + 5, offset);
        length += RECORD_BYTES;
        sampleCountPosition = -1;
        lastSeriesPosition = -1;
        return true;
    }

    /** Starts a series entry; samples follow through {@link #sample}. False if even the header does not fit. */
    public boolean series(long hash, byte[] labels, int offset, int labelsLength) {
        if (length + SERIES_HEADER_BYTES + labelsLength + SAMPLE_BYTES > bytes.length) {
            return false;
        }
        int p = length;
        bytes[p] = SERIES;
        LONG.set(bytes, p + 1, hash);
        INT.set(bytes, p + 9, labelsLength);
        System.arraycopy(labels, offset, bytes, p + 13, labelsLength);
        sampleCountPosition = p + 13 + labelsLength;
        INT.set(bytes, sampleCountPosition, 0);
        length = sampleCountPosition + 4;
        lastSeriesPosition = p;
        return true;
    }

    /**
     * Reopens the SERIES entry that ends this batch if it is of the same series (hash and label bytes
     * equal), so that following {@link #sample}s extend it instead of repeating the labels: formats that
     * carry one sample per series entry (influx, otlp) then cost 16 bytes per further sample, not a
     * whole entry. False (nothing changed) if the batch ends with another entry; then call {@link #series}.
     * Entries of a record never merge with another record's: a RECORD entry lies between them.
     */
    public boolean reopenSeries(long hash, byte[] labels, int offset, int labelsLength) {
        int p = lastSeriesPosition;
        if (p < 0 || (long) LONG.get(bytes, p + 1) != hash || (int) INT.get(bytes, p + 9) != labelsLength
                || !Arrays.equals(bytes, p + 13, p + 13 + labelsLength, labels, offset, offset + labelsLength)) {
            return false;
        }
        sampleCountPosition = p + 13 + labelsLength;
        return true;
    }

    /** Adds a sample to the open series entry. False if the batch is full. */
    public boolean sample(long timestampMs, long valueBits) {
        if (sampleCountPosition < 0) {
            throw new IllegalStateException("sample() without an open series entry");
        }
        if (length + SAMPLE_BYTES > bytes.length) {
            return false;
        }
        LONG.set(bytes, length, timestampMs);
        LONG.set(bytes, length + 8, valueBits);
        length += SAMPLE_BYTES;
        INT.set(bytes, sampleCountPosition, (int) INT.get(bytes, sampleCountPosition) + 1);
        samples++;
        return true;
    }

    /** A position to {@link #rewind} to; also closes the open series entry. */
    public int mark() {
        sampleCountPosition = -1;
        lastSeriesPosition = -1;
        return length;
    }

    /** Drops everything appended after {@code mark}. */
    public void rewind(int mark) {
        if (mark < 0 || mark > length) {
            throw new IllegalArgumentException("mark " + mark + " outside 0.." + length);
        }
        // Recount the samples before the mark; rewinds are rare (malformed records only).
        length = mark;
        lastSeriesPosition = -1;
        samples = 0;
        for (Reader r = reader(); r.next(); ) {
            if (r.type() == SERIES) {
                samples += r.sampleCount();
            }
        }
        sampleCountPosition = -1;
    }

    /** A reader over this batch; the shard keeps one and re-wraps it (see {@link Reader#wrap}). */
    public Reader reader() {
        return new Reader().wrap(this);
    }

    /** Iterates entries without allocating. */
    public static final class Reader {
        private byte[] bytes;
        private MemorySegment segment;
        private int limit;
        private int position;
        private byte type;
        private int entry;

        public Reader wrap(ShardBatch batch) {
            this.bytes = batch.bytes;
            this.segment = batch.segment;
            this.limit = batch.length;
            this.position = 0;
            return this;
        }

        public boolean next() {
            if (position >= limit) {
                return false;
            }
            entry = position;
            type = bytes[position];
            position += switch (type) {
                case RECORD, WATERMARK, CONTINUES -> RECORD_BYTES;
                case SERIES -> SERIES_HEADER_BYTES + labelsLength() + sampleCount() * SAMPLE_BYTES;
                default -> throw new IllegalStateException("corrupt batch: tag " + type + " at " + entry);
            };
            return true;
        }

        public byte type() {
            return type;
        }

        public int streamId() {
            return (int) INT.get(bytes, entry + 1);
        }

        public long offset() {
            return (long) LONG.get(bytes, entry + 5);
        }

        public long hash() {
            return (long) LONG.get(bytes, entry + 1);
        }

        public int labelsLength() {
            return (int) INT.get(bytes, entry + 9);
        }

        public byte[] array() {
            return bytes;
        }

        /** The batch's bytes as a segment (the same object for the batch's life). */
        public MemorySegment segment() {
            return segment;
        }

        public int labelsOffset() {
            return entry + 13;
        }

        public int sampleCount() {
            return (int) INT.get(bytes, entry + 13 + labelsLength());
        }

        public long timestamp(int i) {
            return (long) LONG.get(bytes, entry + 17 + labelsLength() + i * SAMPLE_BYTES);
        }

        public long valueBits(int i) {
            return (long) LONG.get(bytes, entry + 17 + labelsLength() + i * SAMPLE_BYTES + 8);
        }
    }
}
