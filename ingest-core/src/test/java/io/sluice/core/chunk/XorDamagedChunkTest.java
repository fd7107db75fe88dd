package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.memory.MemoryAccounting;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Damaged bytes end iteration with an error state and the bit position, never an exception from
 * inside the decoder, never a loop: one case per kind of damage, then seeded garbage.
 */
class XorDamagedChunkTest {
    private final XorIterator iterator = new XorIterator();

    @Test
    void everyTruncationOfEveryGoldenChunkIsReportedTruncated() {
        for (GoldenVectors golden : GoldenVectors.load()) {
            for (int length = 0; length < golden.chunk().length; length++) {
                byte[] cut = Arrays.copyOf(golden.chunk(), length);
                iterator.reset(MemorySegment.ofArray(cut), 0, length, golden.size());
                int read = drain(golden, golden.size());
                assertThat(iterator.error()).as("%s cut at %d bytes", golden, length).isEqualTo(ChunkDecodeError.TRUNCATED);
                assertThat(read).as("%s cut at %d bytes", golden, length).isLessThan(golden.size());
                assertThat(iterator.errorBitPosition()).isGreaterThan(length * 8L - 64);
            }
        }
    }

    @Test
    void aCountAboveTheSamplesHeldIsTruncation() {
        GoldenVectors golden = GoldenVectors.load().get(2);
        byte[] chunk = golden.chunk().clone();
        int claimed = golden.size() + 40;
        chunk[0] = (byte) (claimed >>> 8);
        chunk[1] = (byte) claimed;
        iterator.reset(chunk);
        assertThat(drain(golden, claimed)).isGreaterThanOrEqualTo(golden.size());
        assertThat(iterator.error()).isEqualTo(ChunkDecodeError.TRUNCATED);
    }

    @Test
    void aValueWindowWiderThan64BitsIsMalformed() {
        // Sample 0: varint 0, value 0. Sample 1: uvarint 1, '11' new window, leading 31, 63 significant bits.
        byte[] chunk = HexFormat.of().parseHex("0002" + "00" + "0000000000000000" + "01" + "fff8" + "00".repeat(10));
        iterator.reset(chunk);
        assertThat(iterator.next()).isTrue();
        assertThat(iterator.next()).isFalse();
        assertThat(iterator.error()).isEqualTo(ChunkDecodeError.BAD_VALUE_WINDOW);
        assertThat(iterator.errorBitPosition()).isEqualTo((2 + 1 + 8 + 1) * 8L + 13);
    }

    @Test
    void overlongVarintsOverflow() {
        iterator.reset(HexFormat.of().parseHex("0001" + "ff".repeat(11)));
        assertThat(iterator.next()).isFalse();
        assertThat(iterator.error()).isEqualTo(ChunkDecodeError.VARINT_OVERFLOW);

        // Ten bytes whose last one carries more than the 64th bit.
        iterator.reset(HexFormat.of().parseHex("0001" + "ff".repeat(9) + "02" + "00".repeat(8)));
        assertThat(iterator.next()).isFalse();
        assertThat(iterator.error()).isEqualTo(ChunkDecodeError.VARINT_OVERFLOW);

        // The largest legal one decodes: zig-zag of Long.MIN_VALUE.
        iterator.reset(HexFormat.of().parseHex("0001" + "ff".repeat(9) + "01" + "00".repeat(8)));
        assertThat(iterator.next()).isTrue();
        assertThat(iterator.timestampMs()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void aChunkWithoutItsHeaderIsTruncated() {
        iterator.reset(new byte[1]);
        assertThat(iterator.next()).isFalse();
        assertThat(iterator.error()).isEqualTo(ChunkDecodeError.TRUNCATED);
    }

    @Test
    void randomGarbageAndBitFlipsTerminateWithoutThrowing() {
        SplittableRandom random = new SplittableRandom(4242);
        for (int c = 0; c < 2_000; c++) {
            byte[] garbage = new byte[random.nextInt(0, 300)];
            random.nextBytes(garbage);
            int claimed = random.nextInt(0, XorChunkDescriptor.MAX_SAMPLES + 1);
            iterator.reset(MemorySegment.ofArray(garbage), 0, garbage.length, claimed);
            int read = drainGarbage(claimed);
            assertThat(read == claimed || iterator.hasError()).as("case %d: %d of %d read, %s", c, read, claimed, iterator.error()).isTrue();
        }
        for (GoldenVectors golden : GoldenVectors.load()) {
            for (int flip = 16; flip < golden.chunk().length * 8; flip += 3) {
                byte[] damaged = golden.chunk().clone();
                damaged[flip / 8] ^= (byte) (0x80 >>> (flip % 8));
                iterator.reset(MemorySegment.ofArray(damaged), 0, damaged.length, golden.size());
                int read = drainGarbage(golden.size());
                assertThat(read == golden.size() || iterator.hasError()).as("%s bit %d flipped", golden, flip).isTrue();
            }
        }
    }

    @Test
    void aStaleHandleIntoAPageStaysInsideThePage() {
        try (ChunkMemory memory = new ChunkMemory(new MemoryAccounting())) {
            long last = ChunkHandle.NONE;
            for (int i = 0; i < ChunkMemory.PAGE_SIZE_BYTES / ChunkMemory.MAX_BLOCK_BYTES; i++) {
                last = memory.allocate(ChunkMemory.MAX_BLOCK_BYTES);
            }
            MemorySegment page = memory.page(last);
            page.fill((byte) 0xFF);
            // A block at the very end of its page, full of garbage, read with the largest count.
            iterator.reset(page, ChunkMemory.offset(last), XorChunkDescriptor.MAX_SAMPLES);
            drainGarbage(XorChunkDescriptor.MAX_SAMPLES);
            assertThat(iterator.hasError()).isTrue();
            page.set(ValueLayout.JAVA_LONG, ChunkMemory.PAGE_SIZE_BYTES - 8, 0L);
            iterator.reset(page, ChunkMemory.PAGE_SIZE_BYTES - 3, XorChunkDescriptor.MAX_SAMPLES);
            drainGarbage(XorChunkDescriptor.MAX_SAMPLES);
            assertThat(iterator.error()).isEqualTo(ChunkDecodeError.TRUNCATED);
        }
    }

    /** Reads up to {@code claimed} samples, checking those that exist against the golden ones. */
    private int drain(GoldenVectors golden, int claimed) {
        int read = 0;
        while (iterator.next()) {
            assertThat(read).isLessThan(claimed);
            if (read < golden.size()) {
                assertThat(iterator.timestampMs()).isEqualTo(golden.timestampsMs()[read]);
                assertThat(iterator.valueBits()).isEqualTo(golden.valueBits()[read]);
            }
            read++;
        }
        return read;
    }

    private int drainGarbage(int claimed) {
        int read = 0;
        while (iterator.next()) {
            read++;
            assertThat(read).isLessThanOrEqualTo(claimed);
        }
        assertThat(iterator.next()).as("stays ended").isFalse();
        return read;
    }
}
