package io.sluice.server.format.nativebatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.labels.CanonicalLabels;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.SpecialValues;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Golden files of every shipped native batch version: later decoders must still read them, and the
 * encoder must keep writing exactly these bytes for this content, so the format cannot drift by
 * accident. A new version adds files; it never rewrites these.
 */
class NativeBatchGoldenTest {
    static final long BASE_MS = 1_763_800_000_000L;
    static final byte[] UP = CanonicalLabels.encode("__name__", "up", "instance", "10.0.3.17:9100", "job", "node");
    static final byte[] CPU = CanonicalLabels.encode("__name__", "node_cpu_seconds_total", "cpu", "0", "mode", "idle");
    static final long[][] SAMPLES_UP = {{BASE_MS, Double.doubleToRawLongBits(1)}, {BASE_MS + 15_000, SpecialValues.STALE_NAN_BITS}};
    static final long[][] SAMPLES_CPU = {
        {BASE_MS - 1, Double.doubleToRawLongBits(-0.0)}, {BASE_MS + 14_999, 0x7ff8000000000001L}, {-5, Double.doubleToRawLongBits(12345.678)}};

    /** Writes the golden content; the .bin files were produced by this method with version 1. */
    static int write(NativeBatchEncoder encoder) {
        encoder.reset(BASE_MS);
        encoder.beginSeries(UP);
        for (long[] s : SAMPLES_UP) {
            encoder.sample(s[0], Double.longBitsToDouble(s[1]));
        }
        encoder.endSeries();
        encoder.beginSeries(CPU);
        for (long[] s : SAMPLES_CPU) {
            encoder.sample(s[0], Double.longBitsToDouble(s[1]));
        }
        encoder.endSeries();
        return encoder.finish();
    }

    static List<String> expectedEvents() {
        List<String> events = new ArrayList<>();
        events.add(RecordingSink.canonical(UP));
        for (long[] s : SAMPLES_UP) {
            events.add(RecordingSink.sample(s[0], s[1]));
        }
        events.add(RecordingSink.canonical(CPU));
        for (long[] s : SAMPLES_CPU) {
            events.add(RecordingSink.sample(s[0], s[1]));
        }
        return events;
    }

    static byte[] golden(String file) throws IOException {
        try (InputStream in = NativeBatchGoldenTest.class.getResourceAsStream("/format/" + file)) {
            assertThat(in).as("test resource /format/%s", file).isNotNull();
            return in.readAllBytes();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"native-batch-v1-deltas-crc32c.bin,true,true", "native-batch-v1-raw.bin,false,false"})
    void theDecoderReadsTheGoldenFileAndTheEncoderStillWritesIt(String file, boolean deltas, boolean crc32c) throws Exception {
        byte[] golden = golden(file);
        RecordingSink sink = new RecordingSink();
        new NativeBatchDecoder(DecoderLimits.DEFAULTS).decode(golden, 0, golden.length, 0, sink);
        assertThat(sink.events()).isEqualTo(expectedEvents());

        NativeBatchEncoder encoder = new NativeBatchEncoder(16, deltas, crc32c);
        int length = write(encoder);
        assertThat(Arrays.copyOf(encoder.buffer(), length)).isEqualTo(golden);
    }
}
