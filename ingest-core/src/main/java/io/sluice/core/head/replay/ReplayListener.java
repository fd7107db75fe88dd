package io.sluice.core.head.replay;

/**
 * Told of each shard's replay as it goes, on that shard's thread (so it must be quick; it delays
 * the replay by what it costs). The progress log polls {@link ReplayProgress} instead; this is for
 * callers that must act at a point of the replay, e.g. a test that holds replay to look at the
 * service while it is not ready.
 */
@FunctionalInterface
public interface ReplayListener {
    /** Does nothing. */
    ReplayListener NONE = (shard, progress) -> { };

    /** Shard {@code shard} replayed one more WAL record; {@code progress} says how far it is. */
    void onRecord(int shard, ReplayProgress progress);
}
