package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.EncodedSeries;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.RecordEncoder;
import io.sluice.server.format.remotewrite.RemoteWriteEncoder;
import io.sluice.tools.loadgen.PayloadWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The router with a real head and no Kafka: all-or-nothing records, batch boundaries, backpressure, watermarks. */
class RecordRouterTest {
    @TempDir
    Path dir;

    private final StreamRegistry streams = new StreamRegistry();
    private final List<String> rejected = new ArrayList<>();

    private Head head(HeadOptions options) throws IOException {
        Head head = new Head(options, streams, new MemoryAccounting());
        head.start();
        return head;
    }

    private static HeadOptions options(Path dir) {
        return HeadOptions.defaults(dir).withShards(2).withPerShard(s -> s.withWalSegmentBytes(4 << 20));
    }

    private RecordRouter router(Head head) {
        return new RecordRouter(head, LabelLimits.DEFAULT, DecoderLimits.DEFAULT_MAX_RECORD_BYTES, PayloadFormat.values().length);
    }

    /** Routes as a consumer thread does: waits out backpressure, notes rejections, hands off watermarks. */
    private void routeAll(Head head, RecordRouter router, PayloadFormat format, int stream, List<byte[]> records, long firstOffset) {
        PayloadDecoder decoder = format.newDecoder(DecoderLimits.DEFAULTS);
        long[] handled = new long[streams.size()];
        Arrays.fill(handled, -1);
        long offset = firstOffset;
        for (byte[] value : records) {
            RecordRouter.Outcome outcome;
            while ((outcome = router.route(decoder, format.ordinal(), stream, offset, value, 0)) == RecordRouter.Outcome.BLOCKED) {
                router.flush();
                while (!router.tryUnblock()) {
                    Thread.onSpinWait();
                }
            }
            if (outcome == RecordRouter.Outcome.REJECTED) {
                rejected.add(offset + ":" + router.rejectReason());
            }
            handled[stream] = offset++;
        }
        while (!router.handOffWatermarks(new int[] {stream}, 1, handled)) {
            router.flush();
        }
        router.flush();
        awaitDurable(head, stream, offset - 1);
    }

    static void awaitDurable(Head head, int stream, long offset) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (head.durableWatermark(stream) < offset) {
            assertThat(System.nanoTime()).as("durable watermark stuck at %d, wanted %d", head.durableWatermark(stream), offset)
                    .isLessThan(deadline);
            head.requestSync();
            Thread.onSpinWait();
        }
    }

    @ParameterizedTest
    @EnumSource(value = PayloadFormat.class, names = {"PROMETHEUS_REMOTE_WRITE", "SLUICE"}) // what the load generator writes
    void storesEverySampleOfEveryRecordAcrossShardsAndBatches(PayloadFormat format) throws IOException {
        TestPayloads payloads = new TestPayloads(format, 600, 1, 11);
        List<byte[]> records = new ArrayList<>();
        for (int r = 0; r < 60; r++) {
            records.add(payloads.record(0, 1 + r % 50, 1 + r % 7));
        }
        // Small batches: records share batches, fill them up mid-record and are decoded again.
        try (Head head = head(options(dir).withPerShard(s -> s.withQueue(4, 8 * 1024)))) {
            int stream = streams.idOf("metrics", 0);
            routeAll(head, router(head), format, stream, records, 0);
            assertThat(rejected).isEmpty();
            assertThat(StoredSamples.of(head)).containsExactlyInAnyOrderElementsOf(payloads.produced());
            assertThat(StoredSamples.sum(head, ShardStats.Counter.SAMPLES_APPENDED)).isEqualTo(payloads.produced().size());
            assertThat(head.durableWatermark(stream)).isEqualTo(59);
        }
    }

    @Test
    void aMalformedRecordLeavesNothingBehindAndTheNextOnesAreStored() throws IOException {
        TestPayloads payloads = new TestPayloads(PayloadFormat.PROMETHEUS_REMOTE_WRITE, 300, 1, 12);
        List<byte[]> records = new ArrayList<>();
        records.add(payloads.record(0, 40, 3));
        List<String> good = new ArrayList<>(payloads.produced());
        byte[] truncated = payloads.record(0, 40, 3);
        records.add(Arrays.copyOf(truncated, truncated.length - 7));             // bad snappy
        records.add(duplicateLabelRecord());                                     // valid series, then a bad one
        records.add(new byte[] {1, 2, 3});                                       // garbage
        int before = payloads.produced().size();
        records.add(payloads.record(0, 40, 3));
        good.addAll(payloads.produced().subList(before, payloads.produced().size()));
        try (Head head = head(options(dir))) {
            int stream = streams.idOf("metrics", 0);
            routeAll(head, router(head), PayloadFormat.PROMETHEUS_REMOTE_WRITE, stream, records, 100);
            assertThat(rejected).hasSize(3).contains("102:duplicate_label_name")
                    .allSatisfy(r -> assertThat(r).matches("10[123]:[a-z_]+"));
            assertThat(StoredSamples.of(head)).containsExactlyInAnyOrderElementsOf(good);
            assertThat(head.durableWatermark(stream)).as("rejected records are handled too").isEqualTo(104);
        }
    }

    /** Five good series, then one with a duplicate label name: the good ones must not be stored either. */
    private static byte[] duplicateLabelRecord() {
        RemoteWriteEncoder e = new RemoteWriteEncoder(1024);
        e.reset();
        for (int s = 0; s < 6; s++) {
            e.beginSeries();
            e.label(utf8("__name__"), utf8("rejected_metric"));
            e.label(utf8("series"), utf8(Integer.toString(s)));
            if (s == 5) {
                e.label(utf8("series"), utf8("again"));
            }
            e.sample(1_763_800_000_000L, s);
            e.endSeries();
        }
        int length = e.finish();
        return Arrays.copyOf(e.compressed(), length);
    }

    /**
     * A record ~12 times a batch, with two batches per shard: it is split across batches, and a shard
     * runs out of free batches in the middle many times (BLOCKED, decoded again, skipping what went).
     * Every sample arrives exactly once: none missing, none handed over twice (no duplicate counted).
     */
    @Test
    void aRecordLargerThanAWholeBatchIsSplitAndStoredOnce() throws IOException {
        TestPayloads payloads = new TestPayloads(PayloadFormat.SLUICE, 200, 1, 13);
        try (Head head = head(options(dir).withShards(1).withPerShard(s -> s.withQueue(2, 4096)))) {
            int stream = streams.idOf("metrics", 0);
            byte[] huge = payloads.record(0, 100, 20); // ~100 x (150 + 20 x 16) bytes for one shard
            byte[] small = payloads.record(0, 2, 2);
            byte[] last = payloads.record(0, 2, 2);
            routeAll(head, router(head), PayloadFormat.SLUICE, stream, List.of(small, huge, last), 0);
            assertThat(rejected).isEmpty();
            assertThat(StoredSamples.of(head)).containsExactlyInAnyOrderElementsOf(payloads.produced());
            assertThat(StoredSamples.sum(head, ShardStats.Counter.SAMPLES_APPENDED)).isEqualTo(2008);
            assertThat(StoredSamples.sum(head, ShardStats.Counter.SAMPLES_DUPLICATE)).as("nothing handed over twice").isZero();
            assertThat(head.durableWatermark(stream)).isEqualTo(2);
        }
    }

    /**
     * influx names the series again on every line: 3,000 lines of one series share one SERIES entry
     * (48 KB, one 64 KiB batch; one entry per line would take three). 3,000 lines alternating between
     * two series cannot merge and are split over batches; both come back whole.
     */
    @Test
    void consecutiveSamplesOfOneSeriesShareAnEntryAndOthersAreSplit() throws IOException {
        try (Head head = head(options(dir).withShards(1).withPerShard(s -> s.withQueue(4, 64 * 1024)))) {
            int stream = streams.idOf("influx", 0);
            List<EncodedSeries> one = new ArrayList<>();
            List<EncodedSeries> alternating = new ArrayList<>();
            long[] ts = new long[3_000];
            long[] bits = new long[3_000];
            for (int i = 0; i < ts.length; i++) {
                ts[i] = 1_763_800_000_000L + i * 1_000L;
                bits[i] = Double.doubleToRawLongBits(i);
                alternating.add(new EncodedSeries(Map.of("__name__", "alt_value", "s", i % 2 == 0 ? "a" : "b"),
                        new long[] {ts[i]}, new long[] {bits[i]}));
            }
            one.add(new EncodedSeries(Map.of("__name__", "one_value", "s", "x"), ts, bits));
            RecordEncoder influx = PayloadWriter.encoder(PayloadFormat.INFLUX);
            routeAll(head, router(head), PayloadFormat.INFLUX, stream, EncodedSeries.values(influx, one), 0);
            assertThat(StoredSamples.sum(head, ShardStats.Counter.BATCHES_APPLIED)).as("one entry, one batch").isEqualTo(1);
            routeAll(head, router(head), PayloadFormat.INFLUX, stream, EncodedSeries.values(influx, alternating), 1);
            assertThat(StoredSamples.sum(head, ShardStats.Counter.BATCHES_APPLIED)).as("split").isGreaterThanOrEqualTo(4);
            assertThat(rejected).isEmpty();
            assertThat(StoredSamples.sum(head, ShardStats.Counter.SAMPLES_APPENDED)).isEqualTo(6_000);
            assertThat(StoredSamples.sum(head, ShardStats.Counter.SAMPLES_DUPLICATE)).isZero();
        }
    }

    /**
     * Deterministic backpressure in the middle of a split: the shard does not run yet, so after its two
     * batches are handed over (the first parts of the record, each ending with CONTINUES) the router has
     * none and answers BLOCKED. Once the shard drains, the record is routed again and goes on where it
     * stopped: every sample once, none twice, and the watermark covers the record only at the end.
     */
    @Test
    void aSplitRecordBlockedMidwayGoesOnWhereItStopped() throws IOException {
        TestPayloads payloads = new TestPayloads(PayloadFormat.SLUICE, 200, 1, 16);
        Head head = new Head(options(dir).withShards(1).withPerShard(s -> s.withQueue(2, 4096)), streams, new MemoryAccounting());
        try {
            int stream = streams.idOf("metrics", 0);
            RecordRouter router = router(head);
            PayloadDecoder decoder = PayloadFormat.SLUICE.newDecoder(DecoderLimits.DEFAULTS);
            byte[] huge = payloads.record(0, 100, 20);
            assertThat(router.route(decoder, PayloadFormat.SLUICE.ordinal(), stream, 0, huge, 0)).isEqualTo(RecordRouter.Outcome.BLOCKED);
            assertThat(head.shard(0).queueDepth()).as("two parts handed over").isEqualTo(2);
            head.start();
            int blocked = 1;
            RecordRouter.Outcome outcome;
            while ((outcome = router.route(decoder, PayloadFormat.SLUICE.ordinal(), stream, 0, huge, 0)) == RecordRouter.Outcome.BLOCKED) {
                blocked++;
                router.flush();
                awaitFreeBatch(router);
            }
            assertThat(outcome).isEqualTo(RecordRouter.Outcome.ROUTED);
            assertThat(router.recordSamples()).isEqualTo(2_000);
            long[] handled = {0};
            assertThat(router.handOffWatermarks(new int[] {stream}, 1, handled)).isTrue();
            router.flush();
            awaitDurable(head, stream, 0);
            assertThat(blocked).as("blocked mid-record, more than once with 2 batches of 4 KiB").isGreaterThan(1);
            assertThat(StoredSamples.of(head)).containsExactlyInAnyOrderElementsOf(payloads.produced());
            assertThat(StoredSamples.sum(head, ShardStats.Counter.SAMPLES_DUPLICATE)).isZero();
            assertThat(StoredSamples.sum(head, ShardStats.Counter.SAMPLES_ALREADY_APPLIED)).isZero();
        } finally {
            head.close();
        }
    }

    private static void awaitFreeBatch(RecordRouter router) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!router.tryUnblock()) {
            assertThat(System.nanoTime()).as("a free batch").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** A malformed record too large for a batch is rejected whole by the validation pass: no part of it is handed over. */
    @Test
    void aMalformedRecordLargerThanABatchLeavesNothing() throws IOException {
        TestPayloads payloads = new TestPayloads(PayloadFormat.SLUICE, 200, 1, 15);
        try (Head head = head(options(dir).withShards(1).withPerShard(s -> s.withQueue(2, 4096)))) {
            int stream = streams.idOf("metrics", 0);
            byte[] huge = payloads.record(0, 100, 20);
            payloads.produced().clear(); // it will not be stored
            byte[] truncated = Arrays.copyOf(huge, huge.length - 3);
            routeAll(head, router(head), PayloadFormat.SLUICE, stream, List.of(truncated, payloads.record(0, 2, 2)), 0);
            assertThat(rejected).hasSize(1).allSatisfy(r -> assertThat(r).startsWith("0:"));
            assertThat(StoredSamples.of(head)).containsExactlyInAnyOrderElementsOf(payloads.produced());
        }
    }

    /** Only a series that no empty batch can hold (labels of 5 KB, batches of 4 KiB) makes a record too large. */
    @Test
    void aSeriesLargerThanAnEmptyBatchIsRejectedAsTooLarge() throws IOException {
        try (Head head = head(options(dir).withShards(1).withPerShard(s -> s.withQueue(2, 4096)))) {
            int stream = streams.idOf("metrics", 0);
            RemoteWriteEncoder e = new RemoteWriteEncoder(1 << 16);
            e.reset();
            e.beginSeries();
            e.label(utf8("__name__"), utf8("wide"));
            e.label(utf8("blob"), utf8("x".repeat(5_000)));
            e.sample(1_763_800_000_000L, 1);
            e.endSeries();
            int length = e.finish();
            byte[] wide = Arrays.copyOf(e.compressed(), length);
            routeAll(head, router(head), PayloadFormat.PROMETHEUS_REMOTE_WRITE, stream, List.of(wide), 0);
            assertThat(rejected).containsExactly("0:too_large");
            assertThat(StoredSamples.of(head)).isEmpty();
            assertThat(head.durableWatermark(stream)).as("handled").isEqualTo(0);
        }
    }

    @Test
    void backpressureBlocksWithoutKeepingAnythingAndTheRecordGoesThroughOnceBatchesAreFree() throws IOException {
        TestPayloads payloads = new TestPayloads(PayloadFormat.SLUICE, 200, 1, 14);
        // A head whose shards do not run yet: submitted batches wait in the queue, two per shard.
        Head head = new Head(options(dir).withShards(1).withPerShard(s -> s.withQueue(2, 4096)), streams, new MemoryAccounting());
        try {
            int stream = streams.idOf("metrics", 0);
            RecordRouter router = router(head);
            PayloadDecoder decoder = PayloadFormat.SLUICE.newDecoder(DecoderLimits.DEFAULTS);
            int routed = 0;
            RecordRouter.Outcome outcome;
            while ((outcome = router.route(decoder, PayloadFormat.SLUICE.ordinal(), stream, routed,
                    payloads.record(0, 8, 8), 0)) == RecordRouter.Outcome.ROUTED) {
                routed++;
            }
            assertThat(outcome).isEqualTo(RecordRouter.Outcome.BLOCKED);
            assertThat(routed).as("two batches of 4 KiB took a few records").isBetween(2, 20);
            assertThat(router.tryUnblock()).as("no batch is free while the shard is stopped").isFalse();
            router.flush();
            assertThat(head.shard(0).queueDepth()).as("queues stay within bounds").isEqualTo(2);

            head.start(); // the shard drains its queue
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!router.tryUnblock()) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.onSpinWait();
            }
            byte[] retried = payloads.record(0, 8, 8);
            List<String> expected = payloads.produced();
            assertThat(router.route(decoder, PayloadFormat.SLUICE.ordinal(), stream, routed, retried, 0)).isEqualTo(RecordRouter.Outcome.ROUTED);
            long[] handled = new long[streams.size()];
            handled[stream] = routed;
            assertThat(router.handOffWatermarks(new int[] {stream}, 1, handled)).isTrue();
            router.flush();
            awaitDurable(head, stream, routed);
            // The blocked record was made again by the test (a new draw), so the stored set is everything
            // routed: all records before the block and the retried one, nothing of the blocked attempt.
            List<String> stored = StoredSamples.of(head);
            assertThat(stored).hasSize((routed + 1) * 64);
            assertThat(expected).containsAll(stored);
        } finally {
            head.close();
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
