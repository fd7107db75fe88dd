package io.sluice.core.head;

import io.sluice.core.head.shard.ShardOptions;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Configuration of the head: how many shards, where they live, and the settings every shard shares.
 *
 * @param dataDirectory the head's directory; shard {@code i} keeps its WAL in {@code shard-i/wal},
 *                      its chunk files in {@code shard-i/chunks} and its checkpoints in {@code shard-i}
 * @param shards        shard workers (threads); default one per core
 * @param perShard      the settings every shard shares ({@link ShardOptions}: the {@code wal.*},
 *                      {@code queue.*}, {@code head.*} and {@code storage.retention} keys), as shard 0
 *                      has them: its WAL directory is set to shard 0's, {@link #shard} gives each its own
 */
public record HeadOptions(Path dataDirectory, int shards, ShardOptions perShard) {
    public HeadOptions {
        if (shards < 1 || shards > 1024) {
            throw new IllegalArgumentException("shards must be 1..1024, not " + shards);
        }
        perShard = perShard.withWalDirectory(shardDirectory(dataDirectory, 0).resolve("wal"));
    }

    /** One shard per core, the shards' defaults ({@link ShardOptions#defaults}). */
    public static HeadOptions defaults(Path dataDirectory) {
        return new HeadOptions(dataDirectory, Runtime.getRuntime().availableProcessors(), ShardOptions.defaults(dataDirectory));
    }

    public HeadOptions withShards(int n) {
        return new HeadOptions(dataDirectory, n, perShard);
    }

    /** This with the shards' settings {@code change} makes, e.g. {@code withPerShard(s -> s.withRetentionMs(0))}. */
    public HeadOptions withPerShard(UnaryOperator<ShardOptions> change) {
        return new HeadOptions(dataDirectory, shards, change.apply(perShard));
    }

    /** The directory of shard {@code index}. */
    public Path shardDirectory(int index) {
        return shardDirectory(dataDirectory, index);
    }

    ShardOptions shard(int index) {
        return perShard.withWalDirectory(shardDirectory(index).resolve("wal"));
    }

    private static Path shardDirectory(Path dataDirectory, int index) {
        return dataDirectory.resolve("shard-" + index);
    }
}
