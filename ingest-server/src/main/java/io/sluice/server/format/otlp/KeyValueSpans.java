package io.sluice.server.format.otlp;

import static io.sluice.server.format.ProtoWire.LEN;
import static io.sluice.server.format.ProtoWire.expectWireType;
import static io.sluice.server.format.ProtoWire.fieldNumber;
import static io.sluice.server.format.ProtoWire.readTag;
import static io.sluice.server.format.ProtoWire.skipField;

import io.sluice.server.format.PayloadException;
import io.sluice.server.format.WireReader;

/**
 * Where the key and the value of an OTLP {@code KeyValue} lie in the reader's buffer: the one reading
 * of that message, for attributes ({@link OtlpAttributes}) and key-value lists ({@link AnyValueText}).
 * Of a field sent twice, the last counts. Reusable; not thread-safe.
 */
final class KeyValueSpans {
    int keyOffset;
    /** 0 when the key is missing (the empty string). */
    int keyLength;
    /** -1 when the value is missing. */
    int valueOffset;
    int valueLength;

    /** Reads the KeyValue filling {@code in}, leaving {@code in} at its end. */
    void read(WireReader in) throws PayloadException {
        keyOffset = in.position();
        keyLength = 0;
        valueOffset = -1;
        valueLength = 0;
        while (in.hasRemaining()) {
            int tagPos = in.position();
            int tag = readTag(in, "KeyValue");
            int field = fieldNumber(tag);
            if (field != OtlpSchema.KEY_VALUE_KEY && field != OtlpSchema.KEY_VALUE_VALUE) {
                skipField(in, tag, tagPos, "KeyValue");
                continue;
            }
            expectWireType(in, tag, LEN, tagPos, field == OtlpSchema.KEY_VALUE_KEY ? "KeyValue.key" : "KeyValue.value");
            int len = in.readLength("KeyValue");
            if (field == OtlpSchema.KEY_VALUE_KEY) {
                keyOffset = in.position();
                keyLength = len;
            } else {
                valueOffset = in.position();
                valueLength = len;
            }
            in.skip(len, "KeyValue");
        }
    }
}
