package io.sluice.core.head.records;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Encodes one float64 sample value against the previous value of the same series, bit-exactly
 * (NaN payloads, -0.0, the stale marker all survive).
 *
 * <pre>
 *  control byte   what follows                          value
 *  0x00           nothing                                 same bits as the previous value
 *  0xLN (L 0..7,  N bytes, big-endian                     prev XOR (bytes << 8*(8-L-N)):
 *       N 1..8,                                           L leading and 8-L-N trailing zero
 *       L+N <= 8)                                         bytes of the XOR are not stored
 *  0x8K (K 0..9)  zig-zag varint m, |m| <= 2^53           (double) m / 10^K
 * </pre>
 *
 * <p>Why the decimal form: metrics are very often decimals with a few places (12.5, 0.93, 1043),
 * whose float64 bits XOR badly against each other (5–7 bytes) but whose scaled integer fits in
 * 1–4 bytes. The encoder uses it only when decoding reproduces the exact bits, so it is lossless
 * by construction; decoding is one int-to-double conversion and one division (IEEE 754, so every
 * JVM computes the same bits).
 */
public final class ValueCodec {
    /** Worst-case encoded size: control byte + 9 varint bytes (|m| <= 2^53 zig-zags into 54 bits = 8 bytes; XOR 8). */
    public static final int MAX_BYTES = 10;

    static final int SAME = 0x00;
    static final int DECIMAL = 0x80;
    static final int MAX_DECIMAL_PLACES = 9;
    /** The decimal form is tried only when the XOR form needs at least this many bytes (it costs a few divisions). */
    private static final int DECIMAL_WORTH_TRYING_BYTES = 4;
    private static final double MAX_EXACT = 0x1p53;
    static final double[] POW10 = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
    /**
     * For each XOR control byte 0xLN (index 0..0x7F): {@code (8-N)*8 | (8-L-N)*8 << 8}, the shifts
     * that place an 8-byte big-endian load of the N payload bytes in the XOR ({@link #xorFromLoad});
     * -1 for a malformed control byte (N = 0, L + N > 8). A table instead of arithmetic and two
     * range checks per value in {@link SamplesRecord.Decoder}'s loop.
     */
    static final int[] XOR_SHIFTS = xorShifts();
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    private ValueCodec() {
    }

    /** Writes {@code bits} at {@code offset} relative to {@code previousBits}; returns the offset after it. */
    public static long write(MemorySegment segment, long offset, long bits, long previousBits) {
        long xor = bits ^ previousBits;
        if (xor == 0) {
            segment.set(BYTE, offset, (byte) SAME);
            return offset + 1;
        }
        int leading = Long.numberOfLeadingZeros(xor) >>> 3;
        int trailing = Long.numberOfTrailingZeros(xor) >>> 3;
        int significant = 8 - leading - trailing;
        if (significant >= DECIMAL_WORTH_TRYING_BYTES) {
            long written = writeDecimal(segment, offset, bits, significant + 1);
            if (written > 0) {
                return written;
            }
        }
        segment.set(BYTE, offset++, (byte) ((leading << 4) | significant));
        long payload = xor >>> (trailing << 3);
        for (int shift = (significant - 1) << 3; shift >= 0; shift -= 8) {
            segment.set(BYTE, offset++, (byte) (payload >>> shift));
        }
        return offset;
    }

    /** Writes the decimal form if it reproduces {@code bits} exactly and is shorter than {@code budget}; else returns -1. */
    private static long writeDecimal(MemorySegment segment, long offset, long bits, int budget) {
        double value = Double.longBitsToDouble(bits);
        for (int places = 0; places <= MAX_DECIMAL_PLACES; places++) {
            double scaled = Math.rint(value * POW10[places]);
            if (!(Math.abs(scaled) <= MAX_EXACT)) {
                return -1; // NaN, infinite, or too many digits for a lossless long
            }
            long m = (long) scaled;
            if (Double.doubleToRawLongBits(m / POW10[places]) == bits) {
                long zz = Varint.zigZag(m);
                if (1 + Varint.sizeUnsigned(zz) >= budget) {
                    return -1;
                }
                segment.set(BYTE, offset, (byte) (DECIMAL | places));
                return Varint.writeUnsigned(segment, offset + 1, zz);
            }
        }
        return -1;
    }

    private static int[] xorShifts() {
        int[] shifts = new int[0x80];
        for (int control = 0; control < shifts.length; control++) {
            int leading = control >>> 4;
            int significant = control & 0x0F;
            shifts[control] = significant == 0 || leading + significant > 8 ? -1
                    : ((8 - significant) << 3) | (((8 - leading - significant) << 3) << 8);
        }
        return shifts;
    }

    /** The XOR of an XOR-form value from the 8 bytes loaded big-endian at its payload, and its {@link #XOR_SHIFTS} entry. */
    static long xorFromLoad(long load, int shifts) {
        return (load >>> (shifts & 0xFF)) << (shifts >>> 8);
    }

    /** Reads a value written by {@link #write}; on malformed input marks the cursor and returns 0. */
    public static long read(RecordCursor cursor, long previousBits) {
        int control = cursor.readUnsignedByte();
        if (control == SAME) {
            return previousBits;
        }
        if ((control & 0x80) != 0) {
            int places = control & 0x7F;
            long m = cursor.readSigned();
            if (places > MAX_DECIMAL_PLACES || Math.abs(m) > (1L << 53)) {
                cursor.markMalformed();
                return 0;
            }
            return Double.doubleToRawLongBits(m / POW10[places]);
        }
        int leading = control >>> 4;
        int significant = control & 0x0F;
        if (significant == 0 || leading + significant > 8) {
            cursor.markMalformed();
            return 0;
        }
        long payload = cursor.readBigEndian(significant);
        return previousBits ^ (payload << ((8 - leading - significant) << 3));
    }
}
