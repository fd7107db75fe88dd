package io.sluice.server.format;

import io.sluice.server.format.PayloadException.Reason;

/**
 * Protobuf wire-format rules shared by the protobuf readers and writers (remote-write 1.0 and 2.0,
 * OTLP): wire types, tags, and skipping a field of any wire type (groups included, nested at most
 * {@value #MAX_GROUP_DEPTH} deep, protobuf-java's default recursion limit).
 */
public final class ProtoWire {
    public static final int VARINT = 0;
    public static final int I64 = 1;
    public static final int LEN = 2;
    public static final int START_GROUP = 3;
    public static final int END_GROUP = 4;
    public static final int I32 = 5;
    public static final int MAX_GROUP_DEPTH = 100;

    private static final String[] WIRE_TYPE_NAMES = {"VARINT", "I64", "LEN", "SGROUP", "EGROUP", "I32", "6", "7"};

    private ProtoWire() {
    }

    public static int tag(int fieldNumber, int wireType) {
        return fieldNumber << 3 | wireType;
    }

    public static int fieldNumber(int tag) {
        return tag >>> 3;
    }

    public static int wireType(int tag) {
        return tag & 7;
    }

    /** Reads a tag: a varint below 2^32 whose field number is not 0. */
    public static int readTag(WireReader in, String message) throws PayloadException {
        int tagPos = in.position();
        long tag = in.readVarint(message);
        if ((tag >>> 32) != 0 || (tag >>> 3) == 0) {
            throw in.error(Reason.BAD_PROTOBUF, tagPos, message + ": invalid tag " + Long.toUnsignedString(tag));
        }
        return (int) tag;
    }

    /** Rejects a known field sent with another wire type than its schema's (no silent default value). */
    public static void expectWireType(WireReader in, int tag, int wireType, int tagPos, String field) throws PayloadException {
        if (wireType(tag) != wireType) {
            throw in.error(Reason.BAD_PROTOBUF, tagPos, field + " (field " + fieldNumber(tag) + ") has wire type "
                    + WIRE_TYPE_NAMES[wireType(tag)] + ", expected " + WIRE_TYPE_NAMES[wireType]);
        }
    }

    /**
     * Skips the value of a field whose tag was just read, as its wire type says. {@code message} names
     * the enclosing message in errors; it must be a constant, as building a string would allocate.
     */
    public static void skipField(WireReader in, int tag, int tagPos, String message) throws PayloadException {
        skipField(in, tag, tagPos, message, 0);
    }

    private static void skipField(WireReader in, int tag, int tagPos, String message, int depth) throws PayloadException {
        switch (wireType(tag)) {
            case VARINT -> in.readVarint(message);
            case I64 -> in.skip(8, message);
            case I32 -> in.skip(4, message);
            case LEN -> in.skip(in.readLength(message), message);
            case START_GROUP -> skipGroup(in, fieldNumber(tag), tagPos, message, depth + 1);
            case END_GROUP -> throw in.error(Reason.BAD_PROTOBUF, tagPos,
                    message + ": end-group for field " + fieldNumber(tag) + " without its start-group");
            default -> throw in.error(Reason.BAD_PROTOBUF, tagPos,
                    message + ": invalid wire type " + wireType(tag) + " of field " + fieldNumber(tag));
        }
    }

    private static void skipGroup(WireReader in, int groupField, int groupPos, String message, int depth)
            throws PayloadException {
        if (depth > MAX_GROUP_DEPTH) {
            throw in.error(Reason.BAD_PROTOBUF, groupPos, message + ": groups nested deeper than " + MAX_GROUP_DEPTH);
        }
        while (true) {
            if (!in.hasRemaining()) {
                throw in.error(Reason.TRUNCATED, groupPos, message + ": group " + groupField + " has no end-group");
            }
            int tagPos = in.position();
            int tag = readTag(in, message);
            if (wireType(tag) == END_GROUP) {
                if (fieldNumber(tag) != groupField) {
                    throw in.error(Reason.BAD_PROTOBUF, tagPos, message + ": end-group " + fieldNumber(tag)
                            + " closes group " + groupField);
                }
                return;
            }
            skipField(in, tag, tagPos, message, depth);
        }
    }
}
