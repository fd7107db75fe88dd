package io.sluice.core.head.replay;

import io.sluice.wal.WalPosition;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * How far one shard has replayed its WAL, in WAL bytes: the range [first, end) the replay covers
 * is fixed when it starts; the position advances record by record.
 *
 * <p>Threads: the shard thread writes (begin, advance, finish), any thread reads (metrics, the
 * progress log, readiness). Positions are published with release stores, so a reader never sees a
 * position before the range it belongs to.
 *
 * <p>Bytes between two positions count whole segments as {@code segmentBytes} each (segments are
 * preallocated to that size; the last is counted up to its end position), so the ratio is that of
 * WAL bytes read, headers and padding included.
 */
public final class ReplayProgress {
    private static final VarHandle POSITION;

    static {
        try {
            POSITION = MethodHandles.lookup().findVarHandle(ReplayProgress.class, "position", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long segmentBytes;
    private volatile long firstPosition = WalPosition.NONE; // set once by begin()
    private volatile long endPosition = WalPosition.NONE;   // set once by begin()
    @SuppressWarnings("unused") // written through POSITION
    private long position = WalPosition.NONE;
    private volatile boolean done;

    public ReplayProgress(long segmentBytes) {
        this.segmentBytes = segmentBytes;
    }

    /** Shard thread: replay will read from {@code first} up to {@code end} (the WAL's written end). */
    void begin(long first, long end) {
        POSITION.setRelease(this, first);
        endPosition = end;
        firstPosition = first;
    }

    /** Shard thread: everything before {@code nextPosition} has been replayed. */
    void advance(long nextPosition) {
        POSITION.setRelease(this, nextPosition);
    }

    /** Shard thread: replay is over (whatever the position says, e.g. after a damaged tail). */
    void finish() {
        done = true;
    }

    /** WAL bytes this replay covers; 0 until it started. Any thread. */
    public long totalBytes() {
        long first = firstPosition;
        return first == WalPosition.NONE ? 0 : bytesBetween(first, endPosition);
    }

    /** WAL bytes replayed so far, at most {@link #totalBytes()}. Any thread. */
    public long replayedBytes() {
        long first = firstPosition;
        if (first == WalPosition.NONE) {
            return 0;
        }
        if (done) {
            return totalBytes();
        }
        long at = (long) POSITION.getAcquire(this);
        return Math.min(bytesBetween(first, at), totalBytes());
    }

    /** True once the shard finished replaying. Any thread. */
    public boolean isDone() {
        return done;
    }

    private long bytesBetween(long from, long to) {
        if (to <= from) {
            return 0;
        }
        long segments = WalPosition.segment(to) - (long) WalPosition.segment(from);
        return segments * segmentBytes + WalPosition.offset(to) - WalPosition.offset(from);
    }
}
