package io.sluice.server.format.nativebatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.core.labels.CanonicalLabels;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.SpecialValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Encoder and decoder of the native batch agree, in every combination of flags, on special values. */
class NativeBatchRoundTripTest {
    private static final long SEED = 0x5_1CEL;

    @ParameterizedTest(name = "deltas={0} crc32c={1}")
    @CsvSource({"false,false", "false,true", "true,false", "true,true"})
    void seededRandomBatchesRoundTripBitExactly(boolean deltas, boolean crc32c) throws PayloadException {
        Random random = new Random(SEED);
        NativeBatchEncoder encoder = new NativeBatchEncoder(16, deltas, crc32c);
        NativeBatchDecoder decoder = new NativeBatchDecoder(DecoderLimits.DEFAULTS);
        for (int i = 0; i < 300; i++) {
            List<String> expected = new ArrayList<>();
            encoder.reset(SpecialValues.timestampMs(random));
            for (int s = random.nextInt(30); s > 0; s--) {
                byte[] labels = CanonicalLabels.encode("__name__", "m" + random.nextInt(100), "job", SpecialValues.text(random));
                encoder.beginSeries(labels);
                expected.add(RecordingSink.canonical(labels));
                for (int n = 1 + random.nextInt(12); n > 0; n--) {
                    long timestampMs = SpecialValues.timestampMs(random);
                    double value = SpecialValues.value(random);
                    encoder.sample(timestampMs, value);
                    expected.add(RecordingSink.sample(timestampMs, Double.doubleToRawLongBits(value)));
                }
                encoder.endSeries();
            }
            int length = encoder.finish();
            RecordingSink sink = new RecordingSink();
            decoder.decode(encoder.buffer(), 0, length, 0, sink);
            assertThat(sink.events()).as("batch %d, seed %x", i, SEED).isEqualTo(expected);
        }
    }

    @ParameterizedTest(name = "deltas={0}")
    @CsvSource({"false", "true"})
    void deltasCoverTheWholeTimestampRange(boolean deltas) throws PayloadException {
        NativeBatchEncoder encoder = new NativeBatchEncoder(16, deltas, false);
        encoder.reset(Long.MAX_VALUE);
        byte[] labels = CanonicalLabels.encode("__name__", "x");
        encoder.beginSeries(labels);
        long[] timestamps = {Long.MIN_VALUE, Long.MAX_VALUE, 0, Long.MIN_VALUE, -1};
        for (long t : timestamps) {
            encoder.sample(t, t);
        }
        encoder.endSeries();
        int length = encoder.finish();
        RecordingSink sink = new RecordingSink();
        new NativeBatchDecoder(DecoderLimits.DEFAULTS).decode(encoder.buffer(), 0, length, 0, sink);
        List<String> expected = new ArrayList<>(List.of(RecordingSink.canonical(labels)));
        for (long t : timestamps) {
            expected.add(RecordingSink.sample(t, Double.doubleToRawLongBits(t)));
        }
        assertThat(sink.events()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "deltas={0}")
    @CsvSource({"false", "true"})
    void anEmptyBatchIsValidAndMisuseIsAnIllegalState(boolean deltas) throws PayloadException {
        NativeBatchEncoder encoder = new NativeBatchEncoder(16, deltas, true);
        encoder.reset(5);
        int length = encoder.finish();
        assertThat(length).isEqualTo(NativeBatchDescriptor.HEADER_LENGTH);
        RecordingSink sink = new RecordingSink();
        new NativeBatchDecoder(DecoderLimits.DEFAULTS).decode(encoder.buffer(), 0, length, 0, sink);
        assertThat(sink.events()).isEmpty();

        assertThatThrownBy(() -> encoder.sample(1, 1)).isInstanceOf(IllegalStateException.class);
        encoder.beginSeries(new byte[] {1, 'a', 1, 'b'});
        assertThatThrownBy(encoder::endSeries).as("no samples").isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(encoder::finish).isInstanceOf(IllegalStateException.class);
    }
}
