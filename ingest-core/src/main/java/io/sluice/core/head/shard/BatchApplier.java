package io.sluice.core.head.shard;

import io.sluice.core.head.records.HeadRecordType;
import io.sluice.core.head.records.SamplesRecord;
import io.sluice.core.head.records.SeriesCodecState;
import io.sluice.core.head.records.SeriesRecord;
import io.sluice.core.head.series.LabelArena;
import io.sluice.core.head.series.SeriesRegistry;
import io.sluice.core.head.series.SeriesStore;
import io.sluice.core.head.series.ShardIndex;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.wal.Wal;
import java.io.IOException;
import java.util.Arrays;

/**
 * Applies a batch to a shard's series and WAL (the shard thread's write path), in two passes:
 * SERIES entries are resolved (found, or created after their SERIES record), then the samples are
 * appended with the store's rules and the accepted ones encoded straight into SAMPLES records; an
 * OFFSETS record follows. Also creates the series that replay and restore read back.
 *
 * <p>Threads: the shard thread only.
 */
final class BatchApplier {
    private static final int SKIPPED = -1;
    private static final int REJECTED = -2;
    /** Largest SAMPLES record claimed at once, bounding the claim to a small part of a segment. */
    private static final int MAX_RECORD_BYTES = 1 << 20;

    private final ShardOptions options;
    private final SeriesStore store;
    private final SeriesRegistry registry;
    private final SeriesRegistry.LabelsMatcher labelsMatcher; // bound once: a method reference per call may allocate
    private final ShardIndex seriesIndex;
    private final ShardStats stats;
    private final StreamWatermarks watermarks;
    private final SamplesRecord.Encoder samplesEncoder;
    private final ShardBatch.Reader reader = new ShardBatch.Reader();
    private final int maxSamplesPerRecord;
    private int[] entryIds = new int[1024];
    private boolean recordOpen;
    private int recordEntries;
    private int recordCapacity;

    BatchApplier(ShardOptions options, SeriesStore store, SeriesRegistry registry, ShardIndex seriesIndex, ShardStats stats,
                 StreamWatermarks watermarks, SeriesCodecState codecState) {
        this.options = options;
        this.store = store;
        this.registry = registry;
        this.labelsMatcher = store::labelsEqual;
        this.seriesIndex = seriesIndex;
        this.stats = stats;
        this.watermarks = watermarks;
        this.samplesEncoder = new SamplesRecord.Encoder(codecState);
        int byBytes = (int) Math.min(MAX_RECORD_BYTES, options.walSegmentBytes() / 4) / SamplesRecord.MAX_ENTRY_BYTES;
        this.maxSamplesPerRecord = Math.max(1, byBytes - 1);
    }

    /** Applies {@code batch}: its series, its samples, its OFFSETS record. On an IOException call {@link #abort}. */
    void apply(ShardBatch batch, Wal wal) throws IOException {
        int entries = resolveSeries(batch, wal);
        appendSamples(batch, entries, wal);
        watermarks.writeOffsets(wal);
    }

    /** After a failed {@link #apply}: drops the SAMPLES record being written, if any. */
    void abort(Wal wal) {
        if (recordOpen) {
            recordOpen = false;
            wal.abort();
        }
    }

    /** Pass 1: finds or creates the series of every SERIES entry (writing SERIES records), notes offsets. */
    private int resolveSeries(ShardBatch batch, Wal wal) throws IOException {
        watermarks.beginBatch();
        boolean skip = false;
        int entries = 0;
        for (ShardBatch.Reader r = reader.wrap(batch); r.next(); ) {
            switch (r.type()) {
                case ShardBatch.RECORD -> {
                    skip = r.offset() <= watermarks.applied(r.streamId());
                    watermarks.touch(r.streamId(), r.offset());
                }
                case ShardBatch.WATERMARK -> watermarks.touch(r.streamId(), r.offset());
                case ShardBatch.CONTINUES -> watermarks.holdBefore(r.streamId(), r.offset());
                case ShardBatch.SERIES -> {
                    if (entries == entryIds.length) {
                        entryIds = Arrays.copyOf(entryIds, entries * 2);
                    }
                    if (skip) {
                        stats.add(ShardStats.Counter.SAMPLES_ALREADY_APPLIED, r.sampleCount());
                        entryIds[entries++] = SKIPPED;
                    } else {
                        entryIds[entries++] = resolve(r, wal);
                    }
                }
                default -> throw new IllegalStateException("unknown batch entry " + r.type());
            }
        }
        return entries;
    }

    private int resolve(ShardBatch.Reader r, Wal wal) throws IOException {
        byte[] bytes = r.array();
        int off = r.labelsOffset();
        int len = r.labelsLength();
        int id = registry.find(r.hash(), r.segment(), off, len, labelsMatcher);
        if (id != SeriesRegistry.ABSENT) {
            return id;
        }
        if (store.count() >= options.maxSeries() || len > LabelArena.MAX_LABELS_BYTES) {
            stats.increment(ShardStats.Counter.SERIES_REJECTED_LIMIT);
            stats.add(ShardStats.Counter.SAMPLES_SERIES_LIMIT, r.sampleCount());
            return REJECTED;
        }
        // The SERIES record goes first: if the WAL cannot take it, nothing was created.
        int newId = store.count();
        long p = wal.claim(HeadRecordType.SERIES, SeriesRecord.maxEntryBytes(len));
        long end = SeriesRecord.write(wal.mapping(), p, newId, bytes, off, len);
        wal.commit((int) (end - p));
        createSeries(r.hash(), bytes, off, len);
        return newId;
    }

    /** Creates a series in the store, the registry and the index (also used by replay and restore). */
    int createSeries(long hash, byte[] labels, int offset, int length) {
        int id = store.create(hash, labels, offset, length);
        registry.insert(hash, id);
        seriesIndex.add(id, labels, offset, length);
        stats.increment(ShardStats.Counter.SERIES_CREATED);
        return id;
    }

    /** Pass 2: appends the samples and encodes the accepted ones into SAMPLES records. */
    private void appendSamples(ShardBatch batch, int entries, Wal wal) throws IOException {
        int entry = 0;
        long remaining = batch.sampleCount();
        for (ShardBatch.Reader r = reader.wrap(batch); r.next(); ) {
            if (r.type() != ShardBatch.SERIES) {
                continue;
            }
            int id = entryIds[entry++];
            int n = r.sampleCount();
            if (id < 0) {
                remaining -= n;
                continue;
            }
            for (int i = 0; i < n; i++, remaining--) {
                long t = r.timestamp(i);
                long v = r.valueBits(i);
                if (!recordOpen) {
                    openRecord(wal, remaining, t);
                }
                switch (store.append(id, t, v)) {
                    case SeriesStore.APPENDED -> {
                        samplesEncoder.add(id, t, v);
                        stats.increment(ShardStats.Counter.SAMPLES_APPENDED);
                        if (++recordEntries == recordCapacity) {
                            closeRecord(wal);
                        }
                    }
                    case SeriesStore.APPENDED_OUT_OF_ORDER -> { // into the WAL like any other sample
                        samplesEncoder.add(id, t, v);
                        stats.increment(ShardStats.Counter.SAMPLES_APPENDED);
                        stats.increment(ShardStats.Counter.SAMPLES_OUT_OF_ORDER);
                        if (++recordEntries == recordCapacity) {
                            closeRecord(wal);
                        }
                    }
                    case SeriesStore.DUPLICATE -> stats.increment(ShardStats.Counter.SAMPLES_DUPLICATE);
                    case SeriesStore.TOO_OLD -> stats.increment(ShardStats.Counter.SAMPLES_TOO_OLD);
                    default -> stats.increment(ShardStats.Counter.SAMPLES_DUPLICATE_TIMESTAMP);
                }
            }
        }
        if (recordOpen) {
            closeRecord(wal);
        }
        assert entry == entries : "entries " + entry + " != " + entries;
    }

    private void openRecord(Wal wal, long remainingSamples, long baseTimestamp) throws IOException {
        recordCapacity = (int) Math.min(remainingSamples, maxSamplesPerRecord);
        long p = wal.claim(HeadRecordType.SAMPLES, SamplesRecord.maxPayloadBytes(recordCapacity));
        samplesEncoder.begin(wal.mapping(), p, wal.segmentIndex(), baseTimestamp);
        recordEntries = 0;
        recordOpen = true;
    }

    private void closeRecord(Wal wal) {
        recordOpen = false;
        if (recordEntries == 0) {
            wal.abort();
        } else {
            wal.commit(samplesEncoder.length());
        }
    }
}
