package io.sluice.wal;

/**
 * A position in the log, packed in a {@code long} so that passing it around never allocates:
 * the segment index in the high 32 bits, the byte offset inside that segment file in the low 32.
 *
 * <p>Segment indexes and offsets are non-negative ints, so packed positions compare with plain
 * {@code <} in log order. A position returned by the WAL is always a record boundary: the start
 * of a record, or the end of the last one (where the next will start).
 */
public final class WalPosition {
    /** Not a position: what {@link WalReader#position()} says before the first record. */
    public static final long NONE = -1L;

    private WalPosition() {
    }

    /** Packs a segment index and a byte offset inside that segment. */
    public static long of(int segment, int offset) {
        if (segment < 0 || offset < 0) {
            throw new IllegalArgumentException("segment and offset must be >= 0: " + segment + ":" + offset);
        }
        return ((long) segment << 32) | offset;
    }

    /** The segment index of a packed position. */
    public static int segment(long position) {
        return (int) (position >>> 32);
    }

    /** The byte offset inside its segment of a packed position. */
    public static int offset(long position) {
        return (int) position;
    }

    /** "segment:offset", for messages and reports (allocates: not for hot paths). */
    public static String toString(long position) {
        return position == NONE ? "none" : segment(position) + ":" + offset(position);
    }
}
