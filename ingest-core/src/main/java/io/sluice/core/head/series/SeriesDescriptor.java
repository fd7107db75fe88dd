package io.sluice.core.head.series;

import io.sluice.core.chunk.XorStateDescriptor;

/**
 * The per-series struct, one fixed-stride slot per series id in the shard's off-heap pages. No
 * Java object exists per series.
 *
 * <pre>
 *  0        4        8                16               24               32
 *  +--------+--------+----------------+----------------+----------------+
 *  | seq    | lblLen | labelsRef      | hash           | openChunk      |
 *  +--------+--------+----------------+----------------+----------------+
 *  32               40       44       48               56               64
 *  +----------------+--------+--------+----------------+----------------+
 *  | closedList     | nClosed| capClsd| chunkEndMs     | minTimeMs      |
 *  +----------------+--------+--------+----------------+----------------+
 *  64               72                                112      116     128
 *  +----------------+--------------------------------+--------+-------+
 *  | maxTimeMs      | XOR appender state (40 B)      | flags  | rsvd  |
 *  +----------------+--------------------------------+--------+-------+
 * </pre>
 *
 * <ul>
 *   <li>{@code seq}: a sequence lock. Odd while the shard moves this series' chunk bytes (grows
 *       the open block, cuts a chunk, grows the closed list); readers retry when it changed.</li>
 *   <li>{@code labelsRef}/{@code lblLen}: the canonical label bytes in the shard's label arena.</li>
 *   <li>{@code openChunk}: ChunkHandle of the open chunk's block (NONE before the first sample).</li>
 *   <li>{@code closedList}: a {@link ClosedListAllocator} handle of {@value #CLOSED_ENTRY_BYTES}-byte
 *       entries {chunk handle, minTimeMs, maxTimeMs, chunk file ref}, oldest first, no cap;
 *       {@code nClosed} is published with release, {@code capClsd} is the list's room. The ref says
 *       where the chunk lies in the shard's chunk files (0: not in one); the chunk handle is NONE
 *       once the chunk was written there (readers use the file's mapping), else its memory block.</li>
 *   <li>{@code flags}: {@link #FLAG_EVICTED} once retention removed the series (its id stays taken).</li>
 *   <li>{@code minTimeMs}/{@code maxTimeMs}: first and last sample the head holds (Long.MIN_VALUE: none yet).</li>
 * </ul>
 * Native byte order; never written to disk. 128 bytes, 8-byte aligned.
 */
public final class SeriesDescriptor {
    public static final int SEQ_OFFSET = 0;
    public static final int LABELS_LENGTH_OFFSET = 4;
    public static final int LABELS_REF_OFFSET = 8;
    public static final int HASH_OFFSET = 16;
    public static final int OPEN_CHUNK_OFFSET = 24;
    public static final int CLOSED_LIST_OFFSET = 32;
    public static final int CLOSED_COUNT_OFFSET = 40;
    public static final int CLOSED_CAPACITY_OFFSET = 44;
    public static final int CHUNK_END_OFFSET = 48;
    public static final int MIN_TIME_OFFSET = 56;
    public static final int MAX_TIME_OFFSET = 64;
    public static final int XOR_STATE_OFFSET = 72;
    public static final int FLAGS_OFFSET = 112;
    public static final int STRIDE = 128;

    public static final int FLAG_EVICTED = 1;

    public static final int CLOSED_ENTRY_BYTES = 32;
    public static final int CLOSED_ENTRY_HANDLE = 0;
    public static final int CLOSED_ENTRY_MIN_TIME = 8;
    public static final int CLOSED_ENTRY_MAX_TIME = 16;
    public static final int CLOSED_ENTRY_FILE_REF = 24;

    public static final long NO_SAMPLES = Long.MIN_VALUE;

    static {
        if (XOR_STATE_OFFSET + XorStateDescriptor.SIZE > STRIDE || XOR_STATE_OFFSET % XorStateDescriptor.ALIGNMENT != 0) {
            throw new ExceptionInInitializerError("series struct layout does not fit the XOR state");
        }
    }

    private SeriesDescriptor() {
    }
}
