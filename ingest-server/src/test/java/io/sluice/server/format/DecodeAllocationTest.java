package io.sluice.server.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.labels.CanonicalLabels;
import io.sluice.server.format.nativebatch.NativeBatchEncoder;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The good path allocates nothing: after a warm-up, decoding 1,000,000 samples of each format into a
 * counting sink, and encoding them, allocates less than 1 byte per sample (ThreadMXBean's count of the
 * bytes this thread allocated; it does not depend on the machine's speed).
 */
class DecodeAllocationTest {
    private static final int SERIES = 1000;
    private static final int LABELS = 10;
    private static final int SAMPLES_PER_SERIES = 10;
    private static final int SAMPLES_PER_RECORD = SERIES * SAMPLES_PER_SERIES;
    private static final int WARMUP_RECORDS = 300;
    private static final int MEASURED_RECORDS = 100;
    private static final long MEASURED_SAMPLES = (long) MEASURED_RECORDS * SAMPLES_PER_RECORD;
    private static final long START_MS = 1_763_800_000_000L;

    private static byte[][][] labelBytes() {
        byte[][][] labels = new byte[SERIES][LABELS * 2][];
        for (int s = 0; s < SERIES; s++) {
            labels[s][0] = "__name__".getBytes(StandardCharsets.UTF_8);
            labels[s][1] = ("node_metric_" + s % 50).getBytes(StandardCharsets.UTF_8);
            for (int l = 1; l < LABELS; l++) {
                labels[s][2 * l] = ("label_" + l).getBytes(StandardCharsets.UTF_8);
                labels[s][2 * l + 1] = ("value_" + s + "_" + l).getBytes(StandardCharsets.UTF_8);
            }
        }
        return labels;
    }

    private static void writeRemoteWrite(RemoteWriteEncoder encoder, byte[][][] labels) {
        encoder.reset();
        for (int s = 0; s < SERIES; s++) {
            encoder.beginSeries();
            for (int l = 0; l < LABELS; l++) {
                encoder.label(labels[s][2 * l], labels[s][2 * l + 1]);
            }
            for (int i = 0; i < SAMPLES_PER_SERIES; i++) {
                encoder.sample(START_MS + i * 15_000L, s * 0.5 + i);
            }
            encoder.endSeries();
        }
        encoder.finish();
    }

    private static void writeNative(NativeBatchEncoder encoder, byte[][] canonical) {
        encoder.reset(START_MS);
        for (int s = 0; s < SERIES; s++) {
            encoder.beginSeries(canonical[s]);
            for (int i = 0; i < SAMPLES_PER_SERIES; i++) {
                encoder.sample(START_MS + i * 15_000L, s * 0.5 + i);
            }
            encoder.endSeries();
        }
        encoder.finish();
    }

    private static byte[][] canonicalLabels(byte[][][] labels) {
        byte[][] canonical = new byte[SERIES][];
        for (int s = 0; s < SERIES; s++) {
            String[] pairs = new String[LABELS * 2];
            for (int i = 0; i < pairs.length; i++) {
                pairs[i] = new String(labels[s][i], StandardCharsets.UTF_8);
            }
            canonical[s] = CanonicalLabels.encode(pairs);
        }
        return canonical;
    }

    private static long bytesPerMillionSamplesDecoded(PayloadDecoder decoder, byte[] record) throws PayloadException {
        CountingSink sink = new CountingSink();
        for (int i = 0; i < WARMUP_RECORDS; i++) {
            decoder.decode(record, 0, record.length, 0, sink);
        }
        long before = AllocationMeter.allocatedBytes();
        for (int i = 0; i < MEASURED_RECORDS; i++) {
            decoder.decode(record, 0, record.length, 0, sink);
        }
        long allocated = AllocationMeter.allocatedBytes() - before;
        assertThat(sink.samples()).isEqualTo((WARMUP_RECORDS + MEASURED_RECORDS) * (long) SAMPLES_PER_RECORD);
        return allocated;
    }

    @Test
    void remoteWriteDecodingAllocatesLessThanOneBytePerSample() throws PayloadException {
        RemoteWriteEncoder encoder = new RemoteWriteEncoder(1 << 20);
        writeRemoteWrite(encoder, labelBytes());
        byte[] record = Arrays.copyOf(encoder.compressed(), encoder.compressedLength());
        long allocated = bytesPerMillionSamplesDecoded(PayloadFormat.PROMETHEUS_REMOTE_WRITE.newDecoder(DecoderLimits.DEFAULTS), record);
        assertThat(allocated).as("bytes allocated decoding %d samples", MEASURED_SAMPLES).isLessThan(MEASURED_SAMPLES);
    }

    @ParameterizedTest(name = "deltas={0} crc32c={1}")
    @CsvSource({"true,false", "false,false", "true,true"})
    void nativeDecodingAllocatesLessThanOneBytePerSample(boolean deltas, boolean crc32c) throws PayloadException {
        NativeBatchEncoder encoder = new NativeBatchEncoder(1 << 20, deltas, crc32c);
        writeNative(encoder, canonicalLabels(labelBytes()));
        byte[] record = Arrays.copyOf(encoder.buffer(), encoder.length());
        long allocated = bytesPerMillionSamplesDecoded(PayloadFormat.SLUICE.newDecoder(DecoderLimits.DEFAULTS), record);
        assertThat(allocated).as("bytes allocated decoding %d samples", MEASURED_SAMPLES).isLessThan(MEASURED_SAMPLES);
    }

    @Test
    void encodersAllocateLessThanOneBytePerSampleOnceGrown() {
        byte[][][] labels = labelBytes();
        byte[][] canonical = canonicalLabels(labels);
        RemoteWriteEncoder remoteWrite = new RemoteWriteEncoder(64);
        NativeBatchEncoder nativeBatch = new NativeBatchEncoder(64, true, true);
        for (int i = 0; i < WARMUP_RECORDS / 3; i++) {
            writeRemoteWrite(remoteWrite, labels);
            writeNative(nativeBatch, canonical);
        }
        long before = AllocationMeter.allocatedBytes();
        for (int i = 0; i < MEASURED_RECORDS; i++) {
            writeRemoteWrite(remoteWrite, labels);
            writeNative(nativeBatch, canonical);
        }
        long allocated = AllocationMeter.allocatedBytes() - before;
        assertThat(allocated).as("bytes allocated encoding %d samples twice", MEASURED_SAMPLES).isLessThan(MEASURED_SAMPLES);
    }
}
