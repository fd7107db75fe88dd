package io.sluice.wal;

/**
 * How far open's scan checked each segment's frames (lengths and CRCs) in this process, so a reader
 * of the same {@link Wal} need not check those frames again (docs/format/wal.md, "Reading"): once
 * it has checked one frame of a segment in full (which puts it on the chain of frames the scan
 * walked), {@link WalReader#next()} takes the frames starting below the verified end as they are.
 *
 * <p>Why this is safe: a verified frame lies below the end of the valid log open found; the writer
 * only ever writes past that end, repair only zeroes past it, and no other process may write the
 * directory while this one holds its lock. The bytes a reader sees there are the bytes the scan
 * checked moments before (the page cache's, or the same disk blocks read again). Frames written
 * after open, segments open did not read ({@link Wal#open(WalOptions, long)}) and readers opened
 * on a bare directory ({@link WalReader#open}) are checked as always.
 *
 * <p>Immutable after open; any thread.
 */
final class VerifiedFrames {
    /** Nothing verified: every frame is checked. */
    static final VerifiedFrames NONE = new VerifiedFrames(0, new int[0]);
    /** A reader of a bare directory: no open scanned it (verifies nothing, like NONE, but says no open ran). */
    static final VerifiedFrames UNKNOWN = new VerifiedFrames(0, new int[0]);

    private final int firstIndex;
    /** {@code endOffsets[i]}: the frames of segment {@code firstIndex + i} below it were verified (the end marker is not). */
    private final int[] endOffsets;

    VerifiedFrames(int firstIndex, int[] endOffsets) {
        this.firstIndex = firstIndex;
        this.endOffsets = endOffsets;
    }

    /** The frames of segment {@code index} starting below this offset were verified by open; 0 if none. */
    int endOffset(int index) {
        long i = (long) index - firstIndex;
        return i >= 0 && i < endOffsets.length ? endOffsets[(int) i] : 0;
    }
}
