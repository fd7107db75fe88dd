package io.sluice.server.format.otlp;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.WireReader;
import java.util.Arrays;

/**
 * Reads OTLP {@code KeyValue} attributes and adds them to {@link OtlpLabels} with Prometheus label
 * names: a key that is already a clean label name is used where it lies, another is sanitized into an
 * arena; a key that sanitizes to nothing is dropped and counted. Values become text through
 * {@link AnyValueText}.
 *
 * <p>Not thread-safe; owned by one decoder.
 */
final class OtlpAttributes {
    private final AnyValueText text;
    private final KeyValueSpans spans = new KeyValueSpans();
    private byte[] keyBuf = new byte[0];
    private byte[] valueBuf = new byte[0];
    private int valueOff;
    private int valueLen;
    /** Keys dropped since the last {@link #resetCount()}, because nothing of them is a valid label name. */
    private int keysDropped;

    OtlpAttributes(FloatText floats) {
        this.text = new AnyValueText(floats);
    }

    /** Reads the KeyValue filling {@code in}; its value's text, unless a string, is appended to {@code arena}. */
    void read(WireReader in, ByteWriter arena) throws PayloadException {
        int end = in.limit();
        keyBuf = in.buffer();
        spans.read(in);
        if (spans.valueOffset < 0) {
            valueBuf = arena.buffer();
            valueOff = arena.length();
            valueLen = 0;
        } else {
            in.position(spans.valueOffset);
            int outer = in.pushLimit(spans.valueLength);
            text.read(in, arena);
            in.popLimit(outer);
            valueBuf = text.buffer();
            valueOff = text.offset();
            valueLen = text.length();
        }
        in.position(end);
    }

    boolean keyEquals(byte[] key) {
        return Arrays.equals(keyBuf, spans.keyOffset, spans.keyOffset + spans.keyLength, key, 0, key.length);
    }

    byte[] valueBuffer() {
        return valueBuf;
    }

    int valueOffset() {
        return valueOff;
    }

    int valueLength() {
        return valueLen;
    }

    /**
     * Adds the attribute just read to {@code labels}, its key sanitized (into {@code arena} when it must
     * change) after {@code prefix} (null for none). Returns false when the key was dropped.
     */
    boolean addTo(OtlpLabels labels, ByteWriter arena, byte[] prefix) {
        byte[] key = keyBuf;
        int kOff = spans.keyOffset;
        int kLen = spans.keyLength;
        if (prefix != null) {
            kOff = arena.length();
            arena.writeBytes(prefix, 0, prefix.length);
            arena.writeBytes(keyBuf, spans.keyOffset, spans.keyLength);
            key = arena.buffer();
            kLen = arena.length() - kOff;
        }
        if (PrometheusNames.isCleanLabelName(key, kOff, kLen)) {
            labels.add(key, kOff, kLen, valueBuf, valueOff, valueLen, key, kOff, kLen);
            return true;
        }
        int nameOff = arena.length();
        if (!PrometheusNames.labelName(key, kOff, kLen, arena)) {
            keysDropped++;
            return false;
        }
        labels.add(arena.buffer(), nameOff, arena.length() - nameOff, valueBuf, valueOff, valueLen, key, kOff, kLen);
        return true;
    }

    int keysDropped() {
        return keysDropped;
    }

    void resetCount() {
        keysDropped = 0;
    }
}
