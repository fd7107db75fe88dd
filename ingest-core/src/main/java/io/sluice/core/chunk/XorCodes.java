package io.sluice.core.chunk;

/**
 * The code primitives of {@link XorAppender}'s run loop: packing codes into 64-bit words, unsigned
 * varints, and the delta-of-delta timestamp codes (Prometheus' XOR chunk encoding, bit for bit).
 * Stateless; the caller owns the word array. Any thread.
 */
final class XorCodes {
    private XorCodes() {
    }

    /**
     * Adds the low {@code bits} bits of {@code value} (1..64, no higher bits set) at bit {@code rel} of
     * the 64-bit word being filled ({@code pending}, which holds bits [rel & ~63, rel)); when it fills
     * up, stores it byte-reversed (the appender copies them as little-endian longs) at {@code words[rel >>> 6]}.
     * Returns the new pending word.
     */
    static long putWord(long[] words, long pending, int rel, long value, int bits) {
        final int free = Long.SIZE - (rel & 63);
        if (bits < free) {
            return pending | (value << (free - bits));
        }
        final int rest = bits - free;
        words[rel >>> 6] = Long.reverseBytes(pending | (value >>> rest));
        return rest == 0 ? 0L : value << (Long.SIZE - rest);
    }

    /** {@link #putWord} of {@code value} as an unsigned LEB128 varint (Go's binary.PutUvarint): {@link #varintBits} bits. */
    static long putVarintWord(long[] words, long pending, int rel, long value) {
        long rest = value;
        long p = pending;
        int at = rel;
        while ((rest & ~0x7FL) != 0) {
            p = putWord(words, p, at, (rest & 0x7F) | 0x80, Byte.SIZE);
            at += Byte.SIZE;
            rest >>>= 7;
        }
        return putWord(words, p, at, rest, Byte.SIZE);
    }

    /** Bits of {@code value} as an unsigned varint: 8 per 7 significant bits, at least 8. */
    static int varintBits(long value) {
        return Byte.SIZE * Math.max(1, (Long.SIZE - Long.numberOfLeadingZeros(value) + 6) / 7);
    }

    /**
     * The timestamp code of a delta of delta packed as {@code (code << 8) | bits} for the short forms
     * (at most 24 bits); 0 for the 64-bit escape ('1111' + 64 bits), written in two parts.
     */
    static long dodCode(long dod) {
        if (dod == 0) {
            return 1L;
        } else if (fitsBits(dod, 14)) {
            return (((0b10L << 14) | (dod & 0x3FFFL)) << 8) | 16;
        } else if (fitsBits(dod, 17)) {
            return (((0b110L << 17) | (dod & 0x1FFFFL)) << 8) | 20;
        } else if (fitsBits(dod, 20)) {
            return (((0b1110L << 20) | (dod & 0xFFFFFL)) << 8) | 24;
        }
        return 0L;
    }

    /** Prometheus' bitRange: -(2^(n-1) - 1) <= x <= 2^(n-1). */
    static boolean fitsBits(long x, int bits) {
        long half = 1L << (bits - 1);
        return -(half - 1) <= x && x <= half;
    }
}
