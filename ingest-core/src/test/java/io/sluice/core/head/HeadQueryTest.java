package io.sluice.core.head;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HeadQuery} selection by time range without copying chunks first (the series' first and last
 * timestamps decide, {@link HeadQuery#next()} skips a series whose gap spans the range), and the
 * allocation of a one-series select among many that share a metric name; {@link Head#timeRange()}.
 */
class HeadQueryTest {
    private static final long HOUR_MS = 3_600_000L;
    @TempDir
    Path dir;
    private final LabelsBuilder labels = new LabelsBuilder(LabelLimits.DEFAULT);
    private final StreamRegistry streams = new StreamRegistry();
    private final int stream = streams.idOf("queries", 0);

    @Test
    void aRangeSelectsTheSeriesWithSamplesInItOnly() throws IOException {
        try (Head head = open(1)) {
            ShardBatch batch = head.shard(0).acquireBatch();
            batch.record(stream, 0);
            add(batch, "early", 1_000, 2_000);
            add(batch, "late", 100_000, 101_000);
            add(batch, "gap", 1_000, 10 * HOUR_MS); // two chunks, nothing between (chunks span 2 h)
            add(batch, "wide", 1_000, 50_000, 10 * HOUR_MS);
            head.shard(0).submit(batch);
            awaitSamples(head, 9);

            assertThat(names(head, 1_500, 1_500)).as("chunks overlapping the range").containsExactly("early", "wide");
            assertThat(names(head, 40_000, 60_000)).as("gap overlaps by first/last only: skipped").containsExactly("wide");
            assertThat(names(head, 2_001, 99_999)).containsExactly("wide");
            assertThat(names(head, 100_500, 10 * HOUR_MS)).containsExactly("gap", "late", "wide");
            assertThat(names(head, 10 * HOUR_MS + 1, Long.MAX_VALUE)).isEmpty();
            assertThat(head.query(40_000, 60_000, Matcher.re("__name__", ".+")).size()).as("an upper bound").isEqualTo(2);
            assertThat(head.timeRange()).as("first and last sample over every series").containsExactly(1_000, 10 * HOUR_MS);
        }
    }

    @Test
    void anEmptyHeadHasNoTimeRange() throws IOException {
        try (Head head = open(2)) {
            assertThat(head.timeRange()).isNull();
        }
    }

    /**
     * One series of 50,000 that share {@code __name__}: selecting it must not copy the name's postings
     * (a bitmap over every series, ~8 KB here and 45 KB at 100,000 series in one shard), nor snapshot the
     * series twice.
     */
    @Test
    void aOneSeriesSelectAllocatesAboutItsResult() throws IOException {
        int series = 50_000;
        try (Head head = open(1)) {
            ShardBatch batch = null;
            for (int s = 0; s < series; s++) {
                if (batch == null) {
                    batch = acquire(head.shard(0));
                    batch.record(stream, s);
                }
                if (!add(batch, "m", "host-" + s, s)) {
                    head.shard(0).submit(batch);
                    batch = null;
                    s--;
                }
            }
            head.shard(0).submit(batch);
            awaitSamples(head, series);

            Matcher[] one = {Matcher.eq("__name__", "m"), Matcher.eq("instance", "host-4242")};
            for (int i = 0; i < 2_000; i++) {
                readAll(head, one);
            }
            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            int queries = 1_000;
            long before = threads.getCurrentThreadAllocatedBytes();
            long samples = 0;
            for (int i = 0; i < queries; i++) {
                samples += readAll(head, one);
            }
            long perQuery = (threads.getCurrentThreadAllocatedBytes() - before) / queries;
            assertThat(samples).isEqualTo(queries);
            // One SeriesSnapshot (4.9 KB of buffers, reused for every series of the query), the selection's
            // small bitmaps, one entry: ~5.8 KB. Before: a second snapshot and the name's postings, ~19 KB.
            assertThat(perQuery).as("bytes allocated per one-series query").isLessThan(8_192);
        }
    }

    private Head open(int shards) throws IOException {
        Head head = new Head(HeadOptions.defaults(dir).withShards(shards).withPerShard(s -> s.withWalSegmentBytes(4 << 20)), streams, new MemoryAccounting());
        head.start();
        return head;
    }

    private static ShardBatch acquire(Shard shard) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        ShardBatch batch;
        while ((batch = shard.acquireBatch()) == null) {
            assertThat(System.nanoTime()).as("a free batch").isLessThan(deadline);
            Thread.onSpinWait();
        }
        return batch;
    }

    private boolean add(ShardBatch batch, String name, long... timestampsMs) {
        return add(batch, name, "i", timestampsMs);
    }

    private boolean add(ShardBatch batch, String name, String instance, long... timestampsMs) {
        labels.reset().add("__name__", name).add("instance", instance);
        assertThat(labels.build()).isEqualTo(LabelsStatus.OK);
        if (batch.remainingBytes() < 256 || !batch.series(labels.hash(), labels.bytes(), 0, labels.length())) {
            return false;
        }
        for (long t : timestampsMs) {
            assertThat(batch.sample(t, Double.doubleToRawLongBits(t))).isTrue();
        }
        return true;
    }

    private static long readAll(Head head, Matcher... matchers) {
        long n = 0;
        HeadQuery q = head.query(Long.MIN_VALUE, Long.MAX_VALUE, matchers);
        while (q.next()) {
            for (SeriesSnapshot.Samples s = q.samples(); s.next(); ) {
                n++;
            }
        }
        return n;
    }

    private static List<String> names(Head head, long minTimeMs, long maxTimeMs) {
        List<String> out = new ArrayList<>();
        HeadQuery q = head.query(minTimeMs, maxTimeMs, Matcher.re("__name__", ".+"));
        while (q.next()) {
            out.add(q.labels().toMap().get("__name__"));
        }
        return out;
    }

    private static void awaitSamples(Head head, long samples) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (head.shard(0).stats().get(ShardStats.Counter.SAMPLES_APPENDED) < samples) {
            assertThat(System.nanoTime()).as("samples appended").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }
}
