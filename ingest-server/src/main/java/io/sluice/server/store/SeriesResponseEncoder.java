package io.sluice.server.store;

import java.util.Arrays;

/**
 * Writes {@code thanos.SeriesResponse} messages by hand (docs/format/storeapi.md), series by series,
 * into one growable byte array, so {@code Series} builds no protobuf object per series or chunk:
 * labels are copied from the head's label bytes, chunk bytes from the snapshot. The bytes are those
 * protobuf-java writes for the same message (fields in number order, proto3 defaults left out);
 * {@code SeriesResponseEncoderTest} checks them against the library.
 *
 * <p>With a batch size of 1 each message is {@code SeriesResponse{series}}; above 1 it is
 * {@code SeriesResponse{batch: SeriesBatch{series...}}} holding up to that many series (Thanos'
 * {@code response_batch_size}) or until it passes {@link #MAX_BATCH_BYTES}.
 *
 * <pre>
 * buf: [HEADROOM: batch tag + length, written last] [series entry] [series entry] ...
 * series entry: 0x0A len(as many bytes reserved as the previous series' length took) Series body
 * </pre>
 *
 * Series of one answer are alike in size, so the length's varint nearly always fits the room the
 * previous series' took; when it does not, the body is moved (the only copy besides the labels' and
 * chunks' own).
 *
 * A series is {@link #beginSeries begun}, given its labels (in order) and chunks, then
 * {@link #endSeries ended} (or {@link #dropSeries dropped}). Not thread-safe: one per call thread, reused across
 * calls (its array stays at the largest message written, see {@link #reset}).
 */
final class SeriesResponseEncoder {
    /** A batch is sent once it holds this many bytes, whatever the batch size asked for. */
    static final int MAX_BATCH_BYTES = 1 << 20;
    /** An array grown past this is not kept for the next call. */
    private static final int MAX_KEPT_BYTES = 4 << 20;
    private static final int INITIAL_BYTES = 64 << 10;
    private static final int MAX_VARINT32 = 5;
    /** Room before the first series for the batch's tag and length. */
    private static final int HEADROOM = 1 + MAX_VARINT32;

    // field tags (field number << 3 | wire type)
    private static final byte RESPONSE_SERIES = 0x0A; // SeriesResponse.series = 1, also SeriesBatch.series = 1
    private static final byte RESPONSE_BATCH = 0x22; // SeriesResponse.batch = 4
    private static final byte SERIES_LABELS = 0x0A; // Series.labels = 1
    private static final byte SERIES_CHUNKS = 0x12; // Series.chunks = 2
    private static final byte LABEL_NAME = 0x0A; // Label.name = 1
    private static final byte LABEL_VALUE = 0x12; // Label.value = 2
    private static final byte AGGR_MIN_TIME = 0x08; // AggrChunk.min_time = 1
    private static final byte AGGR_MAX_TIME = 0x10; // AggrChunk.max_time = 2
    private static final byte AGGR_RAW = 0x1A; // AggrChunk.raw = 3
    private static final byte CHUNK_DATA = 0x12; // Chunk.data = 2 (type = 1 is XOR = 0: left out)

    private byte[] buf = new byte[INITIAL_BYTES];
    private int pos = HEADROOM;
    private int seriesStart = -1;
    private int lengthRoom = 2; // bytes reserved for the length of the series begun: the previous one's
    private int batched;
    private int batchSize = 1;
    private final EncodedMessage message = new EncodedMessage();

    /** Starts a call: {@code batchSize} series per message (0 or 1: one message per series). */
    void reset(long batchSize) {
        this.batchSize = (int) Math.max(1, Math.min(batchSize, Integer.MAX_VALUE));
        if (buf.length > MAX_KEPT_BYTES) {
            buf = new byte[INITIAL_BYTES];
        }
        pos = HEADROOM;
        batched = 0;
        seriesStart = -1;
    }

    void beginSeries() {
        ensure(1 + lengthRoom);
        seriesStart = pos;
        buf[pos] = RESPONSE_SERIES;
        pos += 1 + lengthRoom;
    }

    /** A label from UTF-8 bytes; labels must come in the order they are to be served. */
    void label(byte[] bytes, int nameOffset, int nameLength, int valueOffset, int valueLength) {
        int body = stringFieldSize(nameLength) + stringFieldSize(valueLength);
        ensure(1 + MAX_VARINT32 + body);
        buf[pos++] = SERIES_LABELS;
        pos = writeVarint32(buf, pos, body);
        pos = writeBytesField(LABEL_NAME, bytes, nameOffset, nameLength);
        pos = writeBytesField(LABEL_VALUE, bytes, valueOffset, valueLength);
    }

    /** A raw XOR chunk, {@code data[offset, offset + length)}, after the series' labels. */
    void chunk(long minTime, long maxTime, byte[] data, int offset, int length) {
        int raw = stringFieldSize(length);
        int aggr = int64FieldSize(minTime) + int64FieldSize(maxTime) + 1 + varint32Size(raw) + raw;
        ensure(1 + MAX_VARINT32 + aggr);
        byte[] b = buf;
        int p = pos;
        b[p++] = SERIES_CHUNKS;
        p = writeVarint32(b, p, aggr);
        if (minTime != 0) {
            b[p++] = AGGR_MIN_TIME;
            p = writeVarint64(b, p, minTime);
        }
        if (maxTime != 0) {
            b[p++] = AGGR_MAX_TIME;
            p = writeVarint64(b, p, maxTime);
        }
        b[p++] = AGGR_RAW;
        p = writeVarint32(b, p, raw);
        pos = p;
        pos = writeBytesField(CHUNK_DATA, data, offset, length);
    }

    /** Ends the series begun last: it is now part of the message being built. */
    void endSeries() {
        int bodyStart = seriesStart + 1 + lengthRoom;
        int length = pos - bodyStart;
        int lengthBytes = varint32Size(length);
        if (lengthBytes != lengthRoom) {
            ensure(lengthBytes - lengthRoom);
            System.arraycopy(buf, bodyStart, buf, seriesStart + 1 + lengthBytes, length);
            pos += lengthBytes - lengthRoom;
            lengthRoom = lengthBytes;
        }
        writeVarint32(buf, seriesStart + 1, length);
        seriesStart = -1;
        batched++;
    }

    /** Forgets the series begun last. */
    void dropSeries() {
        pos = seriesStart;
        seriesStart = -1;
    }

    boolean isEmpty() {
        return batched == 0;
    }

    /** True when the message being built should be sent now. */
    boolean full() {
        return batched >= batchSize || pos - HEADROOM >= MAX_BATCH_BYTES;
    }

    /**
     * The message built so far, to hand to gRPC once; {@link #sent()} after. Valid until then: it
     * wraps this encoder's array.
     */
    EncodedMessage message() {
        if (batched == 0 || seriesStart != -1) {
            throw new IllegalStateException("no complete series to send");
        }
        int start;
        if (batchSize == 1) {
            start = HEADROOM; // SeriesResponse{series = 1}: the entry is the whole message
        } else {
            int length = pos - HEADROOM;
            start = HEADROOM - 1 - varint32Size(length);
            buf[start] = RESPONSE_BATCH;
            writeVarint32(buf, start + 1, length);
        }
        message.wrap(buf, start, pos - start);
        return message;
    }

    /**
     * gRPC has taken the message: the next one starts. gRPC serializes a streamed message inside
     * {@code onNext}; if it did not read this one (a cancelled call), the array is left to it and a
     * new one used.
     */
    void sent() {
        if (!message.drained()) {
            buf = new byte[buf.length];
        }
        message.wrap(null, 0, 0);
        pos = HEADROOM;
        batched = 0;
    }

    private int writeBytesField(byte tag, byte[] data, int offset, int length) {
        int p = pos;
        if (length > 0) {
            buf[p++] = tag;
            p = writeVarint32(buf, p, length);
            System.arraycopy(data, offset, buf, p, length);
            p += length;
        }
        return p;
    }

    private void ensure(int bytes) {
        if (pos + bytes > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(pos + bytes, buf.length * 2));
        }
    }

    /** A proto3 string/bytes field's size: nothing when empty. */
    private static int stringFieldSize(int length) {
        return length == 0 ? 0 : 1 + varint32Size(length) + length;
    }

    private static int int64FieldSize(long v) {
        return v == 0 ? 0 : 1 + varint64Size(v);
    }

    static int varint32Size(int v) {
        return (31 - Integer.numberOfLeadingZeros(v | 1)) / 7 + 1;
    }

    static int varint64Size(long v) {
        return (63 - Long.numberOfLeadingZeros(v | 1)) / 7 + 1;
    }

    private static int writeVarint32(byte[] b, int p, int v) {
        while ((v & ~0x7F) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    private static int writeVarint64(byte[] b, int p, long v) {
        while ((v & ~0x7FL) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }
}
