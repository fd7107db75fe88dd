package io.sluice.core.chunk;

import static io.sluice.core.chunk.XorChunkDescriptor.BIG_ENDIAN_LONG;
import static io.sluice.core.chunk.XorChunkDescriptor.BIG_ENDIAN_SHORT;
import static io.sluice.core.chunk.XorChunkDescriptor.HEADER_BYTES;
import static io.sluice.core.chunk.XorChunkDescriptor.MAX_LEADING_ZEROS;
import static io.sluice.core.chunk.XorChunkDescriptor.MAX_SAMPLES;
import static io.sluice.core.chunk.XorStateDescriptor.FIELD;
import static io.sluice.core.chunk.XorStateDescriptor.FIRST_TIMESTAMP_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LAST_DELTA_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LAST_TIMESTAMP_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.LAST_VALUE_BITS_OFFSET;
import static io.sluice.core.chunk.XorStateDescriptor.NO_WINDOW;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Appends samples to an XOR chunk ({@link XorChunkDescriptor}), producing Prometheus' bytes bit for
 * bit. A reusable flyweight: all state lives in a {@link XorStateDescriptor} struct the caller owns,
 * so one appender per shard thread serves every series. Allocates nothing.
 *
 * <p>Writing bits: each code is one 64-bit big-endian store at the byte holding the next free bit
 * (plus one byte store when the code straddles those 8 bytes). The store carries the bits already
 * in that byte (kept in {@code partialByte}) and zeros after the code, so the block needs no zeroing
 * and the last byte's padding is always zero. The cost is {@link #WRITE_SLACK_BYTES} bytes the
 * appender may touch past the written end: a chunk's capacity must cover its bytes, a worst-case
 * sample and that slack before a sample is accepted.
 *
 * <p>Publication: the sample's bytes, the header count and the other state fields are written
 * first, then the cursor (count, bit length, window) with release semantics. Bits before the
 * published length never change (the store rewrites them with the same values); bytes after it are
 * in flux.
 *
 * <p>Runs: {@link #appendRun} appends many samples of one series in one call, gathering bits in a
 * register and storing whole 64-bit words (the last part once, with zeros after it), and publishes
 * the cursor once at the end; the same bytes, the same rule for what readers may trust.
 *
 * <p>Caching: {@link #wrap} loads the writer-only fields (last timestamp, delta, value) and the
 * partial byte into fields; each append checks them with one read of the struct's cursor, so a
 * reset of the struct while wrapped makes it reload. Fields are written through, so the struct is
 * always complete. A struct is appended to through one appender at a time: wrap again after
 * another appender wrote it.
 *
 * <p>Thread: the single writer of the wrapped state and chunk (the shard thread).
 */
public final class XorAppender {
    /**
     * Worst case of one sample: the second sample's 10-byte uvarint delta (80 bits) plus a value that
     * opens a 64-bit window (2 + 5 + 6 + 64 bits) = 157 bits. Later samples need at most 4 + 64 + 77.
     */
    public static final int MAX_BITS_PER_SAMPLE = 157;
    /** {@link #MAX_BITS_PER_SAMPLE} in whole bytes (20). */
    public static final int MAX_BYTES_PER_SAMPLE = (MAX_BITS_PER_SAMPLE + Byte.SIZE - 1) / Byte.SIZE;
    /** Bytes past the written end a store may touch: 8 bytes from the end byte, plus one straddle byte, minus that end byte. */
    public static final int WRITE_SLACK_BYTES = 8;
    /** The smallest capacity that accepts a first sample. */
    public static final int MIN_CAPACITY_BYTES = HEADER_BYTES + MAX_BYTES_PER_SAMPLE + WRITE_SLACK_BYTES;

    /** {@link #appendRun} took every sample up to {@code to}. */
    public static final int RUN_END = 0;
    /** {@link #appendRun} stopped at a sample not after the chunk's last one: the caller's rules decide on it. */
    public static final int RUN_NOT_AFTER = 1;
    /** {@link #appendRun} stopped where {@link ChunkCutPolicy#mustCutBefore} says to cut. */
    public static final int RUN_CUT = 2;
    /** {@link #appendRun} stopped because the capacity cannot take a worst-case sample (or the chunk is at {@link XorChunkDescriptor#MAX_SAMPLES}). */
    public static final int RUN_FULL = 3;

    /** Never a cursor: trailing zeros are at most 63, so the top byte of a cursor is below 64. */
    private static final long NO_CURSOR = -1L;
    /**
     * {@link #appendCodes}' words are stored byte-reversed and copied as little-endian longs: big-endian
     * bytes in the chunk, and no swap in the copy on a little-endian host.
     */
    private static final ValueLayout.OfLong REVERSED_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Sample counts from which {@link #appendCodes} looks closer: the cut count (and never beyond {@link XorChunkDescriptor#MAX_SAMPLES}). */
    private static final int NUM_LIMIT = Math.min(MAX_SAMPLES, ChunkCutPolicy.MAX_SAMPLES_PER_CHUNK);

    // Owned by the appending thread; set by wrap().
    private MemorySegment state;
    private long stateOffset;
    private MemorySegment chunk;
    private long chunkOffset;
    private int capacityBytes;

    // Owned by the appending thread: a copy of the struct's fields, valid while its cursor equals cachedCursor.
    private long cachedCursor = NO_CURSOR;
    private long lastTimestampMs;
    private long lastDeltaMs;
    private long lastValueBits;
    /** The byte holding the next free bit, with the bits after it zero. */
    private int partialByte;
    // The XOR window during one append: read from the cursor, written back with it.
    private int windowLeading;
    private int windowTrailing;
    // Owned by the appending thread: the outcome of the last appendRun.
    private int runStop;
    private long runChunkEndMs;
    /** Owned by the appending thread: {@link #appendCodes}' words before they go to the chunk, byte-swapped. */
    private long[] words = new long[0];

    /**
     * Points this appender at a state struct and the chunk bytes it describes. The chunk may have
     * been moved (copied to a bigger block) since the last append: the state is relative to it.
     *
     * <p>It always reloads the cached fields (a few loads): a fast path for re-wrapping the same
     * chunk unchanged saved little (a run append wraps once per run) and cost a chain of comparisons
     * whose outcomes shift during a replay, each a trap that recompiled the callers.
     *
     * @param capacityBytes bytes of {@code chunk} from {@code chunkOffset} the appender may write
     *     (the block size); must hold the bytes already written
     */
    public XorAppender wrap(MemorySegment state, long stateOffset, MemorySegment chunk, long chunkOffset, int capacityBytes) {
        if (capacityBytes < HEADER_BYTES || chunkOffset < 0 || chunkOffset + capacityBytes > chunk.byteSize()) {
            throw new IllegalArgumentException("capacity " + capacityBytes + " at offset " + chunkOffset
                    + " outside a segment of " + chunk.byteSize() + " bytes");
        }
        this.state = state;
        this.stateOffset = stateOffset;
        this.chunk = chunk;
        this.chunkOffset = chunkOffset;
        this.capacityBytes = capacityBytes;
        final long cursor = XorStateDescriptor.cursor(state, stateOffset);
        final int written = byteLength(XorStateDescriptor.bitLength(cursor));
        if (written > capacityBytes) {
            throw new IllegalArgumentException("chunk of " + written + " bytes wrapped with capacity " + capacityBytes);
        }
        // The header's count is the cursor's (0 for a fresh block, whose bytes are garbage); rewriting
        // a written count with its own value changes nothing a reader sees, and costs no branch.
        chunk.set(BIG_ENDIAN_SHORT, chunkOffset, (short) XorStateDescriptor.numSamples(cursor));
        load(cursor);
        return this;
    }

    /** {@link #append(long, long)} with the value's raw bits (NaN payloads kept). */
    public boolean append(long timestampMs, double value) {
        return append(timestampMs, Double.doubleToRawLongBits(value));
    }

    /**
     * Appends one sample. Timestamps are encoded as given (ordering is the caller's business, as in
     * Prometheus' appender).
     *
     * @return false, with nothing written, when the capacity cannot take a worst-case sample or the
     *     chunk holds {@link XorChunkDescriptor#MAX_SAMPLES}; the caller grows the block or cuts
     */
    public boolean append(long timestampMs, long valueBits) {
        final MemorySegment s = state;
        final long so = stateOffset;
        final long cursor = XorStateDescriptor.cursor(s, so);
        final int num = XorStateDescriptor.numSamples(cursor);
        final long start = XorStateDescriptor.bitLength(cursor);
        if (num == MAX_SAMPLES || !hasRoom(start)) {
            return false;
        }
        if (cursor != cachedCursor) {
            load(cursor);
        }
        windowLeading = XorStateDescriptor.leading(cursor);
        windowTrailing = XorStateDescriptor.trailing(cursor);
        final long delta = timestampMs - lastTimestampMs;
        final long end;
        // The last timestamp before the last value (written with release): a reader of the series'
        // newest sample relies on it (XorStateDescriptor.lastValueBits).
        s.set(FIELD, so + LAST_TIMESTAMP_OFFSET, timestampMs);
        if (num == 0) {
            end = put(putVarint(start, (timestampMs << 1) ^ (timestampMs >> 63)), valueBits, Long.SIZE);
            s.set(FIELD, so + FIRST_TIMESTAMP_OFFSET, timestampMs);
            setLastDelta(0L);
            setLastValue(valueBits);
        } else {
            final long xor = valueBits ^ lastValueBits;
            if (num == 1) {
                end = putValue(putVarint(start, delta), 0L, 0, xor);
            } else {
                end = putDeltaOfDelta(start, delta - lastDeltaMs, xor);
            }
            if (delta != lastDeltaMs) {
                setLastDelta(delta);
            }
            if (xor != 0) {
                setLastValue(valueBits);
            }
        }
        lastTimestampMs = timestampMs;
        chunk.set(BIG_ENDIAN_SHORT, chunkOffset, (short) (num + 1));
        final long published = XorStateDescriptor.cursor((int) end, num + 1, windowLeading, windowTrailing);
        XorStateDescriptor.publishCursor(s, so, published);
        cachedCursor = published;
        return true;
    }

    /**
     * Appends samples {@code timestampsMs[from..to)} / {@code valueBits[from..to)} of one series in one
     * call, producing exactly the bytes {@link #append(long, long)} would, sample by sample, with the
     * head's cut policy applied between them: it stops (see {@link #runStop()}) before the first sample
     * that is not after the chunk's last one ({@link #RUN_NOT_AFTER}; a chunk's first sample is taken
     * whatever its timestamp), that {@link ChunkCutPolicy#mustCutBefore} would cut before
     * ({@link #RUN_CUT}), or that the capacity cannot take ({@link #RUN_FULL}).
     *
     * <p>Why: appending sample by sample re-reads the struct and re-checks the segment for every
     * code. Here the writer state (last timestamp, delta, value, window, bit position and the bits not
     * yet stored) stays in locals and the chunk is written a 64-bit word at a time. Publication is
     * unchanged in kind: the bytes, the header count and the state fields are written first, then the
     * cursor once, with release, at the end of the call; bytes before the published bit length keep
     * their values throughout. Readers see the run's samples all at once instead of one by one.
     *
     * @param chunkEndMs the chunk's end time kept on the series; the updated one is {@link #runChunkEndMs()}
     *     (re-predicted at {@link ChunkCutPolicy#SAMPLES_PER_CHUNK} / 4 samples, as per sample)
     * @return the index of the first sample not taken ({@code to} when all were)
     */
    public int appendRun(long[] timestampsMs, long[] valueBits, int from, int to, long chunkEndMs) {
        Objects.checkFromToIndex(from, to, Math.min(timestampsMs.length, valueBits.length));
        return appendCodes(timestampsMs, valueBits, from, to, chunkEndMs);
    }

    /** Why the last {@link #appendRun} stopped: {@link #RUN_END}, {@link #RUN_NOT_AFTER}, {@link #RUN_CUT} or {@link #RUN_FULL}. */
    public int runStop() {
        return runStop;
    }

    /** The chunk's end time after the last {@link #appendRun}. */
    public long runChunkEndMs() {
        return runChunkEndMs;
    }

    private int stopRun(int index, int stop, long chunkEndMs) {
        runStop = stop;
        runChunkEndMs = chunkEndMs;
        return index;
    }

    /**
     * {@link #appendRun}'s loop. A chunk's first sample is a zig-zag varint timestamp and the value's
     * 64 bits, its second a varint delta and a value code (each once per chunk, on a branch of its own),
     * every later one a delta-of-delta code and a value code. Bits gather in {@code pending} (64 bits from byte {@code origin + 8 * (rel >>> 6)} of
     * the chunk, the partial byte's bits first); a full word goes to the heap array {@link #words}
     * (byte-swapped), and the whole sub-run reaches the chunk in one bulk copy at the end: one bounds
     * and session check per sub-run instead of one per word.
     *
     * <p>The per-sample stop rules (not after the last, {@link ChunkCutPolicy#mustCutBefore}, the
     * capacity, {@link XorChunkDescriptor#MAX_SAMPLES}) are folded into one test of four limits
     * fixed before the loop; only when it fails does {@link #stopReason} say which rule stopped it.
     */
    private int appendCodes(long[] timestampsMs, long[] valueBits, int from, int to, long chunkEndMs) {
        final MemorySegment s = state;
        final long so = stateOffset;
        final long cursor = XorStateDescriptor.cursor(s, so);
        if (cursor != cachedCursor) {
            load(cursor);
        }
        long firstMs = s.get(FIELD, so + FIRST_TIMESTAMP_OFFSET);
        final int startBits = XorStateDescriptor.bitLength(cursor);
        final long origin = chunkOffset + (startBits >>> 3);
        final int originBits = startBits & ~7;
        final long[] w = wordsFor(capacityBytes);
        // rel <= relLimit: the capacity takes a worst-case sample and the chunk is not past the cut length.
        final int relLimit = Math.min(roomLimitBits(capacityBytes), ChunkCutPolicy.MAX_BYTES_BEFORE_APPEND * Byte.SIZE) - originBits;
        int rel = startBits & 7;
        long pending = (long) partialByte << 56;
        int num = XorStateDescriptor.numSamples(cursor);
        int leading = XorStateDescriptor.leading(cursor);
        int trailing = XorStateDescriptor.trailing(cursor);
        long lastTs = lastTimestampMs;
        long lastDelta = lastDeltaMs;
        long lastValue = lastValueBits;
        long chunkEnd = chunkEndMs;
        int stop = RUN_END;
        int i = from;
        for (; i < to; i++) {
            final long t = timestampsMs[i];
            if (num == 0) {
                // A chunk's first sample (once per chunk; in the loop, not before it: a test before the
                // loop would leave the loop's entry test untaken until a run ends right after a cut).
                // Nothing to be after, nothing to cut; only the capacity can refuse it.
                if (rel > relLimit) {
                    stop = RUN_FULL;
                    break;
                }
                final long zigzag = (t << 1) ^ (t >> 63);
                pending = XorCodes.putVarintWord(w, pending, rel, zigzag);
                rel += XorCodes.varintBits(zigzag);
                pending = XorCodes.putWord(w, pending, rel, valueBits[i], Long.SIZE);
                rel += Long.SIZE;
                s.set(FIELD, so + FIRST_TIMESTAMP_OFFSET, t); // published with the cursor
                firstMs = t;
                lastTs = t;
                lastDelta = 0L;
                lastValue = valueBits[i];
                num = 1;
                continue;
            }
            if (t <= lastTs | t >= chunkEnd | rel > relLimit | num >= NUM_LIMIT) {
                stop = stopReason(t, lastTs, num, originBits + rel, chunkEnd);
                break;
            }
            final long delta = t - lastTs;
            final long dod = delta - lastDelta;
            final long xor = valueBits[i] ^ lastValue;
            long prefix;
            int prefixBits;
            if (dod == 0 & num >= 2) { // the regular interval: by far the most common
                prefix = 0L;
                prefixBits = 1;
            } else if (num == 1) { // the chunk's second sample (once per chunk): a varint delta, no prefix
                pending = XorCodes.putVarintWord(w, pending, rel, delta);
                rel += XorCodes.varintBits(delta);
                prefix = 0L;
                prefixBits = 0;
            } else {
                prefix = XorCodes.dodCode(dod);
                prefixBits = (int) prefix & 0xFF;
                prefix >>>= 8;
                if (prefixBits == 0) { // the 64-bit escape
                    pending = XorCodes.putWord(w, pending, rel, 0b1111L, 4);
                    rel += 4;
                    pending = XorCodes.putWord(w, pending, rel, dod, Long.SIZE);
                    rel += Long.SIZE;
                }
            }
            if (xor == 0) {
                pending = XorCodes.putWord(w, pending, rel, prefix << 1, prefixBits + 1);
                rel += prefixBits + 1;
            } else {
                final int lz = Math.min(Long.numberOfLeadingZeros(xor), MAX_LEADING_ZEROS);
                final int tz = Long.numberOfTrailingZeros(xor);
                long code;
                int codeBits;
                if (leading != NO_WINDOW && lz >= leading && tz >= trailing) {
                    code = (prefix << 2) | 0b10L;
                    codeBits = prefixBits + 2;
                } else {
                    leading = lz;
                    trailing = tz;
                    code = (prefix << 13) | (0b11L << 11) | ((long) lz << 6) | ((Long.SIZE - lz - tz) & 0x3F);
                    codeBits = prefixBits + 13;
                }
                final int significant = Long.SIZE - leading - trailing;
                final long payload = xor >>> trailing;
                if (codeBits + significant <= Long.SIZE) {
                    pending = XorCodes.putWord(w, pending, rel, (code << significant) | payload, codeBits + significant);
                } else {
                    pending = XorCodes.putWord(w, pending, rel, code, codeBits);
                    pending = XorCodes.putWord(w, pending, rel + codeBits, payload, significant);
                }
                rel += codeBits + significant;
                lastValue ^= xor;
            }
            lastTs = t;
            lastDelta = delta;
            num++;
            if (num == ChunkCutPolicy.SAMPLES_PER_CHUNK / 4) {
                chunkEnd = ChunkCutPolicy.chunkEndAfterAppendMs(chunkEnd, num, firstMs, t);
            }
        }
        // Also when no sample was taken (the first one stopped): it then rewrites the partial byte and the
        // state with their own values. No branch: "none taken" is rare early in a replay and common
        // later (a series' first samples after a cut), and a branch C2 compiled as never taken would
        // trap and recompile this method when it first is.
        finishCodes(w, origin, originBits, rel, pending, num, leading, trailing, lastTs, lastDelta, lastValue);
        return stopRun(i, stop, chunkEnd);
    }

    /** The largest bit length at which a block of {@code capacityBytes} takes a worst-case sample ({@link #hasRoom}). */
    private static int roomLimitBits(int capacityBytes) {
        return (capacityBytes - WRITE_SLACK_BYTES) * Byte.SIZE - MAX_BITS_PER_SAMPLE;
    }

    /**
     * Which rule stops a sample that failed {@link #appendCodes}' folded test, in the per-sample order:
     * {@link #RUN_NOT_AFTER}, else {@link #RUN_CUT} ({@link ChunkCutPolicy#cutBit}), else {@link #RUN_FULL}.
     * Arithmetic, no branches: which rule stops a sub-run changes over a replay (bursts that reach 240
     * samples, chunks that reach the byte limit come late), and each branch C2 compiled as never taken
     * would trap and recompile {@code appendCodes} when first taken.
     */
    private static int stopReason(long t, long lastTs, int num, int bitLength, long chunkEndMs) {
        final int notAfter = 1 - (int) ChunkCutPolicy.lessThanBit(lastTs, t);
        final int cut = ChunkCutPolicy.cutBit(t, num, byteLength(bitLength), chunkEndMs);
        return RUN_FULL - cut - notAfter * (RUN_FULL - RUN_NOT_AFTER - cut);
    }

    /** The word array, big enough for every word a block of {@code capacityBytes} can be written with. */
    private long[] wordsFor(int capacityBytes) {
        final int needed = capacityBytes / Long.BYTES + 2;
        if (words.length < needed) {
            words = new long[needed]; // once per larger block size than any before: not per sample
        }
        return words;
    }

    /**
     * The end of a sub-run: the words (and the last part, with zeros after it) to the chunk in one
     * copy, then the state fields, then the cursor (release).
     */
    private void finishCodes(long[] w, long origin, int originBits, int rel, long pending, int num, int leading, int trailing,
                             long lastTs, long lastDelta, long lastValue) {
        // The last word always goes too: the partial one with zeros after the last bit, or (rel a multiple
        // of 64) eight zero bytes after the end, inside the write slack. No branch on either, and never an
        // empty copy: both would be outcomes first seen long after the JIT compiled this (a trap).
        w[rel >>> 6] = Long.reverseBytes(pending);
        // The words of appended samples always lie in the block (the capacity covered a worst-case sample
        // and the write slack); the clamp only matters for a block wrapped exactly full, which takes no
        // sample: then less (or nothing) is rewritten.
        int wordCount = Math.min((rel >>> 6) + 1, (int) (chunkOffset + capacityBytes - origin) >>> 3);
        MemorySegment.copy(w, 0, chunk, REVERSED_LONG, origin, wordCount);
        partialByte = (int) (pending << (((rel & 63) >>> 3) << 3) >>> 56);
        lastTimestampMs = lastTs;
        lastDeltaMs = lastDelta;
        lastValueBits = lastValue;
        final MemorySegment s = state;
        final long so = stateOffset;
        s.set(FIELD, so + LAST_TIMESTAMP_OFFSET, lastTs);
        s.set(FIELD, so + LAST_DELTA_OFFSET, lastDelta);
        XorStateDescriptor.setLastValueBits(s, so, lastValue); // after the last timestamp
        chunk.set(BIG_ENDIAN_SHORT, chunkOffset, (short) num);
        final long published = XorStateDescriptor.cursor(originBits + rel, num, leading, trailing);
        XorStateDescriptor.publishCursor(s, so, published);
        cachedCursor = published;
    }

    /** Whether the capacity takes one more worst-case sample. */
    public boolean hasRoomForSample() {
        return hasRoom(bitLength());
    }

    /** The capacity a chunk of {@code byteLength} bytes needs to accept one more sample. */
    public static int requiredCapacityBytes(int byteLength) {
        return byteLength + MAX_BYTES_PER_SAMPLE + WRITE_SLACK_BYTES;
    }

    public int numSamples() {
        return XorStateDescriptor.numSamples(XorStateDescriptor.cursor(state, stateOffset));
    }

    /** Bits written, header included. */
    public int bitLength() {
        return XorStateDescriptor.bitLength(XorStateDescriptor.cursor(state, stateOffset));
    }

    /** The chunk's length as Prometheus' {@code Bytes()} reports it: header plus ceil(bits / 8). */
    public int byteLength() {
        return byteLength(bitLength());
    }

    public int capacityBytes() {
        return capacityBytes;
    }

    /** Timestamp of the first sample; meaningless while {@link #numSamples()} is 0. */
    public long firstTimestampMs() {
        return state.get(FIELD, stateOffset + FIRST_TIMESTAMP_OFFSET);
    }

    /** Timestamp of the last sample; meaningless while {@link #numSamples()} is 0. */
    public long lastTimestampMs() {
        return state.get(FIELD, stateOffset + LAST_TIMESTAMP_OFFSET);
    }

    /** Raw bits of the last value; meaningless while {@link #numSamples()} is 0. */
    public long lastValueBits() {
        return state.get(FIELD, stateOffset + LAST_VALUE_BITS_OFFSET);
    }

    private static int byteLength(int bitLength) {
        return (bitLength + Byte.SIZE - 1) >>> 3;
    }

    private boolean hasRoom(long bitLength) {
        return ((bitLength + MAX_BITS_PER_SAMPLE + Byte.SIZE - 1) >>> 3) + WRITE_SLACK_BYTES <= capacityBytes;
    }

    /** Reloads the cache from the struct and the chunk (on wrap, or after another writer changed the struct). */
    private void load(long cursor) {
        lastTimestampMs = state.get(FIELD, stateOffset + LAST_TIMESTAMP_OFFSET);
        lastDeltaMs = state.get(FIELD, stateOffset + LAST_DELTA_OFFSET);
        lastValueBits = state.get(FIELD, stateOffset + LAST_VALUE_BITS_OFFSET);
        final int bitLength = XorStateDescriptor.bitLength(cursor);
        final int used = bitLength & 7;
        // No branch on used == 0 (the mask is then 0): which is more common changes as blocks fill. The byte
        // read stays inside the block (a chunk filling it exactly ends on a byte boundary: masked to 0).
        final long at = chunkOffset + Math.min(bitLength >>> 3, capacityBytes - 1);
        partialByte = chunk.get(ValueLayout.JAVA_BYTE, at) & (0xFF00 >>> used) & 0xFF;
        cachedCursor = cursor;
    }

    private void setLastDelta(long deltaMs) {
        lastDeltaMs = deltaMs;
        state.set(FIELD, stateOffset + LAST_DELTA_OFFSET, deltaMs);
    }

    private void setLastValue(long valueBits) {
        lastValueBits = valueBits;
        XorStateDescriptor.setLastValueBits(state, stateOffset, valueBits);
    }

    /** The timestamp code of samples 2.., then the value code; merged into one write when they fit. */
    private long putDeltaOfDelta(long pos, long dod, long xor) {
        final long code = XorCodes.dodCode(dod);
        if (code != 0) {
            return putValue(pos, code >>> 8, (int) code & 0xFF, xor);
        }
        return putValue(put(put(pos, 0b1111L, 4), dod, Long.SIZE), 0L, 0, xor);
    }

    /**
     * Writes {@code prefix} (its low {@code prefixBits} bits, at most 24), then the value code of
     * {@code xor}, in one write when the whole fits 64 bits.
     */
    private long putValue(long pos, long prefix, int prefixBits, long xor) {
        if (xor == 0) {
            return put(pos, prefix << 1, prefixBits + 1);
        }
        final int leading = Math.min(Long.numberOfLeadingZeros(xor), MAX_LEADING_ZEROS);
        final int trailing = Long.numberOfTrailingZeros(xor);
        final int windowLeading = this.windowLeading;
        final int windowTrailing = this.windowTrailing;
        long code;
        int codeBits;
        int significantBits;
        long payload;
        if (windowLeading != NO_WINDOW && leading >= windowLeading && trailing >= windowTrailing) {
            code = (prefix << 2) | 0b10L;
            codeBits = prefixBits + 2;
            significantBits = Long.SIZE - windowLeading - windowTrailing;
            payload = xor >>> windowTrailing;
        } else {
            this.windowLeading = leading;
            this.windowTrailing = trailing;
            significantBits = Long.SIZE - leading - trailing;
            // 64 significant bits do not fit 6 bits: written as 0, read back as 64.
            code = (prefix << 13) | (0b11L << 11) | ((long) leading << 6) | (significantBits & 0x3F);
            codeBits = prefixBits + 13;
            payload = xor >>> trailing;
        }
        if (codeBits + significantBits <= Long.SIZE) {
            return put(pos, (code << significantBits) | payload, codeBits + significantBits);
        }
        return put(put(pos, code, codeBits), payload, significantBits);
    }

    /** Unsigned LEB128, as Go's binary.PutUvarint (PutVarint after zig-zag). */
    private long putVarint(long pos, long value) {
        long rest = value;
        long at = pos;
        while ((rest & ~0x7FL) != 0) {
            at = put(at, (rest & 0x7F) | 0x80, Byte.SIZE);
            rest >>>= 7;
        }
        return put(at, rest, Byte.SIZE);
    }

    /**
     * Writes the low {@code bits} bits of {@code value} (1..64, no higher bits set) at bit {@code pos}
     * of the chunk and returns the position after them.
     */
    private long put(long pos, long value, int bits) {
        final long at = chunkOffset + (pos >>> 3);
        final int used = (int) pos & 7;
        final int shift = Long.SIZE - used - bits;
        final long kept = (long) partialByte << 56;
        if (shift > 0) {
            final long word = kept | (value << shift);
            chunk.set(BIG_ENDIAN_LONG, at, word);
            // The new partial byte: the one holding bit pos + bits, taken from the word just written.
            partialByte = (int) (word << (((used + bits) >>> 3) << 3) >>> 56);
        } else {
            chunk.set(BIG_ENDIAN_LONG, at, kept | (value >>> -shift));
            final int straddle = (int) (value << (Byte.SIZE + shift)) & 0xFF;
            if (shift < 0) {
                chunk.set(ValueLayout.JAVA_BYTE, at + Long.BYTES, (byte) straddle);
            }
            partialByte = straddle;
        }
        return pos + bits;
    }
}
