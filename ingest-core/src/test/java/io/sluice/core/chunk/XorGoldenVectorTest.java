package io.sluice.core.chunk;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Prometheus' own chunks: our appender must produce them byte for byte, our iterator read them bit for bit. */
class XorGoldenVectorTest {
    private final ChunkFixture fixture = new ChunkFixture();
    private final ChunkMemory memory = fixture.memory;
    private final MemorySegment state = fixture.state;
    private final XorAppender appender = fixture.appender;
    private final XorIterator iterator = fixture.iterator;

    static List<GoldenVectors> vectors() {
        return GoldenVectors.load();
    }

    @AfterEach
    void closeMemory() {
        fixture.close();
    }

    @Test
    void everyCaseOfTheReadmeIsPresent() {
        assertThat(vectors()).extracting(GoldenVectors::name).contains(
                "single-sample", "dod-buckets", "special-values", "regular-240", "negative-timestamps");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void encodesOffHeapExactlyAsPrometheus(GoldenVectors golden) {
        long handle = encode(golden);
        assertThat(hex(handle, appender.byteLength())).isEqualTo(HexFormat.of().formatHex(golden.chunk()));
        assertThat(XorStateDescriptor.publishedNumSamples(state, 0)).isEqualTo(golden.size());
        assertThat(appender.firstTimestampMs()).isEqualTo(golden.timestampsMs()[0]);
        assertThat(appender.lastTimestampMs()).isEqualTo(golden.timestampsMs()[golden.size() - 1]);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void encodesExactlyWhenTheBlockGrowsByCopyMidWay(GoldenVectors golden) {
        long handle = memory.allocate(XorAppender.MIN_CAPACITY_BYTES);
        XorStateDescriptor.reset(state, 0);
        wrap(handle);
        int grows = 0;
        for (int i = 0; i < golden.size(); i++) {
            if (!appender.append(golden.timestampsMs()[i], golden.valueBits()[i])) {
                // Scribble over the old block after copying: the new one must not depend on it.
                long grown = memory.copy(handle, appender.byteLength(), Math.min(2 * appender.capacityBytes(), ChunkMemory.MAX_BLOCK_BYTES));
                memory.page(handle).asSlice(ChunkMemory.offset(handle), ChunkHandle.capacityBytes(handle)).fill((byte) 0xA5);
                memory.free(handle);
                handle = grown;
                grows++;
                wrap(handle);
                assertThat(appender.append(golden.timestampsMs()[i], golden.valueBits()[i])).as("sample %d after growing", i).isTrue();
            }
        }
        assertThat(hex(handle, appender.byteLength())).isEqualTo(HexFormat.of().formatHex(golden.chunk()));
        if (golden.size() > 1) {
            // The smallest capacity takes only a first sample: every later one forced a grow.
            assertThat(grows).isPositive();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void decodesPrometheusBytesBitForBit(GoldenVectors golden) {
        assertDecodes(iterator.reset(golden.chunk()), golden);

        // The same bytes off-heap at the end of a page, bounded by the segment (no slack after them).
        MemorySegment page = fixture.arena.allocate(golden.chunk().length + 3L);
        MemorySegment.copy(golden.chunk(), 0, page, ValueLayout.JAVA_BYTE, 3, golden.chunk().length);
        assertDecodes(iterator.reset(page, 3, golden.size()), golden);
        assertDecodes(iterator.reset(page, 3, golden.chunk().length, golden.size()), golden);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void aClosedChunkCopiedToTheSmallestBlockDecodes(GoldenVectors golden) {
        long open = encode(golden);
        int length = appender.byteLength();
        long closed = memory.copy(open, length, ChunkCutPolicy.closedCapacityBytes(length));
        memory.free(open);
        assertThat(ChunkHandle.capacityBytes(closed)).isBetween(length, length + ChunkMemory.BLOCK_GRANULE_BYTES - 1);
        assertDecodes(iterator.reset(memory.page(closed), ChunkMemory.offset(closed), length,
                XorChunkDescriptor.headerNumSamples(memory.page(closed), ChunkMemory.offset(closed))), golden);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("vectors")
    void seeksToTheFirstSampleAtOrAfterATimestamp(GoldenVectors golden) {
        long[] ts = golden.timestampsMs();
        int mid = ts.length / 2;
        assertThat(iterator.reset(golden.chunk()).seek(ts[mid])).isTrue();
        assertThat(iterator.timestampMs()).isEqualTo(ts[mid]);
        assertThat(iterator.seek(ts[mid])).as("seeking again stays").isTrue();
        assertThat(iterator.valueBits()).isEqualTo(golden.valueBits()[mid]);
        assertThat(iterator.reset(golden.chunk()).seek(Long.MIN_VALUE)).isTrue();
        assertThat(iterator.timestampMs()).isEqualTo(ts[0]);
        assertThat(iterator.reset(golden.chunk()).seek(ts[ts.length - 1] + 1)).isFalse();
        assertThat(iterator.hasError()).isFalse();
    }

    private void assertDecodes(XorIterator it, GoldenVectors golden) {
        for (int i = 0; i < golden.size(); i++) {
            assertThat(it.next()).as("%s sample %d (%s at bit %d)", golden, i, it.error(), it.errorBitPosition()).isTrue();
            assertThat(it.timestampMs()).as("%s timestamp %d", golden, i).isEqualTo(golden.timestampsMs()[i]);
            assertThat(Long.toHexString(it.valueBits())).as("%s value bits %d", golden, i)
                    .isEqualTo(Long.toHexString(golden.valueBits()[i]));
        }
        assertThat(it.next()).isFalse();
        assertThat(it.hasError()).isFalse();
        assertThat(it.numRead()).isEqualTo(golden.size());
        assertThat((it.bitLength() + 7) / 8).as("bytes consumed").isEqualTo(golden.chunk().length);
    }

    /** Appends every sample to an empty chunk in a block just big enough; returns the block. */
    private long encode(GoldenVectors golden) {
        long handle = memory.allocate(XorAppender.requiredCapacityBytes(golden.chunk().length));
        XorStateDescriptor.reset(state, 0);
        wrap(handle);
        for (int i = 0; i < golden.size(); i++) {
            assertThat(appender.append(golden.timestampsMs()[i], golden.valueBits()[i])).as("sample %d", i).isTrue();
        }
        return handle;
    }

    private void wrap(long handle) {
        fixture.wrap(handle);
    }

    private String hex(long handle, int length) {
        byte[] bytes = memory.page(handle).asSlice(ChunkMemory.offset(handle), length).toArray(ValueLayout.JAVA_BYTE);
        return HexFormat.of().formatHex(bytes);
    }
}
