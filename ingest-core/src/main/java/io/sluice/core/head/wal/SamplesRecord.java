package io.sluice.core.head.wal;

import java.lang.foreign.MemorySegment;

/**
 * The SAMPLES record: samples accepted by a shard, in the order it applied them.
 *
 * <pre>
 *  payload := baseTimestamp:svarint  entry*            (entries run to the end of the payload)
 *  entry   := seriesDelta:svarint  timestampDelta:svarint  value
 *
 *  seriesId  = predicted + seriesDelta, where predicted is the id that followed the previous
 *              entry's series the last time that series was written in this segment, else
 *              previous id + 1 (the first entry: -1 + 1 = 0)
 *  timestamp = previous entry's timestamp (first entry: baseTimestamp) + timestampDelta
 *  value     = see {@link ValueCodec}, against the series' previous value in this segment
 * </pre>
 *
 * A steady producer sends series in the same order every time, so the id is predicted and costs
 * one byte; samples of one scrape share a timestamp, one byte; values 1–5 bytes.
 */
public final class SamplesRecord {
    /** Worst case bytes per entry: 5 (int delta, zig-zag) + 10 (timestamp) + {@link ValueCodec#MAX_BYTES}. */
    public static final int MAX_ENTRY_BYTES = 5 + Varint.MAX_LONG_BYTES + ValueCodec.MAX_BYTES;
    /** Worst case bytes of the header. */
    public static final int MAX_HEADER_BYTES = Varint.MAX_LONG_BYTES;

    private SamplesRecord() {
    }

    /** Worst case payload size of a record with {@code entries} entries (what to claim in the WAL). */
    public static int maxPayloadBytes(int entries) {
        return MAX_HEADER_BYTES + entries * MAX_ENTRY_BYTES;
    }

    /** Writes one SAMPLES record straight into a claimed WAL region. Single-threaded; reusable. */
    public static final class Encoder {
        private final SeriesCodecState state;
        private MemorySegment segment;
        private long position;
        private long start;
        private int previousId;
        private long previousTimestamp;

        public Encoder(SeriesCodecState state) {
            this.state = state;
        }

        /** Starts a record at {@code offset} of {@code segment}, which lies in WAL segment {@code walSegmentIndex}. */
        public void begin(MemorySegment segment, long offset, int walSegmentIndex, long baseTimestamp) {
            this.segment = segment;
            this.start = offset;
            this.position = Varint.writeSigned(segment, offset, baseTimestamp);
            this.previousId = -1;
            this.previousTimestamp = baseTimestamp;
            state.enterSegment(walSegmentIndex);
        }

        public void add(int seriesId, long timestamp, long valueBits) {
            int predicted = predict(state, previousId);
            long p = Varint.writeSigned(segment, position, (long) seriesId - predicted);
            p = Varint.writeSigned(segment, p, timestamp - previousTimestamp);
            position = ValueCodec.write(segment, p, valueBits, state.lastValue(seriesId));
            state.update(previousId, seriesId, valueBits);
            previousId = seriesId;
            previousTimestamp = timestamp;
        }

        /** Payload bytes written so far. */
        public int length() {
            return (int) (position - start);
        }

        /** True once {@link #add} wrote at least one entry. */
        public boolean hasEntries() {
            return previousId >= 0;
        }
    }

    /** Reads SAMPLES records; one per replaying thread, reusable. */
    public static final class Decoder {
        private final SeriesCodecState state;
        private final RecordCursor cursor = new RecordCursor();
        private int seriesId;
        private long timestamp;
        private long valueBits;

        public Decoder(SeriesCodecState state) {
            this.state = state;
        }

        public void wrap(MemorySegment segment, long offset, int length, int walSegmentIndex) {
            cursor.wrap(segment, offset, length);
            state.enterSegment(walSegmentIndex);
            timestamp = cursor.readSigned();
            seriesId = -1;
        }

        /**
         * Advances to the next entry. Returns false at the end of the record or when it is
         * malformed ({@link #isMalformed()}); {@code maxSeriesId} bounds ids (unknown ids are malformed).
         */
        public boolean next(int maxSeriesId) {
            if (!cursor.hasRemaining()) {
                return false;
            }
            long id = predict(state, seriesId) + cursor.readSigned();
            long t = timestamp + cursor.readSigned();
            if (cursor.isMalformed() || id < 0 || id > maxSeriesId) {
                cursor.markMalformed();
                return false;
            }
            int sid = (int) id;
            long v = ValueCodec.read(cursor, state.lastValue(sid));
            if (cursor.isMalformed()) {
                return false;
            }
            state.update(seriesId, sid, v);
            seriesId = sid;
            timestamp = t;
            valueBits = v;
            return true;
        }

        public boolean isMalformed() {
            return cursor.isMalformed();
        }

        public int seriesId() {
            return seriesId;
        }

        public long timestamp() {
            return timestamp;
        }

        public long valueBits() {
            return valueBits;
        }
    }

    private static int predict(SeriesCodecState state, int previousId) {
        int predicted = state.predictedNext(previousId);
        return predicted != SeriesCodecState.NO_PREDICTION ? predicted : previousId + 1;
    }
}
