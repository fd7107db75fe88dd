package io.sluice.server.format.nativebatch;

import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.CRC_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.FLAGS_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.HEADER_LENGTH;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.RESERVED_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.SERIES_COUNT_OFFSET;
import static io.sluice.server.format.nativebatch.NativeBatchDescriptor.VERSION_OFFSET;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.RecordingSink;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Malformed native batches: always a PayloadException with the reason and position, nothing else. */
class NativeBatchMalformedTest {
    private static final long SEED = 0xBADBA7C4L;
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** Where the first series' labelsLength and, with the golden labels, its sampleCount are. */
    private static final int FIRST_SERIES = HEADER_LENGTH;
    private static final int FIRST_SAMPLE_COUNT = FIRST_SERIES + 4 + NativeBatchGoldenTest.UP.length;

    private final NativeBatchDecoder decoder = new NativeBatchDecoder(DecoderLimits.DEFAULTS);

    private static byte[] batch(boolean deltas, boolean crc32c) {
        NativeBatchEncoder encoder = new NativeBatchEncoder(16, deltas, crc32c);
        int length = NativeBatchGoldenTest.write(encoder);
        return Arrays.copyOf(encoder.buffer(), length);
    }

    private PayloadException reject(byte[] record) {
        try {
            decoder.decode(record, 0, record.length, 0, new RecordingSink());
        } catch (PayloadException e) {
            assertThat(e.position()).as(e.getMessage()).isBetween(0L, (long) record.length);
            return e;
        }
        return fail("decoded a malformed batch: " + Arrays.toString(record));
    }

    @ParameterizedTest(name = "deltas={0} crc32c={1}")
    @CsvSource({"false,false", "true,false", "true,true"})
    void aBatchCutAtEveryBytePositionIsRejected(boolean deltas, boolean crc32c) {
        byte[] whole = batch(deltas, crc32c);
        for (int cut = 0; cut < whole.length; cut++) {
            PayloadException e = reject(Arrays.copyOf(whole, cut));
            Reason expected = cut >= HEADER_LENGTH && crc32c ? Reason.BAD_CHECKSUM : Reason.TRUNCATED;
            assertThat(e.reason()).as("cut %d: %s", cut, e.getMessage()).isEqualTo(expected);
        }
    }

    @Test
    void seededRandomCorruptionNeverEscapesAsAnotherException() {
        Random random = new Random(SEED);
        for (int i = 0; i < 20_000; i++) {
            byte[] record = batch(random.nextBoolean(), false);
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                record[random.nextInt(record.length)] ^= (byte) (1 + random.nextInt(255));
            }
            try {
                decoder.decode(record, 0, record.length, 0, new RecordingSink());
            } catch (PayloadException expected) {
                // rejected: fine
            } catch (RuntimeException e) {
                throw new AssertionError("case " + i + ", seed " + SEED + ": " + e, e);
            }
        }
        byte[] crcProtected = batch(true, true);
        for (int i = 0; i < 1000; i++) {
            byte[] record = crcProtected.clone();
            int at = HEADER_LENGTH + random.nextInt(record.length - HEADER_LENGTH);
            record[at] ^= (byte) (1 + random.nextInt(255));
            assertThat(reject(record).reason()).as("flip at %d, seed %x", at, SEED).isEqualTo(Reason.BAD_CHECKSUM);
        }
    }

    @Test
    void headerFaults() {
        byte[] good = batch(true, true);

        byte[] magic = good.clone();
        magic[0] = 'X';
        assertThat(reject(magic).reason()).isEqualTo(Reason.BAD_MAGIC);
        assertThat(reject("{\"metric\":1}".getBytes()).reason()).isEqualTo(Reason.BAD_MAGIC);

        byte[] version = good.clone();
        version[VERSION_OFFSET] = 2;
        PayloadException e = reject(version);
        assertThat(e.reason()).isEqualTo(Reason.UNSUPPORTED_VERSION);
        assertThat(e.position()).isEqualTo(VERSION_OFFSET);

        byte[] flags = good.clone();
        flags[FLAGS_OFFSET] |= 0x04;
        assertThat(reject(flags).reason()).isEqualTo(Reason.BAD_HEADER);

        byte[] reserved = good.clone();
        reserved[RESERVED_OFFSET + 1] = 1;
        assertThat(reject(reserved).reason()).isEqualTo(Reason.BAD_HEADER);

        byte[] crc = good.clone();
        crc[CRC_OFFSET] ^= 1;
        e = reject(crc);
        assertThat(e.reason()).isEqualTo(Reason.BAD_CHECKSUM);
        assertThat(e.getMessage()).contains("stored crc32c").contains("computed");

        byte[] crcWithoutFlag = batch(true, false);
        crcWithoutFlag[CRC_OFFSET] = 1;
        assertThat(reject(crcWithoutFlag).reason()).isEqualTo(Reason.BAD_HEADER);

        byte[] baseWithoutDeltas = batch(false, false);
        LONG_LE.set(baseWithoutDeltas, BASE_TIMESTAMP_OFFSET, 5L);
        assertThat(reject(baseWithoutDeltas).reason()).isEqualTo(Reason.BAD_HEADER);
    }

    @Test
    void bodyFaults() {
        byte[] zeroSamples = batch(false, false);
        INT_LE.set(zeroSamples, FIRST_SAMPLE_COUNT, 0);
        PayloadException e = reject(zeroSamples);
        assertThat(e.reason()).isEqualTo(Reason.BAD_BATCH);
        assertThat(e.position()).isEqualTo(FIRST_SERIES);

        byte[] trailing = Arrays.copyOf(batch(false, false), batch(false, false).length + 1);
        e = reject(trailing);
        assertThat(e.reason()).isEqualTo(Reason.BAD_BATCH);
        assertThat(e.position()).isEqualTo(trailing.length - 1);

        byte[] fewerSeriesThanBytes = batch(true, false);
        INT_LE.set(fewerSeriesThanBytes, SERIES_COUNT_OFFSET, 1);
        assertThat(reject(fewerSeriesThanBytes).reason()).isEqualTo(Reason.BAD_BATCH);

        byte[] hugeSeriesCount = batch(true, false);
        INT_LE.set(hugeSeriesCount, SERIES_COUNT_OFFSET, -1);
        assertThat(reject(hugeSeriesCount).reason()).isEqualTo(Reason.TRUNCATED);

        byte[] hugeLabels = batch(true, false);
        INT_LE.set(hugeLabels, FIRST_SERIES, -1);
        e = reject(hugeLabels);
        assertThat(e.reason()).isEqualTo(Reason.TRUNCATED);
        assertThat(e.position()).isEqualTo(FIRST_SERIES + 4);

        byte[] hugeSampleCount = batch(false, false);
        INT_LE.set(hugeSampleCount, FIRST_SAMPLE_COUNT, -1);
        assertThat(reject(hugeSampleCount).reason()).isEqualTo(Reason.TRUNCATED);
    }

    @Test
    void aBadDeltaVarintIsRejected() {
        byte[] good = batch(true, false);
        int firstDelta = FIRST_SAMPLE_COUNT + 4;
        byte[] overlong = new byte[good.length + 10];
        System.arraycopy(good, 0, overlong, 0, firstDelta);
        Arrays.fill(overlong, firstDelta, firstDelta + 11, (byte) 0x80);
        System.arraycopy(good, firstDelta + 1, overlong, firstDelta + 11, good.length - firstDelta - 11);
        PayloadException e = reject(overlong);
        assertThat(e.reason()).isEqualTo(Reason.BAD_VARINT);
        assertThat(e.position()).isEqualTo(firstDelta);
    }

    @Test
    void theRecordSizeLimitApplies() throws PayloadException {
        byte[] good = batch(true, true);
        NativeBatchDecoder tight = new NativeBatchDecoder(new DecoderLimits(good.length - 1, 1));
        try {
            tight.decode(good, 0, good.length, 0, new RecordingSink());
            fail("accepted a record over maxRecordBytes");
        } catch (PayloadException e) {
            assertThat(e.reason()).isEqualTo(Reason.TOO_LARGE);
        }
        RecordingSink sink = new RecordingSink();
        new NativeBatchDecoder(new DecoderLimits(good.length, 1)).decode(good, 0, good.length, 0, sink);
        assertThat(sink.events()).isEqualTo(NativeBatchGoldenTest.expectedEvents());
    }
}
