package io.sluice.core.labels;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * MurmurHash3 x64_128 (Austin Appleby's reference {@code MurmurHash3_x64_128}, SMHasher), seed 0,
 * returning the low 64 bits: {@code h1} of the reference output, which is also the first eight
 * output bytes read little-endian. This is the series hash (docs/design/README.md, "Data model"): it picks the shard and keys
 * the series map, so its value is part of the on-disk and wire contracts and must never change.
 *
 * <p>Zero allocation: blocks are read as little-endian longs through a byte-array view
 * {@link VarHandle} (bounds-checked, intrinsified by C2) or a {@link MemorySegment} accessor.
 * Verified against hash4j's {@code Hashing.murmur3_128()} for every length 0..300 and against
 * SMHasher's verification value 0x6384BA69 (MurmurHash3Test).
 */
public final class MurmurHash3 {
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;
    private static final int BLOCK_BYTES = 16;

    private static final VarHandle LONG_LE =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong SEGMENT_LONG_LE =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private MurmurHash3() {
    }

    /** The series hash of {@code b[off, off + len)}: seed 0, low 64 bits. */
    public static long hash64(byte[] b, int off, int len) {
        return hash(b, off, len, 0L, null);
    }

    /** The series hash of {@code segment[off, off + len)}: seed 0, low 64 bits. */
    public static long hash64(MemorySegment segment, long off, long len) {
        Objects.checkFromIndexSize(off, len, segment.byteSize());
        long h1 = 0;
        long h2 = 0;
        long end = off + (len & ~(BLOCK_BYTES - 1));
        for (long p = off; p < end; p += BLOCK_BYTES) {
            h1 = roundH1(h1 ^ mixK1(segment.get(SEGMENT_LONG_LE, p)), h2);
            h2 = roundH2(h2 ^ mixK2(segment.get(SEGMENT_LONG_LE, p + 8)), h1);
        }
        int tail = (int) (len & (BLOCK_BYTES - 1));
        if (tail > 8) {
            h2 ^= mixK2(segmentTail(segment, end + 8, tail - 8));
        }
        if (tail > 0) {
            h1 ^= mixK1(segmentTail(segment, end, Math.min(tail, 8)));
        }
        return finish(h1, h2, len, null);
    }

    /**
     * The full 128-bit hash with any seed, for verification against the reference: writes
     * {@code h1} to {@code out[0]} and {@code h2} to {@code out[1]} and returns {@code h1}.
     */
    static long hash128(byte[] b, int off, int len, long seed, long[] out) {
        return hash(b, off, len, seed, out);
    }

    /** {@code h2Out} is null on the hot path; C2 folds the check away after inlining. */
    private static long hash(byte[] b, int off, int len, long seed, long[] h2Out) {
        Objects.checkFromIndexSize(off, len, b.length);
        long h1 = seed;
        long h2 = seed;
        int end = off + (len & ~(BLOCK_BYTES - 1));
        for (int p = off; p < end; p += BLOCK_BYTES) {
            h1 = roundH1(h1 ^ mixK1((long) LONG_LE.get(b, p)), h2);
            h2 = roundH2(h2 ^ mixK2((long) LONG_LE.get(b, p + 8)), h1);
        }
        int tail = len & (BLOCK_BYTES - 1);
        if (tail > 8) {
            h2 ^= mixK2(arrayTail(b, end + 8, tail - 8));
        }
        if (tail > 0) {
            h1 ^= mixK1(arrayTail(b, end, Math.min(tail, 8)));
        }
        return finish(h1, h2, len, h2Out);
    }

    private static long finish(long h1, long h2, long len, long[] out) {
        h1 ^= len;
        h2 ^= len;
        h1 += h2;
        h2 += h1;
        h1 = fmix64(h1);
        h2 = fmix64(h2);
        h1 += h2;
        if (out != null) {
            out[0] = h1;
            out[1] = h2 + h1;
        }
        return h1;
    }

    /** Up to eight bytes, little-endian, zero-extended: the reference's switch fall-through. */
    private static long arrayTail(byte[] b, int from, int count) {
        long k = 0;
        for (int i = count - 1; i >= 0; i--) {
            k = (k << 8) | (b[from + i] & 0xFFL);
        }
        return k;
    }

    private static long segmentTail(MemorySegment segment, long from, int count) {
        long k = 0;
        for (int i = count - 1; i >= 0; i--) {
            k = (k << 8) | (segment.get(ValueLayout.JAVA_BYTE, from + i) & 0xFFL);
        }
        return k;
    }

    private static long mixK1(long k1) {
        return Long.rotateLeft(k1 * C1, 31) * C2;
    }

    private static long mixK2(long k2) {
        return Long.rotateLeft(k2 * C2, 33) * C1;
    }

    private static long roundH1(long h1, long h2) {
        return (Long.rotateLeft(h1, 27) + h2) * 5 + 0x52dce729;
    }

    private static long roundH2(long h2, long h1) {
        return (Long.rotateLeft(h2, 31) + h1) * 5 + 0x38495ab5;
    }

    private static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
