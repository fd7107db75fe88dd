package io.sluice.core.labels;

import static org.assertj.core.api.Assertions.assertThat;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MurmurHash3Test {
    private static final long SEED = 0x5EEDL;
    private static final Hasher128 REFERENCE = Hashing.murmur3_128();

    @Test
    void matchesHash4jOnEveryLengthUpTo300AtRandomOffsets() {
        Random random = new Random(SEED);
        for (int len = 0; len <= 300; len++) {
            for (int round = 0; round < 8; round++) {
                int off = random.nextInt(17);
                byte[] b = new byte[off + len + random.nextInt(5)];
                random.nextBytes(b);
                long expected = REFERENCE.hashBytesTo128Bits(b, off, len).getLeastSignificantBits();
                assertThat(MurmurHash3.hash64(b, off, len))
                        .as("seed %d, len %d, off %d", SEED, len, off).isEqualTo(expected);
            }
        }
    }

    @Test
    void memorySegmentVariantMatchesOnHeapAndOffHeap() {
        Random random = new Random(SEED + 1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nativeSegment = arena.allocate(400);
            for (int len = 0; len <= 300; len++) {
                int off = random.nextInt(50);
                byte[] b = new byte[400];
                random.nextBytes(b);
                MemorySegment.copy(b, 0, nativeSegment, ValueLayout.JAVA_BYTE, 0, b.length);
                long expected = REFERENCE.hashBytesTo128Bits(b, off, len).getLeastSignificantBits();
                assertThat(MurmurHash3.hash64(nativeSegment, off, len)).as("seed %d, len %d", SEED + 1, len)
                        .isEqualTo(expected);
                assertThat(MurmurHash3.hash64(MemorySegment.ofArray(b), off, len)).isEqualTo(expected);
            }
        }
    }

    @Test
    void fullOutputWithSeedsMatchesHash4j() {
        Random random = new Random(SEED + 2);
        long[] out = new long[2];
        for (int len = 0; len <= 64; len++) {
            int seed = random.nextInt();
            byte[] b = new byte[len];
            random.nextBytes(b);
            HashValue128 expected = Hashing.murmur3_128(seed).hashBytesTo128Bits(b);
            MurmurHash3.hash128(b, 0, len, Integer.toUnsignedLong(seed), out);
            assertThat(out[0]).as("h1, len %d, seed %d", len, seed).isEqualTo(expected.getLeastSignificantBits());
            assertThat(out[1]).as("h2, len %d, seed %d", len, seed).isEqualTo(expected.getMostSignificantBits());
        }
    }

    /**
     * SMHasher's VerificationTest: hash key[0..i) (key[j] = j) with seed 256 - i for i in 0..255,
     * concatenate the 16-byte outputs (h1 then h2, little-endian), hash that with seed 0; the first
     * four bytes, little-endian, are 0x6384BA69 for MurmurHash3_x64_128.
     */
    @Test
    void smhasherVerificationValue() {
        byte[] key = new byte[256];
        ByteBuffer hashes = ByteBuffer.allocate(256 * 16).order(ByteOrder.LITTLE_ENDIAN);
        long[] out = new long[2];
        for (int i = 0; i < 256; i++) {
            key[i] = (byte) i;
            MurmurHash3.hash128(key, 0, i, 256 - i, out);
            hashes.putLong(out[0]).putLong(out[1]);
        }
        long h1 = MurmurHash3.hash128(hashes.array(), 0, hashes.capacity(), 0, out);
        assertThat((int) h1).isEqualTo(0x6384BA69);
        assertThat(MurmurHash3.hash64(hashes.array(), 0, hashes.capacity())).isEqualTo(h1);
    }

    @Test
    void knownVectors() {
        assertThat(MurmurHash3.hash64(new byte[0], 0, 0)).isZero();
        byte[] hello = "hello".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(MurmurHash3.hash64(hello, 0, hello.length))
                .isEqualTo(REFERENCE.hashBytesTo128Bits(hello).getLeastSignificantBits())
                .isNotZero();
    }
}
