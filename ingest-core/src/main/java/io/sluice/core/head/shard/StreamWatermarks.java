package io.sluice.core.head.shard;

import io.sluice.core.head.records.HeadRecordType;
import io.sluice.core.head.records.OffsetsRecord;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.wal.Wal;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * A shard's Kafka offsets per stream (topic-partition id of its {@link StreamRegistry}), the
 * bookkeeping of the exactly-once contract:
 * <ul>
 *   <li><b>pending</b>: the highest offset the batch being applied covers, per stream it touched;</li>
 *   <li><b>applied</b>: the highest offset whose samples are in the WAL (an OFFSETS record written
 *       after them); records at or below it are skipped when Kafka delivers them again;</li>
 *   <li><b>durable</b>: applied as of the last WAL sync, published for the Kafka layer's commits.</li>
 * </ul>
 * A record split over several batches holds its stream's watermark below it until its last part
 * ({@link #holdBefore}). Threads: the shard thread for everything but {@link #durable(int)}, which
 * any thread reads (elements published with release, read with acquire). Allocates only when a new
 * stream id appears.
 */
final class StreamWatermarks {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final StreamRegistry streams;
    private long[] applied = new long[0];        // highest applied offset per stream id, -1 none
    private long[] pending = new long[0];        // this batch's highest offset per stream, MIN_VALUE none
    private int[] touched = new int[16];         // stream ids with a pending offset, in first-touch order
    private int touchedCount;
    private volatile long[] durable = new long[0];

    StreamWatermarks(StreamRegistry streams) {
        this.streams = streams;
    }

    /** Starts a batch: nothing pending. */
    void beginBatch() {
        touchedCount = 0;
    }

    /** The batch covers {@code offset} of {@code streamId} (a record or a watermark entry). */
    void touch(int streamId, long offset) {
        ensure(streamId);
        if (pending[streamId] == Long.MIN_VALUE) {
            if (touchedCount == touched.length) {
                touched = Arrays.copyOf(touched, touchedCount * 2);
            }
            touched[touchedCount++] = streamId;
            pending[streamId] = offset;
        } else if (offset > pending[streamId]) {
            pending[streamId] = offset;
        }
    }

    /** Record {@code offset} is not complete in this batch: the stream's watermark stays below it. */
    void holdBefore(int streamId, long offset) {
        touch(streamId, offset - 1);
        pending[streamId] = Math.min(pending[streamId], offset - 1);
    }

    /** Writes one OFFSETS record for the streams this batch covered and advances their applied offsets. */
    void writeOffsets(Wal wal) throws IOException {
        if (touchedCount == 0) {
            return;
        }
        int max = 0;
        for (int i = 0; i < touchedCount; i++) {
            max += OffsetsRecord.maxEntryBytes(streams.stream(touched[i]).topicUtf8().length);
        }
        long p = wal.claim(HeadRecordType.OFFSETS, max);
        long end = p;
        MemorySegment m = wal.mapping();
        for (int i = 0; i < touchedCount; i++) {
            int s = touched[i];
            long offset = Math.max(applied[s], pending[s]);
            StreamRegistry.Stream stream = streams.stream(s);
            end = OffsetsRecord.write(m, end, stream.topicUtf8(), stream.partition(), offset);
            applied[s] = offset;
            pending[s] = Long.MIN_VALUE;
        }
        wal.commit((int) (end - p));
        touchedCount = 0;
    }

    /**
     * A batch failed part-way: drop the offsets it noted, so its retry notes them afresh. Without this
     * the streams it touched keep a pending offset, are never listed as touched again, and their
     * OFFSETS (so the durable watermark and the Kafka commit) stop advancing for good.
     */
    void forgetPending() {
        for (int i = 0; i < touchedCount; i++) {
            pending[touched[i]] = Long.MIN_VALUE;
        }
        touchedCount = 0;
    }

    /** Streams with a slot (ids 0..n-1). */
    int known() {
        return applied.length;
    }

    /** The highest offset of {@code streamId} applied, -1 if none. */
    long applied(int streamId) {
        return streamId < applied.length ? applied[streamId] : -1;
    }

    /** Replay and checkpoint load: an offset read back from the WAL or a checkpoint. */
    void restore(int streamId, long offset) {
        ensure(streamId);
        applied[streamId] = Math.max(applied[streamId], offset);
    }

    /** After a WAL sync every written OFFSETS record is durable: publish the applied offsets. */
    void publishDurable() {
        long[] d = durable;
        if (d.length < applied.length) {
            d = Arrays.copyOf(d, applied.length);
            Arrays.fill(d, durable.length, d.length, -1L);
        }
        for (int i = 0; i < applied.length; i++) {
            LONGS.setRelease(d, i, applied[i]);
        }
        durable = d;
    }

    /** The highest offset of {@code streamId} held durably, or -1. Any thread. */
    long durable(int streamId) {
        long[] d = durable;
        return streamId < d.length ? (long) LONGS.getAcquire(d, streamId) : -1L;
    }

    private void ensure(int streamId) {
        if (streamId >= applied.length) {
            int n = Math.max(streamId + 1, applied.length * 2);
            int old = applied.length;
            applied = Arrays.copyOf(applied, n);
            pending = Arrays.copyOf(pending, n);
            Arrays.fill(applied, old, n, -1L);
            Arrays.fill(pending, old, n, Long.MIN_VALUE);
        }
    }
}
