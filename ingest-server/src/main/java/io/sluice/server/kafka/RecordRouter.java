package io.sluice.server.kafka;

import io.sluice.core.head.Head;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.kafka.RecordInFlight.Pass;
import io.sluice.server.kafka.RecordInFlight.SinkState;
import java.util.Arrays;

/**
 * Sorts the samples of decoded Kafka records into one open batch per shard: label pairs or canonical
 * labels go through a {@link LabelsBuilder} (validation, canonical bytes, MurmurHash3), the hash picks
 * the shard, and the series and its samples are appended to that shard's open {@link ShardBatch}.
 * Sharding happens here, once; a shard receives only its own samples. Nothing is allocated per
 * series or sample.
 *
 * <p>A record is all or nothing. Before its first sample in a shard the router writes
 * {@code record(streamId, offset)} and remembers the batch's {@link ShardBatch#mark() mark}; if the
 * record turns out to be bad (a {@link PayloadException}, invalid labels) every touched batch is
 * rewound to its mark. Consecutive samples of one series share one SERIES entry (influx and otlp
 * name the series again for every sample; {@link ShardBatch#reopenSeries}), and a series' entry is
 * written at its first sample, so a series without samples costs nothing. Batches and records:
 * <ul>
 *   <li>before a record, a batch whose free space is below the record's expected share (learnt per
 *       format as bytes added per record byte) is submitted first;</li>
 *   <li>if a batch still fills up mid-record, the record is rewound, that batch submitted and the
 *       record decoded again into a fresh one;</li>
 *   <li>a record whose samples for one shard do not fit even an empty batch is <em>split</em>: it is
 *       first decoded without writing anything (a validation pass: a malformed record is rejected
 *       whole before any part of it is handed over), then decoded again, and each batch that fills up
 *       ends with {@link ShardBatch#recordContinues} and is submitted; the next batch repeats the
 *       RECORD entry. The shard keeps the stream's watermark below the record until the part without
 *       CONTINUES is applied, so the record's offset counts as applied only when all its parts are
 *       (docs/design/exactly-once.md). If a shard has no free batch mid-split the record is
 *       {@link Outcome#BLOCKED} as usual and decoded again later, skipping the samples already handed over
 *       ({@link RecordSplit});</li>
 *   <li>only a single series whose labels and one sample do not fit an empty batch is rejected as
 *       {@link RejectReasons#TOO_LARGE}, before anything is handed over.</li>
 * </ul>
 *
 * <p>Backpressure: when a shard has no free batch ({@link io.sluice.core.head.shard.Shard#acquireBatch()}
 * is null) the record is rewound and {@link #route} returns {@link Outcome#BLOCKED}; the caller retries the
 * same record after {@link #tryUnblock()}.
 *
 * <p>Offsets-only hand-off: {@link #handOffWatermarks} tells every shard how far each stream has been
 * handled, also shards that got none of its samples, so no shard holds the commit back.
 *
 * <p>Owned by one consumer thread: every field is read and written by that thread only.
 */
final class RecordRouter implements MetricSink {
    /** What {@link #route} did with a record. */
    enum Outcome {
        /** Its samples are in the open batches; count them with {@link #recordSamples()}. */
        ROUTED,
        /** Nothing of it was kept: a shard had no free batch; call again after {@link #tryUnblock()}. */
        BLOCKED,
        /** Nothing of it was kept: it is bad; see {@link #rejectReason()}. */
        REJECTED
    }

    /** How one decoding pass ended: an {@link Outcome}, or a batch filled up mid-record (not yet rewound). */
    private enum PassEnd {
        ROUTED, BLOCKED, REJECTED, BATCH_FULL;

        Outcome outcome() {
            return switch (this) {
                case ROUTED -> Outcome.ROUTED;
                case BLOCKED -> Outcome.BLOCKED;
                case REJECTED -> Outcome.REJECTED;
                case BATCH_FULL -> throw new IllegalStateException("a full batch is handled by route");
            };
        }
    }

    /** Why the last {@link Outcome#REJECTED} record was rejected. */
    private static final class Rejection {
        String reason;
        String message;
        long samples;                // samples the decoder had emitted before the rejection
        RuntimeException internalError;
    }

    private static final byte[] EMPTY = new byte[0];
    /** What a series needs in an empty batch besides its labels: RECORD, series header, one sample, CONTINUES. */
    private static final int SERIES_ENTRY_OVERHEAD = 2 * ShardBatch.RECORD_BYTES + ShardBatch.SERIES_HEADER_BYTES
            + ShardBatch.SAMPLE_BYTES;
    /** How fast the learnt expansion decays towards a smaller observed one (1/64 per record). */
    private static final int EXPANSION_DECAY = 64;

    private final Head head;
    private final LabelsBuilder labels;
    private final int maxRecordBytes;
    private final int batchCapacityBytes;
    private final ShardBatch[] open;          // the open batch of each shard, null if none
    private final int[] marks;                // per shard: batch length before this record, -1 if untouched
    private final int[] touched;              // shards the current record touched
    private final double[] expansionByFormat; // per format ordinal: batch bytes added per record byte (max over shards)
    private final long[][] sentWatermarks;    // [shard][streamId]: the last watermark handed to the shard, -1 none
    private final RecordSplit split;

    private final RecordInFlight record = new RecordInFlight();
    private final Rejection rejection = new Rejection();
    private int touchedCount;                 // entries of touched[] for the record being routed
    private int blockedShard = -1;

    RecordRouter(Head head, LabelLimits labelLimits, int maxRecordBytes, int formats) {
        this.head = head;
        this.labels = new LabelsBuilder(labelLimits);
        this.maxRecordBytes = maxRecordBytes;
        this.batchCapacityBytes = head.options().perShard().batchBytes();
        int shards = head.shardCount();
        this.open = new ShardBatch[shards];
        this.marks = new int[shards];
        this.touched = new int[shards];
        this.expansionByFormat = new double[formats];
        this.sentWatermarks = new long[shards][0];
        this.split = new RecordSplit(shards);
        Arrays.fill(marks, -1);
    }

    /**
     * Routes one record value: {@link Outcome#ROUTED}, {@link Outcome#BLOCKED} (call again after
     * {@link #tryUnblock()}) or {@link Outcome#REJECTED}.
     */
    Outcome route(PayloadDecoder decoder, int formatIndex, int streamId, long offset, byte[] value, long recordTimestampMs) {
        byte[] bytes = value == null ? EMPTY : value;
        if (bytes.length == 0) { // influx and otlp would read it as a valid request of nothing: say so instead
            return reject(PayloadException.Reason.EMPTY.label(), "empty record (" + (value == null ? "null value" : "0 bytes")
                    + ")", 0);
        }
        if (bytes.length > maxRecordBytes) {
            return reject(RejectReasons.TOO_LARGE, "record of " + bytes.length + " bytes exceeds maxRecordBytes "
                    + maxRecordBytes, 0);
        }
        record.streamId = streamId;
        record.offset = offset;
        if (!split.resumes(streamId, offset)) {
            split.clear();
            makeRoom(formatIndex, bytes.length);
        }
        while (true) {
            PassEnd end = decodeOnce(decoder, bytes, recordTimestampMs, split.active() ? Pass.SPLIT : Pass.WHOLE);
            if (end != PassEnd.BATCH_FULL) {
                if (end == PassEnd.ROUTED) {
                    if (!split.active()) {
                        learnExpansion(formatIndex, bytes.length);
                    }
                    forgetMarks();
                }
                if (end != PassEnd.BLOCKED) {
                    split.clear();
                }
                return end.outcome();
            }
            // A batch filled up mid-record: rewound; hand that batch over and decode again, or split.
            int shard = record.stateShard;
            boolean fromEmptyBatch = marks[shard] == 0;
            rollback();
            if (!fromEmptyBatch) {
                submit(shard);
                continue;
            }
            PassEnd valid = decodeOnce(decoder, bytes, recordTimestampMs, Pass.VALIDATE);
            if (valid == PassEnd.BATCH_FULL) {
                return reject(RejectReasons.TOO_LARGE, "series " + record.labelErrorSeries + " of the record does not fit an empty batch of "
                        + batchCapacityBytes + " bytes with one sample; raise queue.batch-bytes", record.samples);
            }
            if (valid != PassEnd.ROUTED) {
                return valid.outcome();
            }
            split.begin(streamId, offset);
        }
    }

    /** Decodes into the batches (or, validating, nowhere); a BATCH_FULL end is not yet rewound. */
    private PassEnd decodeOnce(PayloadDecoder decoder, byte[] bytes, long recordTimestampMs, Pass pass) {
        if (pass == Pass.SPLIT) {
            split.startPass();
        }
        touchedCount = 0;
        record.startPass(pass);
        try {
            decoder.decode(bytes, 0, bytes.length, recordTimestampMs, this);
        } catch (PayloadException e) {
            rollback();
            reject(e.reason().label(), e.getMessage(), record.samples);
            return PassEnd.REJECTED;
        } catch (RuntimeException e) {
            rollback();
            rejectInternal(e);
            return PassEnd.REJECTED;
        }
        return switch (record.state) {
            case WRITING -> PassEnd.ROUTED;
            case LABEL_ERROR -> {
                rollback();
                reject(RejectReasons.of(record.labelError), "series " + record.labelErrorSeries + " of the record: "
                        + RejectReasons.of(record.labelError) + describeLabelError(), record.samples);
                yield PassEnd.REJECTED;
            }
            case NO_BATCH -> {
                rollback();
                blockedShard = record.stateShard;
                yield PassEnd.BLOCKED;
            }
            case OVERFLOW -> PassEnd.BATCH_FULL;
        };
    }

    private String describeLabelError() {
        int at = labels.errorPosition();
        return at < 0 ? "" : " (position " + at + ")";
    }

    /**
     * After {@link Outcome#BLOCKED}: takes a free batch of the shard that had none, if there is one now.
     * True when the record can be retried.
     */
    boolean tryUnblock() {
        if (blockedShard < 0) {
            return true;
        }
        if (open[blockedShard] == null) {
            ShardBatch batch = head.shard(blockedShard).acquireBatch();
            if (batch == null) {
                return false;
            }
            open[blockedShard] = batch;
        }
        blockedShard = -1;
        return true;
    }

    /** The shard that had no free batch at the last {@link Outcome#BLOCKED}, or -1. */
    int blockedShard() {
        return blockedShard;
    }

    // ---------------------------------------------------------------- MetricSink (decoder callbacks)

    @Override
    public void beginSeries() {
        record.seriesShard = -1;
        record.series++;
        if (record.state == SinkState.WRITING) {
            labels.reset();
        }
    }

    @Override
    public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
        if (record.state == SinkState.WRITING) {
            labels.add(nameBuf, nameOff, nameLen, valueBuf, valueOff, valueLen);
        }
    }

    @Override
    public void endLabels() {
        if (record.state == SinkState.WRITING) {
            LabelsStatus status = labels.build();
            if (status != LabelsStatus.OK) {
                labelError(status);
                return;
            }
            routeSeries(labels.hash(), labels.length());
        }
    }

    @Override
    public void canonicalSeries(byte[] buf, int off, int len) {
        record.seriesShard = -1;
        record.series++;
        if (record.state == SinkState.WRITING) {
            LabelsStatus status = labels.fromCanonical(buf, off, len);
            if (status != LabelsStatus.OK) {
                labelError(status);
                return;
            }
            routeSeries(labels.hash(), len); // the builder holds a copy of the canonical bytes
        }
    }

    @Override
    public void sample(long timestampMs, double value) {
        RecordInFlight r = record;
        r.samples++;
        int shard = r.seriesShard;
        boolean splitting = r.pass == Pass.SPLIT;
        if (shard < 0 || (splitting && split.skip(shard))) {
            return;
        }
        ShardBatch batch = splitting ? splitBatch(shard) : wholeBatch(shard);
        if (batch == null) {
            return;
        }
        if (r.seriesEntryPending) {
            byte[] canonical = labels.bytes();
            int len = labels.length();
            if (!batch.reopenSeries(r.seriesHash, canonical, 0, len) && !batch.series(r.seriesHash, canonical, 0, len)) {
                r.stop(SinkState.OVERFLOW, shard);
                return;
            }
            r.seriesEntryPending = false;
        }
        if (!batch.sample(timestampMs, Double.doubleToRawLongBits(value))) {
            r.stop(SinkState.OVERFLOW, shard);
            return;
        }
        if (splitting) {
            split.written(shard);
        }
    }

    /** The series' samples go to its shard; its entry is written at the first sample (see {@link #sample}). */
    private void routeSeries(long hash, int labelsLength) {
        if (record.pass == Pass.VALIDATE) {
            if (SERIES_ENTRY_OVERHEAD + labelsLength > batchCapacityBytes) {
                record.labelErrorSeries = record.series - 1;
                record.stop(SinkState.OVERFLOW, -1); // no batch could take this series: the record is too large
            }
            return;
        }
        record.seriesShard = head.shardOf(hash);
        record.seriesHash = hash;
        record.seriesEntryPending = true;
    }

    /** WHOLE pass: the shard's open batch, with the record's RECORD entry; null if stopped. */
    private ShardBatch wholeBatch(int shard) {
        ShardBatch batch = open[shard];
        if (marks[shard] < 0) { // the record's first sample in this shard
            if (batch == null) {
                batch = acquire(shard);
                if (batch == null) {
                    return null;
                }
            }
            marks[shard] = batch.mark();
            touched[touchedCount++] = shard;
            if (!batch.record(record.streamId, record.offset)) {
                record.stop(SinkState.OVERFLOW, shard);
                return null;
            }
        }
        return batch;
    }

    /**
     * SPLIT pass: the shard's open batch with room for the current sample (and its series entry if
     * pending) plus a CONTINUES entry. A batch without that room is handed over first, ending with
     * CONTINUES if it holds part of the record; the new one starts with the RECORD entry again and the
     * series' entry is written again. Null if the shard had no free batch (stopped: BLOCKED).
     */
    private ShardBatch splitBatch(int shard) {
        int need = (record.seriesEntryPending ? ShardBatch.SERIES_HEADER_BYTES + labels.length() : 0)
                + ShardBatch.SAMPLE_BYTES + ShardBatch.RECORD_BYTES;
        ShardBatch batch = open[shard];
        boolean recordInBatch = marks[shard] >= 0;
        if (batch != null && batch.remainingBytes() >= need + (recordInBatch ? 0 : ShardBatch.RECORD_BYTES)) {
            if (!recordInBatch) {
                startRecord(shard, batch);
            }
            return batch;
        }
        if (batch != null) {
            if (recordInBatch) {
                batch.recordContinues(record.streamId, record.offset); // room was kept for it
                split.handOver(shard);
            }
            submit(shard);
        }
        batch = acquire(shard);
        if (batch == null) {
            return null;
        }
        startRecord(shard, batch);
        record.seriesEntryPending = true; // the series' entry starts again in the new batch
        return batch;
    }

    /** A free batch of the shard, now its open one; null if it has none (stopped: NO_BATCH). */
    private ShardBatch acquire(int shard) {
        ShardBatch batch = head.shard(shard).acquireBatch();
        if (batch == null) {
            record.stop(SinkState.NO_BATCH, shard);
        } else {
            open[shard] = batch;
        }
        return batch;
    }

    /** Marks the batch (for a rollback) and writes the record's RECORD entry; room was checked. */
    private void startRecord(int shard, ShardBatch batch) {
        if (marks[shard] < 0) {
            touched[touchedCount++] = shard;
        }
        marks[shard] = batch.mark();
        batch.record(record.streamId, record.offset);
    }

    private void labelError(LabelsStatus status) {
        record.labelError = status;
        record.labelErrorSeries = record.series - 1;
        record.stop(SinkState.LABEL_ERROR, -1);
    }

    // ---------------------------------------------------------------- batches

    /** Submits, before the record, every open batch with less room than the record is expected to take. */
    private void makeRoom(int formatIndex, int recordBytes) {
        long expected = (long) Math.ceil(recordBytes * expansionByFormat[formatIndex]);
        if (expected == 0) {
            return;
        }
        for (int s = 0; s < open.length; s++) {
            ShardBatch batch = open[s];
            if (batch != null && !batch.isEmpty() && batch.capacityBytes() - batch.lengthBytes() < expected) {
                submit(s);
            }
        }
    }

    private void learnExpansion(int formatIndex, int recordBytes) {
        if (recordBytes == 0) {
            return;
        }
        int maxAdded = 0;
        for (int i = 0; i < touchedCount; i++) {
            int s = touched[i];
            maxAdded = Math.max(maxAdded, open[s].lengthBytes() - marks[s]);
        }
        double observed = (double) maxAdded / recordBytes;
        double e = expansionByFormat[formatIndex];
        expansionByFormat[formatIndex] = observed >= e ? observed : e - (e - observed) / EXPANSION_DECAY;
    }

    private void rollback() {
        for (int i = 0; i < touchedCount; i++) {
            int s = touched[i];
            if (open[s] != null) { // null: handed over mid-split and no batch since (BLOCKED)
                open[s].rewind(marks[s]);
            }
            marks[s] = -1;
        }
        touchedCount = 0;
    }

    private void forgetMarks() {
        for (int i = 0; i < touchedCount; i++) {
            marks[touched[i]] = -1;
        }
        touchedCount = 0;
    }

    private void submit(int shard) {
        ShardBatch batch = open[shard];
        open[shard] = null;
        head.shard(shard).submit(batch);
    }

    /**
     * Hands every non-empty open batch to its shard and returns empty ones to their pools (end of a
     * poll, backpressure, revocation, shutdown): between polls this thread holds no batch, so other
     * consumer threads of the process can always get one. Only between records.
     */
    void flush() {
        for (int s = 0; s < open.length; s++) {
            ShardBatch batch = open[s];
            if (batch != null) {
                open[s] = null;
                if (batch.isEmpty()) {
                    head.shard(s).release(batch);
                } else {
                    head.shard(s).submit(batch);
                }
            }
        }
    }

    /** Returns the open batches unused to their shards' pools (the router is closing). */
    void releaseOpenBatches() {
        for (int s = 0; s < open.length; s++) {
            if (open[s] != null) {
                head.shard(s).release(open[s]);
                open[s] = null;
            }
        }
    }

    /**
     * Tells every shard how far each of {@code streams[0, count)} has been handled: a WATERMARK entry
     * {@code (streamId, handled[streamId])} for each stream a shard has not heard of up to there.
     * Returns false if some shard had no free batch; the rest is handed over on the next call.
     */
    boolean handOffWatermarks(int[] streams, int count, long[] handled) {
        boolean complete = true;
        for (int s = 0; s < open.length; s++) {
            long[] sent = sentWatermarks(s, handled.length);
            for (int i = 0; i < count; i++) {
                int id = streams[i];
                long w = handled[id];
                if (w > sent[id]) {
                    if (!appendWatermark(s, id, w)) {
                        complete = false;
                        break;
                    }
                    sent[id] = w;
                }
            }
        }
        return complete;
    }

    /** Forgets what was handed over for {@code streamId} (its partition was assigned again). */
    void resetWatermark(int streamId, long handled) {
        for (int s = 0; s < open.length; s++) {
            long[] sent = sentWatermarks(s, streamId + 1);
            sent[streamId] = handled;
        }
    }

    private boolean appendWatermark(int shard, int id, long watermark) {
        for (int attempt = 0; attempt < 2; attempt++) {
            ShardBatch batch = open[shard];
            if (batch == null) {
                batch = head.shard(shard).acquireBatch();
                if (batch == null) {
                    return false;
                }
                open[shard] = batch;
            }
            if (batch.watermark(id, watermark)) {
                return true;
            }
            submit(shard); // full: the entry goes into the next batch
        }
        throw new IllegalStateException("a watermark entry does not fit an empty batch of shard " + shard);
    }

    private long[] sentWatermarks(int shard, int streams) {
        long[] sent = sentWatermarks[shard];
        if (sent.length < streams) {
            int old = sent.length;
            sent = Arrays.copyOf(sent, Math.max(streams, old * 2));
            Arrays.fill(sent, old, sent.length, -1L);
            sentWatermarks[shard] = sent;
        }
        return sent;
    }

    // ---------------------------------------------------------------- outcome

    private Outcome reject(String reason, String message, long samples) {
        rejection.reason = reason;
        rejection.message = message;
        rejection.samples = samples;
        return Outcome.REJECTED;
    }

    private void rejectInternal(RuntimeException e) {
        reject(RejectReasons.INTERNAL_ERROR, "decoder failed: " + e, record.samples);
        rejection.internalError = e;
    }

    /** Samples of the last ROUTED record. */
    long recordSamples() {
        return record.samples;
    }

    String rejectReason() {
        return rejection.reason;
    }

    String rejectMessage() {
        return rejection.message;
    }

    /** Samples the decoder had emitted from the last REJECTED record before it was rejected. */
    long rejectedSamples() {
        return rejection.samples;
    }

    /** The exception behind the last {@link RejectReasons#INTERNAL_ERROR}, then cleared. */
    RuntimeException takeInternalError() {
        RuntimeException e = rejection.internalError;
        rejection.internalError = null;
        return e;
    }
}
