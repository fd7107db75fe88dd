package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.format.AllocationMeter;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadFormat;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The consumer's hot path — decode, validate and hash labels, route to shards, fill and submit
 * batches, hand off watermarks — allocates less than 1 byte per sample after a warm-up (ThreadMXBean's
 * per-thread count; the shards' own allocation is guarded in ingest-core).
 */
class RoutingAllocationTest {
    private static final int SERIES_PER_RECORD = 500;
    private static final int SAMPLES_PER_SERIES = 10;
    private static final int RECORDS = 8;
    @TempDir
    Path dir;

    @ParameterizedTest
    // The formats whose records carry these test payloads whole (NaN, stale markers, 5,000 samples a record).
    @EnumSource(value = PayloadFormat.class, names = {"PROMETHEUS_REMOTE_WRITE", "PROMETHEUS_REMOTE_WRITE_V2", "SLUICE"})
    void routingAllocatesLessThanOneBytePerSample(PayloadFormat format) throws IOException {
        TestPayloads payloads = new TestPayloads(format, 4000, 1, 21);
        byte[][] records = new byte[RECORDS][];
        for (int r = 0; r < RECORDS; r++) {
            records[r] = payloads.record(0, SERIES_PER_RECORD, SAMPLES_PER_SERIES);
        }
        StreamRegistry streams = new StreamRegistry();
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(2).withPerShard(s -> s.withWalSegmentBytes(64 << 20)), streams,
                new MemoryAccounting())) {
            head.start();
            int stream = streams.idOf("metrics", 0);
            RecordRouter router = new RecordRouter(head, LabelLimits.DEFAULT, DecoderLimits.DEFAULT_MAX_RECORD_BYTES,
                    PayloadFormat.values().length);
            PayloadDecoder decoder = format.newDecoder(DecoderLimits.DEFAULTS);
            int[] streamIds = {stream};
            long[] handled = new long[streams.size()];

            route(router, decoder, format, stream, records, 400, streamIds, handled);   // warm-up: JIT, buffers, series
            long before = AllocationMeter.allocatedBytes();
            long samples = route(router, decoder, format, stream, records, 400, streamIds, handled);
            long allocated = AllocationMeter.allocatedBytes() - before;

            assertThat(samples).isEqualTo(400L * SERIES_PER_RECORD * SAMPLES_PER_SERIES);
            assertThat((double) allocated / samples).as("%s: %d bytes for %d samples", format, allocated, samples)
                    .isLessThan(1.0);
        }
    }

    private long offset;

    /** Routes {@code count} records as a consumer would, a poll of 8 records at a time. */
    private long route(RecordRouter router, PayloadDecoder decoder, PayloadFormat format, int stream, byte[][] records,
                       int count, int[] streamIds, long[] handled) {
        long samples = 0;
        for (int i = 0; i < count; i++) {
            RecordRouter.Outcome outcome;
            while ((outcome = router.route(decoder, format.ordinal(), stream, offset, records[i % RECORDS], 0))
                    == RecordRouter.Outcome.BLOCKED) {
                router.flush();
                while (!router.tryUnblock()) {
                    Thread.onSpinWait();
                }
            }
            assertThat(outcome).isEqualTo(RecordRouter.Outcome.ROUTED);
            samples += router.recordSamples();
            handled[stream] = offset++;
            if (i % RECORDS == RECORDS - 1) {
                while (!router.handOffWatermarks(streamIds, 1, handled)) {
                    router.flush();
                }
                router.flush();
            }
        }
        return samples;
    }
}
