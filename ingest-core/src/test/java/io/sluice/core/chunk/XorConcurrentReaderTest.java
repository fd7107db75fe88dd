package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * One thread appends to an open chunk while another reads the published count (acquire) and
 * decodes that many samples, over and over: it must only ever see appended samples, in order, even
 * though the bytes right after them are being rewritten as it reads.
 */
class XorConcurrentReaderTest {
    private static final int SAMPLES = 3_000;
    private static final int ROUNDS = 10;

    @Test
    void aReaderSeesOnlyAppendedSamplesInOrder() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            long seed = 7_000 + round;
            SampleShapes samples = SampleShapes.generate(seed, SAMPLES,
                    round % 2 == 0 ? SampleShapes.Timestamps.JITTERED : SampleShapes.Timestamps.BIG_JUMPS,
                    round % 3 == 0 ? SampleShapes.Values.SPECIAL : SampleShapes.Values.GAUGE);
            int capacity = XorAppender.requiredCapacityBytes(XorChunkDescriptor.HEADER_BYTES + SAMPLES * XorAppender.MAX_BYTES_PER_SAMPLE);
            try (Arena arena = Arena.ofShared()) {
                MemorySegment state = arena.allocate(XorStateDescriptor.SIZE, XorStateDescriptor.ALIGNMENT);
                MemorySegment chunk = arena.allocate(capacity);
                XorStateDescriptor.reset(state, 0);
                int passes = readWhileAppending(seed, samples, state, chunk, capacity);
                assertThat(passes).as("seed %d: reader passes", seed).isPositive();
            }
        }
    }

    /** Returns how many passes the reader made; fails the test on anything it saw wrong. */
    private static int readWhileAppending(long seed, SampleShapes samples, MemorySegment state, MemorySegment chunk, int capacity)
            throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                start.await();
                XorAppender appender = new XorAppender().wrap(state, 0, chunk, 0, capacity);
                for (int i = 0; i < SAMPLES; i++) {
                    if (!appender.append(samples.timestampsMs[i], samples.valueBits[i])) {
                        throw new AssertionError("sample " + i + " refused");
                    }
                    if ((i & 63) == 0) {
                        Thread.yield();
                    }
                }
            } catch (Throwable t) {
                writerFailure.set(t);
            }
        }, "chunk-writer");
        writer.start();
        start.countDown();

        XorIterator iterator = new XorIterator();
        int passes = 0;
        int published;
        do {
            published = XorStateDescriptor.publishedNumSamples(state, 0);
            iterator.reset(chunk, 0, published);
            for (int i = 0; i < published; i++) {
                if (!iterator.next() || iterator.timestampMs() != samples.timestampsMs[i] || iterator.valueBits() != samples.valueBits[i]) {
                    writer.join();
                    throw new AssertionError("seed " + seed + ": pass " + passes + " of " + published + " samples: sample " + i
                            + " read as (" + iterator.timestampMs() + ", " + Long.toHexString(iterator.valueBits()) + ") error "
                            + iterator.error() + ", appended (" + samples.timestampsMs[i] + ", " + Long.toHexString(samples.valueBits[i]) + ")");
                }
            }
            assertThat(iterator.next()).isFalse();
            assertThat(iterator.hasError()).isFalse();
            passes++;
        } while (published < SAMPLES && (writer.isAlive() || published < XorStateDescriptor.publishedNumSamples(state, 0)));
        writer.join();
        assertThat(writerFailure.get()).as("seed %d: writer", seed).isNull();
        assertThat(published).as("seed %d: samples in the last pass", seed).isEqualTo(SAMPLES);
        return passes;
    }
}
