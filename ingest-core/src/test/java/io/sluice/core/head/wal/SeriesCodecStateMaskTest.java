package io.sluice.core.head.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link SeriesCodecState#currentMask}, the branch-free test the decoder loop uses, agrees with {@link SeriesCodecState#isCurrent}. */
class SeriesCodecStateMaskTest {
    private static final long SEED = 0x5EED_0CA5L;

    @Test
    void maskIsAllOnesExactlyWhenTheTagIsCurrent() {
        SplittableRandom random = new SplittableRandom(SEED);
        int[] segments = {0, 1, 2, 0x7FFF_FFFE, -2, -1}; // epochs 1.., and the top of the 32-bit range
        for (int segment : segments) {
            long epochTag = (long) (segment + 1) << 32;
            for (int i = 0; i < 10_000; i++) {
                long tag = switch (i % 4) {
                    case 0 -> SeriesCodecState.resetTag(epochTag);
                    case 1 -> SeriesCodecState.followedTag(epochTag, random.nextInt());
                    case 2 -> random.nextLong(); // any other epoch (or this one, by chance)
                    default -> random.nextInt() & 0xFFFF_FFFFL; // epoch 0: never touched
                };
                long expected = SeriesCodecState.isCurrent(tag, epochTag) ? -1L : 0L;
                assertThat(SeriesCodecState.currentMask(tag, epochTag)).as("tag %x, epoch tag %x", tag, epochTag)
                        .isEqualTo(expected);
            }
        }
    }
}
