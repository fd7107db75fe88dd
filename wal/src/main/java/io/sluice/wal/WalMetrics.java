package io.sluice.wal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one WAL, readable from any thread (a metrics registry polls them; wal/ knows no
 * metrics library). Counters the writer thread alone updates are published with a release store
 * (no atomic read-modify-write on the append path); the two that readers also touch use atomic adds.
 */
public final class WalMetrics {
    // Updated by the writer thread only.
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong recordsWritten = new AtomicLong();
    private final AtomicLong syncs = new AtomicLong();
    private final AtomicLong syncNanosTotal = new AtomicLong();
    private final AtomicLong syncNanosMax = new AtomicLong();
    private final AtomicLong segmentsCreated = new AtomicLong();
    private final AtomicLong segmentsDeleted = new AtomicLong();
    // Updated by the writer and by readers of this WAL.
    private final AtomicLong corruptionsFound = new AtomicLong();
    private final AtomicLong mappedBytes = new AtomicLong();

    /** Record bytes written, headers and padding included (what reaches the disk). */
    public long bytesWritten() {
        return bytesWritten.get();
    }

    /** Records committed (end-of-segment markers excluded). */
    public long recordsWritten() {
        return recordsWritten.get();
    }

    /** Syncs that forced something to disk. */
    public long syncs() {
        return syncs.get();
    }

    public long syncNanosTotal() {
        return syncNanosTotal.get();
    }

    /** The longest single sync so far. */
    public long syncNanosMax() {
        return syncNanosMax.get();
    }

    /** Damage found: at open (at most one per open) and by readers of this WAL. */
    public long corruptionsFound() {
        return corruptionsFound.get();
    }

    public long segmentsCreated() {
        return segmentsCreated.get();
    }

    public long segmentsDeleted() {
        return segmentsDeleted.get();
    }

    /** Bytes of segment files mapped right now by the writer and by readers opened through the WAL. */
    public long mappedBytes() {
        return mappedBytes.get();
    }

    void onRecord(long frameBytes) {
        bytesWritten.setRelease(bytesWritten.getPlain() + frameBytes);
        recordsWritten.setRelease(recordsWritten.getPlain() + 1);
    }

    void onMarker(long frameBytes) {
        bytesWritten.setRelease(bytesWritten.getPlain() + frameBytes);
    }

    void onSync(long nanos) {
        syncs.setRelease(syncs.getPlain() + 1);
        syncNanosTotal.setRelease(syncNanosTotal.getPlain() + nanos);
        if (nanos > syncNanosMax.getPlain()) {
            syncNanosMax.setRelease(nanos);
        }
    }

    void onSegmentCreated() {
        segmentsCreated.setRelease(segmentsCreated.getPlain() + 1);
    }

    void onSegmentsDeleted(int count) {
        segmentsDeleted.setRelease(segmentsDeleted.getPlain() + count);
    }

    void onCorruption() {
        corruptionsFound.incrementAndGet();
    }

    void onMapped(long bytes) {
        mappedBytes.addAndGet(bytes);
    }

    void onUnmapped(long bytes) {
        mappedBytes.addAndGet(-bytes);
    }

    @Override
    public String toString() {
        return "WalMetrics{bytesWritten=" + bytesWritten() + ", recordsWritten=" + recordsWritten()
                + ", syncs=" + syncs() + ", syncNanosTotal=" + syncNanosTotal() + ", syncNanosMax=" + syncNanosMax()
                + ", corruptionsFound=" + corruptionsFound() + ", segmentsCreated=" + segmentsCreated()
                + ", segmentsDeleted=" + segmentsDeleted() + ", mappedBytes=" + mappedBytes() + "}";
    }
}
