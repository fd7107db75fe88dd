package io.sluice.core.head.replay;

import io.sluice.core.head.records.HeadRecordType;
import io.sluice.core.head.records.OffsetsRecord;
import io.sluice.core.head.records.ReplayRuns;
import io.sluice.core.head.records.SamplesRecord;
import io.sluice.core.head.records.SeriesCodecState;
import io.sluice.core.head.records.SeriesRecord;
import io.sluice.core.head.series.AppendCounts;
import io.sluice.core.head.series.LabelArena;
import io.sluice.core.head.series.SeriesStore;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.labels.MurmurHash3;
import io.sluice.wal.Wal;
import io.sluice.wal.WalPosition;
import io.sluice.wal.WalReader;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Rebuilds a shard from its own WAL on start: SERIES records create series, SAMPLES records are
 * appended through the same rules as live samples (without writing them again), OFFSETS records
 * restore the watermarks. Runs on the shard thread before it takes batches.
 *
 * <p>The decoder shares the shard's {@link SeriesCodecState}, so after replay the encoder continues
 * exactly where the WAL left off. A record that does not decode (it passed the WAL's CRC, so this
 * means a bug or a format mismatch) is counted and skipped; its samples are not lost for good,
 * because the OFFSETS records after it can only be as high as what was applied.
 *
 * <p>Samples reach the store in runs per series ({@link ReplayRuns}), not in WAL order: same chunks,
 * far fewer cache misses. Progress is published per record ({@link ReplayProgress}) and the
 * {@link ReplayListener} told of it. Nothing is allocated per record or per sample.
 */
public final class ShardReplay {
    /** Samples buffered to append series by series ({@link ReplayRuns}): 16 MiB per replaying shard. */
    private static final long RUN_BUFFER_BYTES = 16L << 20;

    private final ReplayTarget shard;
    private final Wal wal;
    private final SeriesStore store;
    private final ShardStats stats;
    private final SeriesRecord.Decoder seriesDecoder = new SeriesRecord.Decoder();
    private final SamplesRecord.Decoder samplesDecoder;
    private final OffsetsRecord.Decoder offsetsDecoder = new OffsetsRecord.Decoder();
    private final StreamRegistry streams;
    private final ReplayProgress progress;
    private final ReplayListener listener;
    private final ReplayRuns runs;
    /** Outcomes of replayed appends; replay keeps no per-outcome stats (as before runs), so only tests look. */
    private final AppendCounts appendCounts = new AppendCounts();
    private byte[] labels = new byte[1024];
    // The stream of the last OFFSETS entry: every batch repeats the same few, so resolving them by name
    // (a String per entry) is done once per stream, not once per record.
    private StreamRegistry.Stream lastStream;

    public ShardReplay(ReplayTarget shard, Wal wal, SeriesStore store, SeriesCodecState codecState, ShardStats stats, StreamRegistry streams,
                ReplayProgress progress, ReplayListener listener) {
        this.shard = shard;
        this.progress = progress;
        this.listener = listener;
        this.wal = wal;
        this.store = store;
        this.stats = stats;
        this.streams = streams;
        this.samplesDecoder = new SamplesRecord.Decoder(codecState);
        this.runs = new ReplayRuns(RUN_BUFFER_BYTES, this::appendRun, this::appendOne);
    }

    private void appendRun(int id, long[] timestampsMs, long[] valueBits, int from, int to) {
        store.appendRun(id, timestampsMs, valueBits, from, to, appendCounts);
    }

    /** Nothing buffered (very many series): the per-sample path, which has no run set-up to pay. */
    private void appendOne(int id, long timestampMs, long valueBits) {
        appendCounts.add(store.append(id, timestampMs, valueBits));
    }

    public void run() throws IOException {
        run(wal.firstPosition());
    }

    /** Replays the records from {@code fromPosition} (a checkpoint's position, or the WAL's first). */
    public void run(long fromPosition) throws IOException {
        // The WAL holds only samples the shard accepted: a late one was inside the window when it came,
        // so replay stores every late sample whatever the shard's newest is by now (runs reorder series).
        long window = store.outOfOrderWindowMs();
        store.outOfOrderWindowMs(SeriesStore.UNLIMITED_WINDOW);
        try {
            replay(fromPosition);
        } finally {
            store.outOfOrderWindowMs(window);
        }
    }

    private void replay(long fromPosition) throws IOException {
        try (WalReader reader = wal.openReader(fromPosition)) {
            progress.begin(fromPosition, wal.writtenPosition());
            while (reader.next()) {
                stats.increment(ShardStats.Counter.REPLAYED_RECORDS);
                MemorySegment m = reader.mapping();
                long off = reader.payloadOffset();
                int len = reader.payloadLength();
                boolean ok = switch (reader.type()) {
                    case HeadRecordType.SERIES -> replaySeries(m, off, len);
                    case HeadRecordType.SAMPLES -> replaySamples(m, off, len, WalPosition.segment(reader.position()));
                    case HeadRecordType.OFFSETS -> replayOffsets(m, off, len);
                    default -> false;
                };
                if (!ok) {
                    stats.increment(ShardStats.Counter.REPLAY_MALFORMED_RECORDS);
                }
                progress.advance(reader.nextPosition());
                listener.onRecord(shard.index(), progress);
            }
        }
        runs.flushAll();
        shard.publishDurable(); // what the WAL holds survived: it is durable
        progress.finish();
    }

    private boolean replaySeries(MemorySegment m, long off, int len) {
        seriesDecoder.wrap(m, off, len);
        while (seriesDecoder.next()) {
            int length = seriesDecoder.labelsLength();
            if (seriesDecoder.seriesId() != store.count() || length > LabelArena.MAX_LABELS_BYTES) {
                return false; // ids are dense and in order; anything else is damage
            }
            if (length > labels.length) {
                labels = new byte[Math.max(length, labels.length * 2)];
            }
            MemorySegment.copy(seriesDecoder.segment(), ValueLayout.JAVA_BYTE, seriesDecoder.labelsOffset(), labels, 0, length);
            shard.createSeries(MurmurHash3.hash64(labels, 0, length), labels, 0, length);
        }
        return !seriesDecoder.isMalformed();
    }

    private boolean replaySamples(MemorySegment m, long off, int len, int walSegment) {
        samplesDecoder.wrap(m, off, len, walSegment);
        int samples = samplesDecoder.decodeAll(runs, store.count() - 1);
        stats.add(ShardStats.Counter.REPLAYED_SAMPLES, samples);
        return !samplesDecoder.isMalformed();
    }

    private boolean replayOffsets(MemorySegment m, long off, int len) {
        offsetsDecoder.wrap(m, off, len);
        while (offsetsDecoder.next()) {
            StreamRegistry.Stream stream = lastStream;
            if (stream == null || stream.partition() != offsetsDecoder.partition() || !offsetsDecoder.topicEquals(stream.topicUtf8())) {
                stream = streams.stream(streams.idOf(offsetsDecoder.topic(), offsetsDecoder.partition()));
                lastStream = stream;
            }
            shard.restoreWatermark(stream.id(), offsetsDecoder.offset());
        }
        return !offsetsDecoder.isMalformed();
    }
}
