/**
 * Kafka consumption: from a consumer group into the head's shards, exactly once.
 *
 * <h2>Pieces</h2>
 * <ul>
 *   <li>{@link io.sluice.server.kafka.KafkaIngest} — the consumers of one instance; built from an
 *       {@link io.sluice.server.kafka.IngestConfig} (validated in its constructor, one-line messages).</li>
 *   <li>{@code ConsumerWorker} — one thread, one {@code KafkaConsumer} (cooperative-sticky, manual
 *       commits, optional static membership): poll, route, hand off, commit, rebalance.</li>
 *   <li>{@code RecordRouter} — decodes a record in place and sorts its samples into one open
 *       {@code ShardBatch} per shard (labels validated, canonicalised and hashed once, here);
 *       all-or-nothing per record; allocation-free per sample.</li>
 *   <li>{@code OffsetCommitter}, {@code PartitionBook} — what was handled, what is durable, what is committed.</li>
 *   <li>{@code GroupLagMonitor} — the group's lag over every partition of the topics and the partitions
 *       nobody consumes, read with an AdminClient on its own thread ({@code sluice-group-lag}).</li>
 *   <li>{@code RejectedRecords}, {@code DeadLetterPublisher}, {@code RateLimitedLog} — bad input.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * Each consumer thread owns its consumer, router, decoders and partition book; nothing of it is
 * shared but the head (reached only through shard batches and its thread-safe watermarks), the
 * meters and the dead-letter producer (both thread-safe). Rebalance callbacks run on the consumer
 * thread inside {@code poll}. Between polls a consumer thread holds no shard batch.
 *
 * <h2>Exactly once (docs/design/exactly-once.md)</h2>
 * <ol>
 *   <li>Before a record's first series in a shard batch the router writes {@code RECORD(stream, offset)};
 *       a shard skips records at or below the offset it has applied for that stream, so records
 *       re-read after a restart are not applied twice.</li>
 *   <li>After each poll every shard gets {@code WATERMARK(stream, last handled offset)} for every
 *       partition of the thread (offsets-only hand-off), so a shard without samples of a partition
 *       does not hold its commit back. A rejected record counts as handled.</li>
 *   <li>The committed offset of a partition is {@code head.durableWatermark(stream) + 1} (the minimum
 *       over shards of what their WALs hold after a sync), only ever moved forward; committed as soon as
 *       a sync moved it (checked every loop turn, at most once per {@code commitIntervalMs}) and on
 *       revocation and close.</li>
 *   <li>On assignment a partition is sought to {@code max(committed, durableWatermark + 1)}: a WAL
 *       ahead of the commit (a crash between sync and commit) is not read again; a commit ahead of
 *       this head's WAL (another instance consumed meanwhile) wins. Except when that commit was made
 *       by this same data directory (the commit metadata, {@code HeadIdentity}): then WAL data it
 *       covered was lost (a damaged WAL cut on open, a removed segment) and the partition is sought
 *       back to {@code durableWatermark + 1}, so the cut records are consumed again
 *       (docs/format/head-id.md).</li>
 *   <li>On revocation (cooperative: only the partitions that move) and on close: drop the polled but
 *       unrouted records, hand off the watermarks, ask the shards to sync, wait (at most 30 s) until
 *       the durable watermark reaches what was handled, commit, forget the partition (its lag gauge
 *       is removed). A lost partition (session expired) is forgotten without a commit.</li>
 * </ol>
 * Across instances, a graceful hand-over stores nothing twice; after a crash the new owner resumes
 * from the last commit and stores again what the dead instance had made durable but not committed
 * (identical samples; committing right after each sync keeps that to about one sync interval).
 * The group monitor's thread shares nothing with the consumer threads but the meter registry.
 *
 * <h2>Backpressure</h2>
 * When a shard has no free batch the record is rewound and the thread pauses all its partitions,
 * hands what it routed to the shards, and retries as batches come free, polling every 50 ms (paused
 * partitions return nothing) so it stays in the group and serves rebalances. Memory stays bounded
 * by the shards' batch pools plus one poll of records per consumer thread.
 *
 * <h2>Large records</h2>
 * A record's samples for one shard may exceed one shard batch ({@code queue.batch-bytes}): the router
 * validates such a record with a decoding pass that writes nothing, then splits it over several
 * batches of the shard ({@code ShardBatch.recordContinues}: the watermark stays below a record until
 * its last part is applied), see {@link io.sluice.server.kafka.RecordRouter}. Only a record above
 * {@code limits.record-bytes} or a single series whose labels do not fit an empty batch is rejected
 * as {@code too_large}. A decoder failing with an unexpected exception (a bug: {@code internal_error})
 * in the middle of a split record leaves the parts already handed over stored.
 */
package io.sluice.server.kafka;
