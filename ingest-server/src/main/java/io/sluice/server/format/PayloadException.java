package io.sluice.server.format;

/**
 * A record value that cannot be decoded: why ({@link Reason}, the {@code reason} label of
 * {@code sluice_records_rejected_total}), where (a byte position) and a readable message.
 *
 * <p>Created without a stack trace: the reason and position say all an operator needs, and a topic
 * full of bad records must be rejected at close to full decoding speed. A decoder bug surfaces as
 * an unchecked exception instead, which keeps its stack trace.
 */
public final class PayloadException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a record was rejected. {@link #label()} is the metric label value, stable across releases. */
    public enum Reason {
        /** The record has no value: 0 bytes or a null value (a tombstone). Nothing to decode in any format. */
        EMPTY("empty"),
        /** The value ends inside a field, or a length points past the end of its enclosing message. */
        TRUNCATED("truncated"),
        /** The record or its declared uncompressed size exceeds the configured limit. */
        TOO_LARGE("too_large"),
        /** The snappy block is malformed or decompresses to a size other than the declared one. */
        BAD_COMPRESSION("bad_compression"),
        /** Protobuf structure: an invalid tag, wire type or group, or a known field with a wrong wire type. */
        BAD_PROTOBUF("bad_protobuf"),
        /** A varint longer than 10 bytes or overflowing 64 bits. */
        BAD_VARINT("bad_varint"),
        /** The native batch does not start with its magic bytes. */
        BAD_MAGIC("bad_magic"),
        /**
         * A version this decoder does not read: a native batch version, a remote-write 2.0 payload read as
         * 1.0 or a 1.0 payload read as 2.0.
         */
        UNSUPPORTED_VERSION("unsupported_version"),
        /** The native batch header has unknown flags or non-zero reserved fields. */
        BAD_HEADER("bad_header"),
        /** The native batch's CRC32C does not match its body. */
        BAD_CHECKSUM("bad_checksum"),
        /** The native batch's body breaks a rule of the format: a series without samples, trailing bytes. */
        BAD_BATCH("bad_batch"),
        /** JSON syntax: not one well-formed JSON object (RFC 8259), or nested deeper than the decoder allows. */
        BAD_JSON("bad_json"),
        /**
         * Well-formed, but not the shape the format prescribes: a missing, repeated or mistyped JSON member, a
         * remote-write 2.0 symbol reference out of range or an odd number of label references, an OTLP
         * histogram whose bucket counts do not match its bounds.
         */
        BAD_SCHEMA("bad_schema"),
        /** A sample value or timestamp written as text that does not parse, or lies outside its range. */
        BAD_VALUE("bad_value"),
        /** Text that must be UTF-8 (JSON) is not: an ill-formed byte sequence or a lone surrogate escape. */
        INVALID_UTF8("invalid_utf8"),
        /** The record's Content-Type header names a media type or protobuf message the topic's format cannot read. */
        UNSUPPORTED_CONTENT_TYPE("unsupported_content_type");

        private final String label;

        Reason(String label) {
            this.label = label;
        }

        /** The value of the {@code reason} metric label, e.g. {@code "bad_magic"}. */
        public String label() {
            return label;
        }
    }

    private final Reason reason;
    private final long position;

    /**
     * @param position the byte offset of the fault from the start of {@code region}
     * @param region what the position counts in, e.g. "record" or "uncompressed WriteRequest"
     */
    public PayloadException(Reason reason, long position, String region, String detail) {
        super(reason.label() + " at byte " + position + " of the " + region + ": " + detail, null, false, false);
        this.reason = reason;
        this.position = position;
    }

    public Reason reason() {
        return reason;
    }

    /** The byte offset of the fault, counted in the region the message names. */
    public long position() {
        return position;
    }
}
