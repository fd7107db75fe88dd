package io.sluice.core.chunk;

/**
 * When the head cuts a series' open chunk, and how big the open chunk's block is: pure functions
 * the head calls on every append, matching Prometheus' head ({@code memSeries.appendPreprocessor},
 * {@code computeChunkEndTime}, {@code rangeForTimestamp} in tsdb/head_append.go):
 *
 * <ol>
 *   <li>A chunk holds about {@value #SAMPLES_PER_CHUNK} samples: when it has
 *       {@code SAMPLES_PER_CHUNK / 4} samples, its end time is predicted from the rate so far so the
 *       rest of its 2 h range splits into equal chunks ({@link #chunkEndAfterAppendMs}).</li>
 *   <li>A chunk never spans a chunk-range boundary (2 h, aligned to the epoch), so closed chunks can
 *       later be written into TSDB blocks unchanged: its end time starts as the end of the range of
 *       its first sample ({@link #chunkRangeEndMs}) and is only ever moved earlier.</li>
 *   <li>Hard cuts: at {@value #MAX_SAMPLES_PER_CHUNK} samples (the rate went up after the prediction),
 *       and when the chunk holds more than {@value #MAX_BYTES_BEFORE_APPEND} bytes, i.e. 1024 bytes
 *       minus a worst-case sample as Prometheus' {@code maxBytesPerXORChunk}.</li>
 * </ol>
 *
 * Differences, on purpose: the range of a negative timestamp is floor-aligned (Prometheus divides
 * towards zero, so its first range before 1970 spans [-2 h, +2 h)); the chunk-end jitter Cortex and
 * Mimir add ({@code addJitterToChunkEndTime}) is not applied, as in Prometheus itself.
 *
 * <p>Use per append, with {@code chunkEndMs} kept on the series:
 * <pre>
 * if (numSamples == 0) { chunkEndMs = chunkRangeEndMs(t, range); }             // first chunk
 * else if (mustCutBefore(t, numSamples, byteLength, chunkEndMs)) { cut; chunkEndMs = chunkRangeEndMs(t, range); }
 * append; chunkEndMs = chunkEndAfterAppendMs(chunkEndMs, numSamples after, firstMs, t);
 * </pre>
 */
public final class ChunkCutPolicy {
    /** Prometheus' DefaultSamplesPerChunk. */
    public static final int SAMPLES_PER_CHUNK = 120;
    /** Cut regardless of the predicted end once a chunk holds this many samples. */
    public static final int MAX_SAMPLES_PER_CHUNK = 2 * SAMPLES_PER_CHUNK;
    /** Prometheus' chunkenc.MaxBytesPerXORChunk. */
    public static final int MAX_BYTES_PER_CHUNK = 1024;
    /** Cut before appending to a chunk longer than this: the next sample might take 19 bytes. */
    public static final int MAX_BYTES_BEFORE_APPEND = MAX_BYTES_PER_CHUNK - 19;
    /** Prometheus' default head chunk range, the smallest TSDB block. */
    public static final long DEFAULT_CHUNK_RANGE_MS = 2 * 60 * 60 * 1000L;

    /** An open chunk's first block: the first sample takes 8-18 bytes, plus the write slack. */
    public static final int INITIAL_OPEN_CAPACITY_BYTES = 64;
    /**
     * The largest open block: a chunk is cut above {@value #MAX_BYTES_BEFORE_APPEND} bytes, so it is
     * appended to with at most that many and needs {@link XorAppender#requiredCapacityBytes} of it
     * (1033), rounded up to the 16-byte granule.
     */
    public static final int MAX_OPEN_CAPACITY_BYTES = roundUpToGranule(XorAppender.requiredCapacityBytes(MAX_BYTES_BEFORE_APPEND));

    private ChunkCutPolicy() {
    }

    /**
     * Whether the open chunk must be cut before the sample at {@code timestampMs} is appended.
     *
     * @param chunkEndMs the chunk's end time kept on the series (exclusive)
     */
    public static boolean mustCutBefore(long timestampMs, int numSamples, int byteLength, long chunkEndMs) {
        return numSamples > 0
                && (byteLength > MAX_BYTES_BEFORE_APPEND || timestampMs >= chunkEndMs || numSamples >= MAX_SAMPLES_PER_CHUNK);
    }

    /**
     * {@link #mustCutBefore} as 1 or 0, computed without branches (for {@code XorAppender}'s stop
     * reason, whose outcome mix shifts over a replay; a branch the JIT compiled as never taken traps).
     */
    public static int cutBit(long timestampMs, int numSamples, int byteLength, long chunkEndMs) {
        final long any = lessThanBit(MAX_BYTES_BEFORE_APPEND, byteLength)
                | (1 - lessThanBit(timestampMs, chunkEndMs))
                | (1 - lessThanBit(numSamples, MAX_SAMPLES_PER_CHUNK));
        return (int) (any & lessThanBit(0, numSamples));
    }

    /** 1 if {@code x < y}, else 0, without a branch and right across overflow (Hacker's Delight, 2-12). */
    public static long lessThanBit(long x, long y) {
        final long d = x - y;
        return (d ^ ((x ^ y) & (d ^ x))) >>> 63;
    }

    /** End (exclusive) of the chunk range holding {@code timestampMs}: the latest end of a chunk starting there. */
    public static long chunkRangeEndMs(long timestampMs, long chunkRangeMs) {
        return Math.floorDiv(timestampMs, chunkRangeMs) * chunkRangeMs + chunkRangeMs;
    }

    /**
     * The chunk's end time after an append: re-predicted when the chunk reaches a quarter of
     * {@value #SAMPLES_PER_CHUNK} samples, otherwise unchanged.
     */
    public static long chunkEndAfterAppendMs(long chunkEndMs, int numSamplesAfterAppend, long firstTimestampMs, long lastTimestampMs) {
        if (numSamplesAfterAppend != SAMPLES_PER_CHUNK / 4) {
            return chunkEndMs;
        }
        return predictedChunkEndMs(firstTimestampMs, lastTimestampMs, chunkEndMs);
    }

    /**
     * Prometheus' computeChunkEndTime with ratioToFull 4: assuming [start, current] is a quarter of
     * a chunk, split [start, max) into n = floor((max - start) / (4 * (current - start + 1))) equal
     * chunks and end this one after the first; max itself when n <= 1. Same float arithmetic.
     */
    static long predictedChunkEndMs(long startMs, long currentMs, long maxMs) {
        final double n = (double) (maxMs - startMs) / ((double) (currentMs - startMs + 1) * 4.0);
        if (n <= 1) {
            return maxMs;
        }
        return (long) ((double) startMs + (double) (maxMs - startMs) / Math.floor(n));
    }

    /**
     * The next capacity for an open chunk whose block is full: double, or straight to
     * {@link #MAX_OPEN_CAPACITY_BYTES} when doubling would leave less than half a step below it
     * (so 64 -> 128 -> 256 -> 512 -> 1040: at most four copies, ~1 KiB copied per chunk).
     *
     * @throws IllegalStateException if the block is already the largest: the cut policy was not
     *     applied (a broken invariant)
     */
    public static int grownCapacityBytes(int capacityBytes) {
        if (capacityBytes >= MAX_OPEN_CAPACITY_BYTES) {
            throw new IllegalStateException("open chunk of capacity " + capacityBytes
                    + " is full: it should have been cut above " + MAX_BYTES_BEFORE_APPEND + " bytes");
        }
        final int doubled = 2 * capacityBytes;
        return doubled + capacityBytes > MAX_OPEN_CAPACITY_BYTES ? MAX_OPEN_CAPACITY_BYTES : doubled;
    }

    /**
     * The capacity of an open block for a chunk of {@code byteLength} bytes that a run of samples is
     * expected to extend by {@code expectedMoreBytes}: the smallest step of the growth ladder
     * ({@link #INITIAL_OPEN_CAPACITY_BYTES}, then {@link #grownCapacityBytes(int)}: 64, 128, 256, 512,
     * 1040) that holds them, so a long run goes from 64 bytes to what it needs in one copy instead of
     * the whole chain. Only ladder sizes: the blocks of the few size classes the head frees are what
     * it allocates again (more classes would strand freed blocks on their free lists).
     *
     * @param capacityBytes the full block's capacity, or 0 for a new chunk's first block
     */
    public static int runCapacityBytes(int capacityBytes, int byteLength, int expectedMoreBytes) {
        final int wanted = XorAppender.requiredCapacityBytes(byteLength + expectedMoreBytes);
        int step = capacityBytes == 0 ? INITIAL_OPEN_CAPACITY_BYTES : grownCapacityBytes(capacityBytes);
        while (step < wanted && step < MAX_OPEN_CAPACITY_BYTES) {
            step = grownCapacityBytes(step);
        }
        return step;
    }

    /**
     * {@link #runCapacityBytes} for a full block of {@code capacityBytes} holding {@code numSamples}
     * in {@code bitLength} bits (first sample at {@code firstTimestampMs}) that a run has
     * {@code remainingSamples} more for: expected at the chunk's bits per sample after the first (a
     * varint timestamp and 64 value bits, far more than the rest), up to {@value #SAMPLES_PER_CHUNK}.
     */
    public static int grownRunCapacityBytes(int capacityBytes, int bitLength, int numSamples, long firstTimestampMs, int remainingSamples) {
        final int byteLength = (bitLength + Byte.SIZE - 1) / Byte.SIZE;
        if (numSamples < 2) {
            return runCapacityBytes(capacityBytes, byteLength, 0); // nothing to go by: one step
        }
        final long zigZag = (firstTimestampMs << 1) ^ (firstTimestampMs >> 63);
        final int firstBits = Long.SIZE + Byte.SIZE * Math.max(1, (Long.SIZE - Long.numberOfLeadingZeros(zigZag) + 6) / 7);
        final long bitsPerSample = Math.max(1, (bitLength - XorChunkDescriptor.HEADER_BYTES * Byte.SIZE - firstBits) / (numSamples - 1));
        final long samples = Math.max(0, Math.min(remainingSamples, SAMPLES_PER_CHUNK - numSamples));
        final long more = Math.min(MAX_BYTES_PER_CHUNK, (samples * bitsPerSample + Byte.SIZE - 1) / Byte.SIZE);
        return runCapacityBytes(capacityBytes, byteLength, (int) more);
    }

    /**
     * {@link #runCapacityBytes} for the chunk after one of {@code cutByteLength} bytes and
     * {@code cutNumSamples} samples, for a run's next {@code remainingSamples}: as many bytes per
     * sample as the chunk just cut (the same series, most likely the same shape).
     */
    public static int nextChunkCapacityBytes(int cutByteLength, int cutNumSamples, int remainingSamples) {
        final int n = Math.max(1, cutNumSamples);
        final long more = (long) Math.max(0, cutByteLength - XorChunkDescriptor.HEADER_BYTES) * Math.min(remainingSamples, n) / n;
        return runCapacityBytes(0, XorChunkDescriptor.HEADER_BYTES, (int) Math.min(MAX_BYTES_PER_CHUNK, more));
    }

    /** The capacity for a closed chunk of {@code byteLength} bytes: the smallest block that holds it. */
    public static int closedCapacityBytes(int byteLength) {
        return roundUpToGranule(byteLength);
    }

    private static int roundUpToGranule(int bytes) {
        final int granule = ChunkMemory.BLOCK_GRANULE_BYTES;
        return (bytes + granule - 1) / granule * granule;
    }
}
