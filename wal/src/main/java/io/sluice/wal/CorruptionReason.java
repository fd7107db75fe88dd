package io.sluice.wal;

/**
 * Why the valid log ended before the data did. The byte-level definitions are in
 * docs/format/wal.md ("Damage and repair").
 */
public enum CorruptionReason {
    /**
     * The last record of the log is incomplete: the segment file ends inside it, or its checksum
     * fails and only zeros follow it in the last segment (a write cut short by a crash).
     */
    TORN_RECORD,
    /** A record's checksum does not match its bytes, and more data follows it. */
    BAD_CRC,
    /**
     * A record's length field is impossible: below the header size, negative, reaching past the
     * end of the segment, or zero under a non-zero header.
     */
    BAD_LENGTH,
    /**
     * Zeros where a record or the end-of-segment marker must be: a zero length followed by
     * non-zero bytes later in the segment (e.g. a page that never reached the disk), or a segment
     * that is not the last and ends without its end-of-segment marker.
     */
    ZEROED_REGION,
    /** The segment file is shorter than its header declares and ends between records. */
    TRUNCATED_SEGMENT,
    /** A segment index is absent between two segments that exist. */
    MISSING_SEGMENT,
    /**
     * The segment header is unreadable: file shorter than the header, wrong magic, header checksum
     * mismatch, or an index or size that does not match the file.
     */
    BAD_HEADER
}
