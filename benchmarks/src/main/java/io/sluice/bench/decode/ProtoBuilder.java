package io.sluice.bench.decode;

import io.sluice.server.format.ByteWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes protobuf messages field by field for the benchmark payloads (the benchmarks do not depend on
 * protobuf-java): varints, fixed 64-bit fields, strings and nested messages. Setup code only.
 */
final class ProtoBuilder {
    private static final int VARINT = 0;
    private static final int I64 = 1;
    private static final int LEN = 2;

    private final ByteWriter out = new ByteWriter(256);

    ProtoBuilder varint(int field, long value) {
        out.writeVarint(field << 3 | VARINT);
        out.writeVarint(value);
        return this;
    }

    ProtoBuilder fixed64(int field, long value) {
        out.writeVarint(field << 3 | I64);
        out.writeLongLE(value);
        return this;
    }

    ProtoBuilder float64(int field, double value) {
        return fixed64(field, Double.doubleToRawLongBits(value));
    }

    ProtoBuilder bytes(int field, byte[] value) {
        out.writeVarint(field << 3 | LEN);
        out.writeVarint(value.length);
        out.writeBytes(value, 0, value.length);
        return this;
    }

    ProtoBuilder string(int field, String value) {
        return bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    ProtoBuilder message(int field, ProtoBuilder message) {
        return bytes(field, message.toByteArray());
    }

    /** A packed repeated varint field. */
    ProtoBuilder packed(int field, int[] values) {
        ByteWriter body = new ByteWriter(values.length * 2);
        for (int v : values) {
            body.writeVarint(v);
        }
        return bytes(field, Arrays.copyOf(body.buffer(), body.length()));
    }

    byte[] toByteArray() {
        return Arrays.copyOf(out.buffer(), out.length());
    }
}
