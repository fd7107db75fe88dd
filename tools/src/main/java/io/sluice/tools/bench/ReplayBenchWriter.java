package io.sluice.tools.bench;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.server.metrics.HeadTotals;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes the replay benchmark's WAL through the head's batch API, as the Kafka path does but
 * without Kafka: each scrape round is one "poll" of Kafka records of {@value #SAMPLES_PER_RECORD}
 * samples each (one topic-partition, offsets 0, 1, 2, ...); every shard gets a RECORD entry before
 * the samples of a record, a WATERMARK for the poll at its end, and its batch is handed over then
 * (or earlier, between records, when the next record might not fit) — so each shard writes SAMPLES records and one OFFSETS
 * record per batch, as in production.
 *
 * <p>Runs on the calling thread (it is the "consumer"); the head's shard threads apply the batches.
 * Not reusable: {@link #write} once.
 */
public final class ReplayBenchWriter {
    /** Samples per simulated Kafka record, as the Prometheus harness commits 1,000 samples at a time. */
    public static final int SAMPLES_PER_RECORD = 1_000;
    static final String TOPIC = "bench";
    private static final long PROGRESS_INTERVAL_NS = 1_000_000_000L;

    private final HeadOptions options;
    private final RoundWorkload workload;
    private final PrintWriter progressOut;

    // Calling thread only.
    private Head head;
    private int stream;
    private ShardBatch[] batches;
    private long[] recordInBatch; // per shard: the offset whose RECORD entry the current batch holds, -1 none
    private final int maxRecordBytes; // a whole record for one shard, its RECORD entry and a WATERMARK

    public ReplayBenchWriter(HeadOptions options, RoundWorkload workload, PrintWriter progressOut) {
        this.options = options;
        this.workload = workload;
        this.progressOut = progressOut;
        this.maxRecordBytes = 2 * ShardBatch.RECORD_BYTES
                + SAMPLES_PER_RECORD * (ShardBatch.SERIES_HEADER_BYTES + workload.maxLabelsLength() + ShardBatch.SAMPLE_BYTES);
        if (maxRecordBytes > options.perShard().batchBytes()) {
            throw new IllegalArgumentException("batches of " + options.perShard().batchBytes() + " bytes cannot hold a record of "
                    + maxRecordBytes + " bytes");
        }
    }

    /** What was written. */
    public record Result(long samples, long series, long walBytes, double seconds, long appended) {
        public double walBytesPerSample() {
            return samples == 0 ? 0 : (double) walBytes / samples;
        }
    }

    /** Writes {@code samples} (rounded down to whole scrape rounds) into a fresh head at the options' directory, then closes it. */
    public Result write(long samples) throws IOException {
        int series = workload.seriesCount();
        long rounds = samples / series;
        head = new Head(options, new StreamRegistry(), new MemoryAccounting());
        head.start();
        long t0 = System.nanoTime();
        long walBytes;
        long appended;
        try {
            stream = head.streams().idOf(TOPIC, 0);
            batches = new ShardBatch[head.shardCount()];
            recordInBatch = new long[head.shardCount()];
            Arrays.fill(recordInBatch, -1L);
            long offset = 0;
            long lastProgressNs = t0;
            for (long r = 0; r < rounds; r++) {
                offset = writeRound(r, offset);
                long now = System.nanoTime();
                if (now - lastProgressNs >= PROGRESS_INTERVAL_NS) {
                    lastProgressNs = now;
                    long done = (r + 1) * series;
                    progressOut.printf("write: %,d of %,d samples (%.0f%%), %.2f M samples/s%n", done, rounds * series,
                            100.0 * (r + 1) / rounds, done / ((now - t0) / 1e9) / 1e6);
                    progressOut.flush();
                }
            }
        } finally {
            head.close(); // drains the queues, syncs the WALs
        }
        walBytes = HeadTotals.walBytesWritten(head);
        appended = HeadTotals.sum(head, ShardStats.Counter.SAMPLES_APPENDED);
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Result(rounds * series, series, walBytes, seconds, appended);
    }

    /** One scrape of every series: records of {@value #SAMPLES_PER_RECORD} samples; returns the next offset. */
    private long writeRound(long round, long firstOffset) {
        int series = workload.seriesCount();
        long t = workload.scrapeTimeMs(round);
        long offset = firstOffset;
        for (int from = 0; from < series; from += SAMPLES_PER_RECORD, offset++) {
            int to = Math.min(series, from + SAMPLES_PER_RECORD);
            for (int i = from; i < to; i++) {
                long bits = Double.doubleToRawLongBits(workload.value(i, round));
                addSample(head.shardOf(workload.hash(i)), offset, i, t, bits);
            }
        }
        long last = offset - 1;
        for (int s = 0; s < batches.length; s++) {
            batch(s).watermark(stream, last); // room was kept when the batch's last record began
            handOver(s);
        }
        return offset;
    }

    private void addSample(int shard, long offset, int series, long t, long bits) {
        ShardBatch batch = batch(shard);
        if (recordInBatch[shard] != offset) {
            // A record is never split across batches: start it only where all of it fits, with the poll's watermark.
            if (batch.remainingBytes() < maxRecordBytes) {
                handOver(shard);
                batch = batch(shard);
            }
            batch.record(stream, offset);
            recordInBatch[shard] = offset;
        }
        byte[] labels = workload.labels(series);
        if (!batch.series(workload.hash(series), labels, 0, labels.length) || !batch.sample(t, bits)) {
            throw new IllegalStateException("batch of " + batch.capacityBytes() + " bytes too small for a record of "
                    + maxRecordBytes + " bytes");
        }
    }

    private ShardBatch batch(int shard) {
        ShardBatch batch = batches[shard];
        while (batch == null) {
            batch = head.shard(shard).acquireBatch();
            if (batch == null) {
                LockSupport.parkNanos(20_000); // all of the shard's batches are in flight: wait for one
            }
        }
        batches[shard] = batch;
        return batch;
    }

    private void handOver(int shard) {
        ShardBatch batch = batches[shard];
        if (batch != null && !batch.isEmpty()) {
            head.shard(shard).submit(batch);
            batches[shard] = null;
        }
        recordInBatch[shard] = -1;
    }
}
