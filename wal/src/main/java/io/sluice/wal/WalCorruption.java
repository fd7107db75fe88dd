package io.sluice.wal;

/**
 * The first damage found in a log: where the valid log ends and why.
 *
 * @param segment       index of the damaged (or missing) segment
 * @param offset        byte offset in that segment where the valid log ends: the start of the
 *                      first bad record, or 0 for a bad header or a missing segment
 * @param reason        what was wrong
 * @param bytesCut      bytes of that segment from {@code offset} to its last non-zero byte: the
 *                      data that was (or, when only inspecting, would be) discarded in it
 * @param laterSegments how many segments after the damaged one were (or would be) deleted
 * @param detail        the values seen, e.g. "length 70000 > 65504 bytes left" (for logs)
 */
public record WalCorruption(int segment, int offset, CorruptionReason reason, long bytesCut, int laterSegments,
                            String detail) {

    /** The packed position where the valid log ends. */
    public long position() {
        return WalPosition.of(segment, offset);
    }

    @Override
    public String toString() {
        return reason + " at " + segment + ":" + offset + " (" + detail + "), " + bytesCut + " bytes cut, "
                + laterSegments + " later segment(s) dropped";
    }
}
