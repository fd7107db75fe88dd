package io.sluice.promql.labels;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Prometheus' {@code labels.Hash()} of a label set, where a result depends on it: {@code limit_ratio}
 * keeps a series when {@code hash / 2^64} is below the ratio (or, for a negative ratio, at or above
 * {@code 1 + ratio}), so the same ratio must keep the same series as Prometheus. Prometheus' default
 * label representation ({@code stringlabels}) hashes its encoded form with XXH64 (seed 0): for each label
 * in name order, the name's UTF-8 length and bytes, then the value's; a length under 255 is one byte,
 * longer ones are {@code 0xff} and three bytes little-endian.
 */
public final class LabelsHash {
    private static final Hasher64 XXH64 = Hashing.xxh64();

    private LabelsHash() {
    }

    /** The 64-bit hash Prometheus computes for {@code labels} (an unsigned value in a {@code long}). */
    public static long hash(Labels labels) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        for (int i = 0; i < labels.size(); i++) {
            append(out, labels.name(i));
            append(out, labels.value(i));
        }
        return XXH64.hashBytesToLong(out.toByteArray());
    }

    /** {@code float64(hash) / float64(math.MaxUint64)}: the series' place in [0, 1] for {@code limit_ratio}. */
    public static double sampleOffset(Labels labels) {
        return unsignedToDouble(hash(labels)) / 0x1.0p64;
    }

    /** An unsigned 64-bit value as the nearest double (Go's {@code float64(uint64)}). */
    static double unsignedToDouble(long v) {
        if (v >= 0) {
            return v;
        }
        // Halve keeping the lowest bit as a sticky bit, so the one rounding is to nearest as for the full value.
        return (double) ((v >>> 1) | (v & 1)) * 2.0;
    }

    private static void append(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length < 255) {
            out.write(b.length);
        } else {
            out.write(255);
            out.write(b.length);
            out.write(b.length >>> 8);
            out.write(b.length >>> 16);
        }
        out.write(b, 0, b.length);
    }
}
