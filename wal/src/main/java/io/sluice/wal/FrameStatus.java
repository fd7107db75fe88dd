package io.sluice.wal;

/** What {@link MappedSegment#check(int)} found at an offset. Enum constants: returning one never allocates. */
enum FrameStatus {
    /** A complete caller record whose checksum matches. */
    RECORD,
    /** A complete end-of-segment marker: the log continues in the next segment. */
    END_OF_SEGMENT,
    /** Frame length 0 under an all-zero header: no record here (yet). */
    EMPTY,
    /** The frame length is impossible (see {@link CorruptionReason#BAD_LENGTH}). */
    BAD_LENGTH,
    /** The mapped file ends inside the frame. */
    PAST_END,
    /** Complete, but the checksum does not match. */
    BAD_CRC
}
