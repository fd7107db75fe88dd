package io.sluice.core.head.checkpoint;

import java.util.List;

/**
 * What a shard found on disk when it started: the checkpoint it loaded (WAL position, or -1 for
 * none), the WAL position replay began at, what was damaged (each message names the file and the
 * byte position), and whether it had to discard its persisted data and be fed again from Kafka.
 *
 * @param checkpointPosition WAL position of the loaded checkpoint, -1 if none was loaded
 * @param replayFrom         WAL position replay started from
 * @param damage             one line per damaged file (file and position)
 * @param discardedData      true if the shard discarded its persisted data (at this start, or at an earlier one and
 *                           has not caught up since): Kafka must deliver again from its watermarks (docs/format/checkpoint.md)
 */
public record RestoreReport(long checkpointPosition, long replayFrom, List<String> damage, boolean discardedData) {
    public static final RestoreReport NONE = new RestoreReport(-1, -1, List.of(), false);
}
