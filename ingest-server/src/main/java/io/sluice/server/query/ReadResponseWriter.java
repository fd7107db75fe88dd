package io.sluice.server.query;

import static io.sluice.server.format.ProtoWire.I64;
import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.VARINT;
import static io.sluice.server.format.ProtoWire.tag;

import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.labels.LabelsView;
import io.sluice.server.format.ByteWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.CRC32C;

/**
 * Writes the protobuf messages of remote-read responses (prompb/remote.proto, types.proto) by hand,
 * into reusable {@link ByteWriter}s. Not thread-safe: one per request.
 *
 * <pre>
 * ReadResponse        { repeated QueryResult results = 1; }
 * QueryResult         { repeated TimeSeries timeseries = 1; }
 * TimeSeries          { repeated Label labels = 1; repeated Sample samples = 2; }
 * Label               { string name = 1; string value = 2; }
 * Sample              { double value = 1; int64 timestamp = 2; }
 * ChunkedReadResponse { repeated ChunkedSeries chunked_series = 1; int64 query_index = 2; }
 * ChunkedSeries       { repeated Label labels = 1; repeated Chunk chunks = 2; }
 * Chunk               { int64 min_time_ms = 1; int64 max_time_ms = 2; Encoding type = 3 (XOR = 1); bytes data = 4; }
 * </pre>
 * A streamed frame is {@code uvarint(size) | CRC32C(message) as big-endian uint32 | message}.
 */
final class ReadResponseWriter {
    static final int XOR_ENCODING = 1;
    private static final int RESULTS_TAG = tag(1, LEN);
    private static final int TIMESERIES_TAG = tag(1, LEN);
    private static final int LABELS_TAG = tag(1, LEN);
    private static final int SAMPLES_TAG = tag(2, LEN);
    private static final int NAME_TAG = tag(1, LEN);
    private static final int VALUE_TAG = tag(2, LEN);
    private static final int SAMPLE_VALUE_TAG = tag(1, I64);
    private static final int SAMPLE_TIMESTAMP_TAG = tag(2, VARINT);
    private static final int CHUNKED_SERIES_TAG = tag(1, LEN);
    private static final int QUERY_INDEX_TAG = tag(2, VARINT);
    private static final int CHUNKS_TAG = tag(2, LEN);
    private static final int CHUNK_MIN_TAG = tag(1, VARINT);
    private static final int CHUNK_MAX_TAG = tag(2, VARINT);
    private static final int CHUNK_TYPE_TAG = tag(3, VARINT);
    private static final int CHUNK_DATA_TAG = tag(4, LEN);

    private final ByteWriter response = new ByteWriter(64 << 10);
    private final ByteWriter result = new ByteWriter(64 << 10);
    private final ByteWriter series = new ByteWriter(4 << 10);
    private final ByteWriter chunks = new ByteWriter(4 << 10);
    private final ByteWriter frame = new ByteWriter(4 << 10);
    private final byte[] frameHead = new byte[14];
    private final CRC32C crc = new CRC32C();

    // ---------------------------------------------------------------- SAMPLES

    /** Starts the next QueryResult. */
    void beginResult() {
        result.reset();
    }

    /** Starts a TimeSeries with the snapshot's labels. */
    void beginSeries(SeriesSnapshot snapshot) {
        series.reset();
        labels(series, snapshot.labels(), snapshot.labelsArray());
    }

    void sample(long timestampMs, long valueBits) {
        series.writeByte(SAMPLES_TAG);
        series.writeVarint(1 + 8 + 1 + ByteWriter.varintSize(timestampMs));
        series.writeByte(SAMPLE_VALUE_TAG);
        series.writeLongLE(valueBits);
        series.writeByte(SAMPLE_TIMESTAMP_TAG);
        series.writeVarint(timestampMs);
    }

    void endSeries() {
        nested(result, TIMESERIES_TAG, series);
    }

    void endResult() {
        nested(response, RESULTS_TAG, result);
    }

    /** The ReadResponse: {@code responseBytes()[0, responseLength())}. */
    byte[] responseBytes() {
        return response.buffer();
    }

    int responseLength() {
        return response.length();
    }

    // ---------------------------------------------------------------- STREAMED_XOR_CHUNKS

    /** Starts the chunks of the next frame. */
    void beginChunks() {
        chunks.reset();
    }

    void chunk(SeriesSnapshot.ExactChunk chunk) {
        int body = 1 + ByteWriter.varintSize(chunk.minTimeMs()) + 1 + ByteWriter.varintSize(chunk.maxTimeMs()) + 1 + 1
                + 1 + ByteWriter.varintSize(chunk.length()) + chunk.length();
        chunks.writeByte(CHUNKS_TAG);
        chunks.writeVarint(body);
        chunks.writeByte(CHUNK_MIN_TAG);
        chunks.writeVarint(chunk.minTimeMs());
        chunks.writeByte(CHUNK_MAX_TAG);
        chunks.writeVarint(chunk.maxTimeMs());
        chunks.writeByte(CHUNK_TYPE_TAG);
        chunks.writeVarint(XOR_ENCODING);
        chunks.writeByte(CHUNK_DATA_TAG);
        chunks.writeVarint(chunk.length());
        chunks.writeBytes(chunk.bytes(), chunk.offset(), chunk.length());
    }

    /** Bytes of chunks gathered for the current frame. */
    int chunkBytes() {
        return chunks.length();
    }

    /** Writes one frame: a ChunkedReadResponse with one ChunkedSeries (the snapshot's labels and the gathered chunks). */
    void writeFrame(SeriesSnapshot snapshot, long queryIndex, OutputStream out) throws IOException {
        series.reset();
        labels(series, snapshot.labels(), snapshot.labelsArray());
        series.writeBytes(chunks.buffer(), 0, chunks.length());
        frame.reset();
        nested(frame, CHUNKED_SERIES_TAG, series);
        if (queryIndex != 0) { // proto3 leaves a default out, as Prometheus' Go encoder does
            frame.writeByte(QUERY_INDEX_TAG);
            frame.writeVarint(queryIndex);
        }
        crc.reset();
        crc.update(frame.buffer(), 0, frame.length());
        int n = 0;
        for (long size = frame.length(); ; size >>>= 7) {
            if (size < 0x80) {
                frameHead[n++] = (byte) size;
                break;
            }
            frameHead[n++] = (byte) (size | 0x80);
        }
        int c = (int) crc.getValue();
        frameHead[n++] = (byte) (c >>> 24);
        frameHead[n++] = (byte) (c >>> 16);
        frameHead[n++] = (byte) (c >>> 8);
        frameHead[n++] = (byte) c;
        out.write(frameHead, 0, n);
        out.write(frame.buffer(), 0, frame.length());
    }

    // ---------------------------------------------------------------- shared

    private static void labels(ByteWriter w, LabelsView labels, byte[] array) {
        for (labels.rewind(); labels.next(); ) {
            int nl = labels.nameLength();
            int vl = labels.valueLength();
            w.writeByte(LABELS_TAG);
            w.writeVarint(1 + ByteWriter.varintSize(nl) + nl + 1 + ByteWriter.varintSize(vl) + vl);
            w.writeByte(NAME_TAG);
            w.writeVarint(nl);
            w.writeBytes(array, labels.nameOffset(), nl);
            w.writeByte(VALUE_TAG);
            w.writeVarint(vl);
            w.writeBytes(array, labels.valueOffset(), vl);
        }
        labels.rewind();
    }

    private static void nested(ByteWriter into, int tag, ByteWriter message) {
        into.writeByte(tag);
        into.writeVarint(message.length());
        into.writeBytes(message.buffer(), 0, message.length());
    }
}
