package io.sluice.core.head.shard;

import io.sluice.core.head.checkpoint.Checkpoints;
import io.sluice.wal.Wal;
import io.sluice.wal.WalCorruption;
import io.sluice.wal.WalOpenReport;
import io.sluice.wal.WalOptions;
import java.io.IOException;

/**
 * Opens a shard's WAL on start: without reading the segments before the newest checkpoint (replay
 * starts after them if it loads), and with all of them again if that checkpoint turns out damaged.
 * Damage that open repaired is logged: which file, where, how much was cut.
 *
 * <p>Threads: the shard thread, during start.
 */
final class WalOpening implements Checkpoints.WalReopener {
    private static final System.Logger LOG = System.getLogger(Shard.class.getName());

    /**
     * The first segment of an empty WAL; the next ones double up to {@code wal.segment-size}, so a fresh
     * or small head preallocates a few MiB per shard rather than two full segments.
     */
    static final int FIRST_SEGMENT_BYTES = 1 << 20;

    private final int shardIndex;
    private final ShardOptions options;
    private Wal wal;

    WalOpening(int shardIndex, ShardOptions options) {
        this.shardIndex = shardIndex;
        this.options = options;
    }

    /** Opens (and repairs) the WAL, skipping the segments before {@code newestCheckpoint}. */
    Wal open(long newestCheckpoint) throws IOException {
        wal = Wal.open(WalOptions.builder(options.walDirectory())
                .segmentSizeBytes((int) options.walSegmentBytes())
                .firstSegmentSizeBytes((int) Math.min(FIRST_SEGMENT_BYTES, options.walSegmentBytes()))
                .syncIntervalMs(options.walSyncIntervalMs())
                .build(), newestCheckpoint);
        logRepair(wal.openReport());
        return wal;
    }

    /** The WAL to use from now on (the last one opened). */
    Wal wal() {
        return wal;
    }

    /**
     * The newest checkpoint is damaged, so replay may need the WAL segments open skipped: reads them
     * (with the full repair) and returns the WAL to use from now on.
     */
    @Override
    public Wal reopenScanningAll() throws IOException {
        WalCorruption before = wal.openReport().corruption();
        wal = wal.reopenScanningAll();
        if (wal.openReport().corruption() != before) {
            logRepair(wal.openReport());
        }
        return wal;
    }

    private void logRepair(WalOpenReport report) {
        WalCorruption c = report.corruption();
        if (c != null) {
            LOG.log(System.Logger.Level.WARNING, "shard " + shardIndex + " repaired its WAL: " + c.reason() + " in "
                    + options.walDirectory().resolve(String.format("%010d.wal", c.segment())) + " at byte " + c.offset()
                    + " (" + c.detail() + "), " + c.bytesCut() + " bytes cut, " + c.laterSegments()
                    + " later segment(s) dropped; the Kafka records they held are consumed again");
        }
    }
}
