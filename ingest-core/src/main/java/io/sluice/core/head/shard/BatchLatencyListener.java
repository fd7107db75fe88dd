package io.sluice.core.head.shard;

/**
 * Told, on the shard thread, how long each batch took from {@link Shard#submit} (queue-in) to the
 * WAL sync that made it durable. Called once per batch, in a burst after each sync; must be cheap
 * and allocation-free (e.g. a Micrometer timer's {@code record}).
 */
@FunctionalInterface
public interface BatchLatencyListener {
    void batchDurable(long queuedToDurableNanos);
}
