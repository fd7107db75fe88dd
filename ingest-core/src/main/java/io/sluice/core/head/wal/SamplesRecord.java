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

    /** Where {@link Decoder#decodeAll} delivers a record's samples, in record order. */
    @FunctionalInterface
    public interface Sink {
        void accept(int seriesId, long timestampMs, long valueBits);
    }

    /**
     * Reads SAMPLES records; one per replaying thread, reusable. Two ways to read a wrapped record,
     * same samples, same state afterwards: {@link #decodeAll} (replay's path: a tight loop) and
     * {@link #next} (one entry per call; the reference the loop is tested against).
     */
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
         * Delivers every entry of the wrapped record to {@code sink}, in order; returns how many.
         * Stops early, with {@link #isMalformed()} set, at the first entry that does not decode (ids
         * above {@code maxSeriesId} are malformed): the entries before it are delivered, as with
         * {@link #next}. Allocates nothing.
         *
         * <p>The common entry (varints of at most 7 bytes, valid control byte) is decoded by
         * {@link #decodeRun} from the cursor's array with everything in locals; any other entry goes
         * through {@link #next}, which has every check, and the loop resumes after it.
         */
        public int decodeAll(Sink sink, int maxSeriesId) {
            int count = 0;
            while (true) {
                count += decodeRun(sink, maxSeriesId);
                if (!next(maxSeriesId)) {
                    return count;
                }
                sink.accept(seriesId, timestamp, valueBits);
                count++;
            }
        }

        /**
         * Decodes entries until the record ends or an entry needs {@link #next}'s checks; leaves the
         * cursor at that entry. An entry is read in full (the cursor's slack keeps the reads in the
         * array) and only then checked to end inside the payload; nothing is delivered or updated
         * before that check, so a truncated entry has no effect, and {@link #next} reports it.
         *
         * <p>One long method on purpose: the position, previous id, tag and timestamp must stay in
         * registers across entries, and helpers cannot return a value and a new position without
         * an object. What bounds its speed is the chain from one entry to the next (where it starts,
         * which series it predicts), so the common entry's first two bytes are read with one branch
         * and the mantissa's length without one (BENCHMARKS.md "Replay: decode").
         */
        private int decodeRun(Sink sink, int maxSeriesId) {
            if (cursor.isMalformed()) {
                return 0;
            }
            byte[] buf = cursor.array();
            int limit = cursor.limit();
            int p = (int) cursor.position();
            long[] tags = state.tags();
            long[] values = state.values();
            long epochTag = state.epochTag();
            int prev = seriesId;
            long prevTag = prev < 0 ? 0L : tags[prev]; // prev >= 0 was updated by this record: current
            long t = timestamp;
            long v = valueBits;
            int count = 0;
            while (p < limit) {
                long idZigZag;
                long tZigZag;
                int q;
                int b0 = buf[p];
                int b1 = buf[p + 1];
                if ((b0 | b1) >= 0) { // the common entry: a 1-byte id delta and a 1-byte timestamp delta
                    idZigZag = b0;
                    tZigZag = b1;
                    q = p + 2;
                } else {
                    long peeked = Varint.peek(buf, p);
                    if (peeked < 0) {
                        break;
                    }
                    q = p + Varint.peekedLength(peeked);
                    idZigZag = Varint.peekedValue(peeked);
                    peeked = Varint.peek(buf, q);
                    if (peeked < 0) {
                        break;
                    }
                    q += Varint.peekedLength(peeked);
                    tZigZag = Varint.peekedValue(peeked);
                }
                // prevTag is prev's tag, current, so its low half is the prediction (kept in a local:
                // one load less on the chain from one entry's id to the next).
                int predicted = prev < 0 ? SeriesCodecState.NO_PREDICTION : (int) prevTag;
                long id = (predicted != SeriesCodecState.NO_PREDICTION ? predicted : prev + 1) + Varint.unZigZag(idZigZag);
                if (id < 0 || id > maxSeriesId) {
                    break;
                }
                long tNext = t + Varint.unZigZag(tZigZag);
                int sid = (int) id;
                if (sid >= tags.length) {
                    state.ensureCapacity(sid);
                    tags = state.tags();
                    values = state.values();
                }
                // Not current (first touch in this WAL segment) comes in a burst at each segment's
                // start, long after the loop was compiled: masks, not branches, so it causes no trap.
                long tag = tags[sid];
                long currentMask = SeriesCodecState.currentMask(tag, epochTag);
                long bits = values[sid] & currentMask;
                int control = buf[q++] & 0xFF;
                if (control >= ValueCodec.DECIMAL) {
                    int places = control - ValueCodec.DECIMAL;
                    long peeked = places <= ValueCodec.MAX_DECIMAL_PLACES ? Varint.peekBranchless(buf, q) : -1;
                    if (peeked < 0) {
                        break;
                    }
                    q += Varint.peekedLength(peeked);
                    // |m| < 2^48 (7 bytes), within the format's 2^53: one exact IEEE division, as written.
                    bits = Double.doubleToRawLongBits(Varint.unZigZag(Varint.peekedValue(peeked)) / ValueCodec.POW10[places]);
                } else if (control != ValueCodec.SAME) {
                    int shifts = ValueCodec.XOR_SHIFTS[control];
                    if (shifts < 0) {
                        break;
                    }
                    bits ^= ValueCodec.xorFromLoad(RecordCursor.bigEndianLong(buf, q), shifts);
                    q += control & 0x0F;
                }
                if (q > limit) {
                    break; // the entry runs past the payload
                }
                tag = (tag & currentMask) | (SeriesCodecState.resetTag(epochTag) & ~currentMask);
                tags[sid] = tag;
                values[sid] = bits;
                if (prev >= 0) {
                    long followed = SeriesCodecState.followedTag(epochTag, sid);
                    tags[prev] = followed;
                    if (prev == sid) {
                        tag = followed;
                    }
                }
                prev = sid;
                prevTag = tag;
                t = tNext;
                v = bits;
                p = q;
                sink.accept(prev, t, bits);
                count++;
            }
            cursor.position(p);
            seriesId = prev;
            timestamp = t;
            valueBits = v;
            return count;
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
