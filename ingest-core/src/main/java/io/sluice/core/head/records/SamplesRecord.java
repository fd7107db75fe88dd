package io.sluice.core.head.records;

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
            long p = Varint.writeSigned(segment, position, (long) seriesId - state.predictNext(previousId));
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

    /**
     * Reads SAMPLES records; one per replaying thread, reusable. Two ways to read a wrapped record,
     * same samples, same state afterwards: {@link #decodeAll} (replay's path: a tight loop writing
     * into {@link ReplayRuns}) and {@link #next} (one entry per call; the reference the loop is tested
     * against).
     */
    public static final class Decoder {
        /**
         * Entries {@link #decodeRun} decodes per call at most. Why: a call per ~2,000-entry record made
         * the JIT compile the loop on-stack (OSR) long before the method itself was called often
         * enough, then again as a method: 2 C1 + 2 C2 compiles. At 64 entries per call the method's
         * invocation count reaches C2's thresholds first: one C2 compile (C1's quick compiles, one of
         * them on-stack, remain); a call costs ~1 % of 64 entries' decoding (not measurable).
         */
        static final int ENTRIES_PER_CALL = 64;
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
         * Buffers every entry of the wrapped record in {@code runs}, in order (full runs go to its sink
         * as they fill); returns how many. Stops early, with {@link #isMalformed()} set, at the first
         * entry that does not decode (ids above {@code maxSeriesId} are malformed): the entries before
         * it are buffered, as with {@link #next}. Allocates nothing (the runs may grow).
         *
         * <p>The common entry (id and timestamp varints of at most 7 bytes, a valid control byte, a
         * known series whose run has room) is decoded by {@link #decodeRun}, which writes it straight
         * into the runs' arrays; it returns after an entry that fills a run, which is handed on here,
         * and after {@link #ENTRIES_PER_CALL} entries.
         * Any other entry goes through {@link #next}, which has every check, and {@link ReplayRuns#add},
         * which grows the runs, and the loop resumes after it.
         */
        public int decodeAll(ReplayRuns runs, int maxSeriesId) {
            int count = 0;
            while (true) {
                if (runs.run() > 1) { // else nothing is buffered (very many series): entry by entry
                    int decoded = decodeRun(runs, maxSeriesId);
                    count += decoded;
                    if (runs.flushIfFull(seriesId) | decoded == ENTRIES_PER_CALL) {
                        continue; // a run was full, or the loop stopped at its entry budget: it goes on
                    }
                }
                if (!next(maxSeriesId)) {
                    return count;
                }
                runs.add(seriesId, timestamp, valueBits);
                count++;
            }
        }

        /**
         * Decodes entries into {@code runs} until the record ends, an entry fills its series' run, or
         * an entry needs {@link #next}'s checks (then the cursor is left at it). An entry is read in
         * full (the cursor's slack keeps the reads in the array) and only then checked to end inside
         * the payload; nothing is buffered or updated before that check, so a truncated entry has no
         * effect, and {@link #next} reports it.
         *
         * <p>One long method on purpose: the position, previous and predicted id and timestamp must
         * stay in registers across entries, and helpers cannot return a value and a new position
         * without an object. Two chains run from entry to entry and bound its speed: where the next
         * entry starts (the common entry, 1-byte id and timestamp deltas, costs one 8-byte load for its
         * head and one for its value; a decimal mantissa's length is found without a branch, by its
         * stop byte's clear top bit), and which id it predicts (one load and two adds: see
         * {@link SeriesCodecState}'s layout).
         *
         * <p>No branch here is first taken late in a replay (each would be an uncommon trap and a
         * recompile, long after the loop was compiled): "run full" shares the loop's one test with
         * "end of record" and the entry budget, also at entry; a record's first entry writes to a
         * scratch slot; a missing prediction, a series not seen in this WAL segment and the same series
         * twice in a row need no test at all. Ids beyond the arrays (new series) leave the loop, which
         * happens from the first record on. Branches left that valid data may take late (a mantissa
         * over 7 bytes, a varint over 7 bytes) are rare, and a trap costs one recompile
         * (docs/design/jit.md).
         */
        private int decodeRun(ReplayRuns runs, int maxSeriesId) {
            byte[] buf = cursor.array();
            int limit = cursor.isMalformed() ? 0 : cursor.limit(); // a malformed header: nothing to decode
            int p = (int) cursor.position();
            int[] nextOffsets = state.nextOffsets();
            long[] values = state.values();
            int scratch = nextOffsets.length - 1; // where "what followed the series before the first" goes
            int[] counts = runs.counts();
            long[] runTimes = runs.timestampsMs();
            long[] runValues = runs.valueBits();
            int run = runs.run();
            // Ids up to this are known and have room in both the codec state and the runs; others: next().
            int maxId = Math.min(maxSeriesId, Math.min(runs.capacitySeries(), scratch) - 1);
            // seriesId >= 0 was updated by this record; -1 (none yet) predicts 0 and stands for the scratch
            // slot below (no test for it in the loop).
            int first = seriesId;
            int prev = first + ((first >> 31) & (scratch + 1));
            int predicted = first + 1 + (nextOffsets[prev] & ~(first >> 31));
            long t = timestamp;
            int count = 0;
            int n = 0;
            // One test for entry, every entry and exit: more payload, room in prev's run, entries left.
            while (((p - limit) & (n - run) & (count - ENTRIES_PER_CALL)) < 0) {
                long head = Varint.littleEndianLong(buf, p);
                long idZigZag;
                long tZigZag;
                int q;
                if ((head & 0x8080L) == 0) { // the common entry: a 1-byte id delta and a 1-byte timestamp delta
                    idZigZag = head & 0x7F;
                    tZigZag = (head >>> 8) & 0x7F;
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
                long id = predicted + Varint.unZigZag(idZigZag);
                if ((id | (maxId - id)) < 0) {
                    break; // below 0, unknown, or not yet in the arrays (next() and add() grow them)
                }
                int sid = (int) id;
                long tNext = t + Varint.unZigZag(tZigZag);
                long value = Varint.littleEndianLong(buf, q); // the control byte, then the value's bytes
                int control = (int) value & 0xFF;
                long bits;
                if (control >= ValueCodec.DECIMAL) {
                    int places = control - ValueCodec.DECIMAL;
                    long stops = ~value & 0x8080_8080_8080_8000L; // a clear top bit in bytes 1..7 ends the mantissa
                    if (places > ValueCodec.MAX_DECIMAL_PLACES || stops == 0) {
                        break;
                    }
                    long lowest = stops & -stops;
                    long mantissa = Varint.foldGroups((value & (lowest ^ (lowest - 1))) >>> 8);
                    q += (Long.numberOfTrailingZeros(stops) >>> 3) + 1;
                    // |m| < 2^49 (7 bytes), within the format's 2^53: one exact IEEE division, as written.
                    bits = Double.doubleToRawLongBits(Varint.unZigZag(mantissa) / ValueCodec.POW10[places]);
                } else if (control != ValueCodec.SAME) {
                    int shifts = ValueCodec.XOR_SHIFTS[control];
                    if (shifts < 0) {
                        break;
                    }
                    bits = values[sid] ^ ValueCodec.xorFromLoad(RecordCursor.bigEndianLong(buf, q + 1), shifts);
                    q += 1 + (control & 0x0F);
                } else {
                    bits = values[sid];
                    q++;
                }
                if (q > limit) {
                    break; // the entry runs past the payload
                }
                values[sid] = bits;
                // sid followed prev (for a record's first entry: the scratch slot, any value). Then sid's own
                // prediction for the next entry: stored before the load, so a series following itself
                // reads what was just written.
                nextOffsets[prev] = sid - (prev + 1);
                predicted = sid + 1 + nextOffsets[sid];
                n = counts[sid];
                int at = sid * run + n;
                runTimes[at] = tNext;
                runValues[at] = bits;
                counts[sid] = ++n;
                prev = sid;
                t = tNext;
                p = q;
                count++;
            }
            cursor.position(p);
            if (count > 0) { // else nothing changed (and prev may be the scratch slot)
                seriesId = prev;
                timestamp = t;
                valueBits = values[prev];
            }
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
            long id = state.predictNext(seriesId) + cursor.readSigned();
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

}
