package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.Reshard;
import io.sluice.core.head.checkpoint.CheckpointDescriptor;
import io.sluice.core.head.checkpoint.CheckpointReader;
import io.sluice.core.head.checkpoint.RestoreReport;
import io.sluice.core.head.chunkfiles.ChunkFileDescriptor;
import io.sluice.core.head.stats.ShardStats.Counter;
import io.sluice.wal.WalPosition;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Checkpoints and chunk files with real files: a restart restores series, samples (bit for bit),
 * chunk structure and watermarks, replays only the WAL after the checkpoint, and old WAL segments
 * go; damaged checkpoints and chunk files are detected, reported with file and position, counted,
 * and what they held comes back (from the older checkpoint and the WAL, or from Kafka).
 */
class CheckpointTest {
    private static final int SERIES = 120;
    private static final long SEED = 0x5EED_C4EC;
    @TempDir
    Path dir;
    @TempDir
    Path referenceDir;

    private static ShardOptions options(Path dir) {
        return ShardOptions.defaults(dir.resolve("wal")).withWalSegmentBytes(64 << 10).withChunkFileBytes(64 << 10)
                .withCheckpointIntervalMs(0).withSeriesIdleTimeoutMs(0);
    }

    /** What a shard fed rounds [0, rounds) without any restart holds. */
    private Map<String, String> reference(int rounds) throws IOException {
        try (ShardFixture f = new ShardFixture(referenceDir)) {
            Shard shard = f.open(options(referenceDir));
            new PersistFeed(f, SERIES, SEED).deliver(f, shard, f.streams.idOf("metrics", 0), 0, rounds);
            return PersistFeed.flat(PersistFeed.contents(shard));
        }
    }

    private TreeMap<Long, Path> checkpoints() throws IOException {
        TreeMap<Long, Path> found = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(p -> {
                long position = CheckpointDescriptor.parsePosition(p.getFileName().toString());
                if (position >= 0) {
                    found.put(position, p);
                }
            });
        }
        return found;
    }

    private static long chunkPositionOf(Path checkpoint) throws IOException {
        try (CheckpointReader in = new CheckpointReader(checkpoint)) {
            in.nextBlock();
            in.skip(12);
            in.getLong();
            return in.getLong();
        }
    }

    /** Rounds 0..299, checkpoint, 300..449 (every series cuts a chunk), checkpoint, 450..486 (the tail), then a crash after a WAL sync. */
    private void ingestTwoCheckpointsAndATail(ShardFixture f) throws IOException {
        Shard shard = f.open(options(dir));
        PersistFeed feed = new PersistFeed(f, SERIES, SEED);
        int stream = f.streams.idOf("metrics", 0);
        feed.deliver(f, shard, stream, 0, 300);
        assertThat(shard.checkpoint()).isTrue();
        feed.deliver(f, shard, stream, 300, 450);
        assertThat(shard.checkpoint()).isTrue();
        feed.deliver(f, shard, stream, 450, 487);
        shard.closeWithoutCheckpoint();
    }

    @Test
    void restartAfterACheckpointRestoresEverythingAndReplaysOnlyTheTail() throws IOException {
        Map<String, String> expected = reference(487);
        try (ShardFixture f = new ShardFixture(dir)) {
            ingestTwoCheckpointsAndATail(f);
            long tailRecords = 0;
            try (io.sluice.wal.WalReader tail = io.sluice.wal.WalReader.open(dir.resolve("wal"), checkpoints().lastKey())) {
                while (tail.next()) {
                    tailRecords++;
                }
            }
            Shard restarted = f.open(options(dir));
            RestoreReport report = restarted.restoreReport();
            assertThat(report.checkpointPosition()).isEqualTo(checkpoints().lastKey());
            assertThat(report.damage()).isEmpty();
            assertThat(restarted.stats().get(Counter.REPLAYED_RECORDS)).as("the WAL records after the checkpoint, no more")
                    .isEqualTo(tailRecords).isPositive().isLessThan(3 * 37);
            assertThat(restarted.stats().get(Counter.REPLAYED_SAMPLES)).as("only the 37 rounds after the checkpoint")
                    .isEqualTo(37L * SERIES);
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
            assertThat(restarted.durableWatermark(f.streams.idOf("metrics", 0))).isEqualTo(486);
            assertThat(restarted.activeSeriesCount()).isEqualTo(SERIES);

            // Appends continue where they left off: more rounds give what a shard that never stopped has.
            new PersistFeed(f, SERIES, SEED).deliver(f, restarted, f.streams.idOf("metrics", 0), 487, 600);
            Map<String, String> after = PersistFeed.flat(PersistFeed.contents(restarted));
            restarted.close();
            Shard again = f.open(options(dir));
            assertThat(again.stats().get(Counter.REPLAYED_SAMPLES)).as("close checkpoints: nothing to replay").isZero();
            assertThat(PersistFeed.flat(PersistFeed.contents(again))).isEqualTo(after).isEqualTo(reference600());
        }
    }

    private Map<String, String> reference600() throws IOException {
        for (Path p : Files.list(referenceDir).toList()) {
            Reshard.deleteTree(p);
        }
        return reference(600);
    }

    @Test
    void checkpointsKeepTwoAndDeleteTheWalBeforeTheOlder() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(options(dir));
            PersistFeed feed = new PersistFeed(f, SERIES, SEED);
            int stream = f.streams.idOf("metrics", 0);
            for (int round = 0; round < 4; round++) {
                feed.deliver(f, shard, stream, round * 150, (round + 1) * 150);
                assertThat(shard.checkpoint()).isTrue();
            }
            TreeMap<Long, Path> kept = checkpoints();
            assertThat(kept).hasSize(2);
            long older = kept.firstKey();
            assertThat(shard.wal().firstPosition()).isEqualTo(older);
            try (Stream<Path> segments = Files.list(dir.resolve("wal"))) {
                assertThat(segments.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d{10}\\.wal"))
                        .mapToInt(n -> Integer.parseInt(n.substring(0, 10)))
                        .min().orElseThrow()).as("segments before the older checkpoint are deleted").isEqualTo(WalPosition.segment(older));
            }
            assertThat(shard.stats().get(Counter.CHECKPOINTS_WRITTEN)).isEqualTo(4);
            assertThat(shard.stats().get(Counter.CHUNKS_PERSISTED)).isGreaterThan(SERIES * 3L);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"truncated", "flipped-bit"})
    void aDamagedNewestCheckpointIsReportedAndTheOlderOneLoads(String damage) throws IOException {
        Map<String, String> expected = reference(487);
        try (ShardFixture f = new ShardFixture(dir)) {
            ingestTwoCheckpointsAndATail(f);
            TreeMap<Long, Path> kept = checkpoints();
            Path newest = kept.lastEntry().getValue();
            long size = Files.size(newest);
            if (damage.equals("truncated")) {
                truncate(newest, size - 7);
            } else {
                flipByte(newest, size / 2);
            }
            Shard restarted = f.open(options(dir));
            RestoreReport report = restarted.restoreReport();
            assertThat(report.checkpointPosition()).isEqualTo(kept.firstKey());
            assertThat(report.damage()).singleElement().asString().contains(newest.toString()).contains("position");
            assertThat(restarted.stats().get(Counter.CHECKPOINTS_DAMAGED)).isEqualTo(1);
            assertThat(restarted.stats().get(Counter.REPLAYED_SAMPLES)).as("the WAL from the older checkpoint")
                    .isEqualTo(187L * SERIES);
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
            assertThat(Files.exists(newest)).as("the damaged checkpoint is removed").isFalse();
        }
    }

    /** Flips a byte inside the first segment the WAL still holds (the older checkpoint's), which the newest covers. */
    private Path damageWalBeforeTheNewestCheckpoint(TreeMap<Long, Path> kept) throws IOException {
        assertThat(WalPosition.segment(kept.lastKey())).isGreaterThan(WalPosition.segment(kept.firstKey()));
        Path segment = dir.resolve("wal").resolve(String.format("%010d.wal", WalPosition.segment(kept.firstKey())));
        flipByte(segment, 3000);
        return segment;
    }

    @Test
    void aSoundNewestCheckpointLeavesTheSegmentsBeforeItUnreadAtOpen() throws IOException {
        Map<String, String> expected = reference(487);
        try (ShardFixture f = new ShardFixture(dir)) {
            ingestTwoCheckpointsAndATail(f);
            TreeMap<Long, Path> kept = checkpoints();
            damageWalBeforeTheNewestCheckpoint(kept);

            Shard restarted = f.open(options(dir));
            assertThat(restarted.restoreReport().checkpointPosition()).isEqualTo(kept.lastKey());
            assertThat(restarted.wal().unscannedSegments()).as("segments before the newest checkpoint")
                    .isEqualTo(WalPosition.segment(kept.lastKey()) - WalPosition.segment(kept.firstKey()));
            assertThat(restarted.wal().openReport().isClean()).as("damage the checkpoint covers is not read").isTrue();
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
            assertThat(restarted.durableWatermark(f.streams.idOf("metrics", 0))).isEqualTo(486);
        }
    }

    @Test
    void aDamagedNewestCheckpointReadsTheSkippedSegmentsAndRepairsTheirDamageLikeAFullOpen() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            ingestTwoCheckpointsAndATail(f);
            TreeMap<Long, Path> kept = checkpoints();
            Path damagedSegment = damageWalBeforeTheNewestCheckpoint(kept);
            flipByte(kept.lastEntry().getValue(), 100);

            Shard restarted = f.open(options(dir));
            RestoreReport report = restarted.restoreReport();
            assertThat(report.checkpointPosition()).as("the older checkpoint").isEqualTo(kept.firstKey());
            assertThat(report.damage()).singleElement().asString().contains(kept.lastEntry().getValue().toString());
            assertThat(restarted.wal().unscannedSegments()).isZero();
            io.sluice.wal.WalCorruption found = restarted.wal().openReport().corruption();
            assertThat(found).as("the full read found the flipped byte").isNotNull();
            assertThat(found.segment()).isEqualTo(WalPosition.segment(kept.firstKey()));
            assertThat(found.reason()).isEqualTo(io.sluice.wal.CorruptionReason.BAD_CRC);
            assertThat(Files.exists(damagedSegment.resolveSibling(String.format("%010d.wal", WalPosition.segment(kept.lastKey())))))
                    .as("segments after the damage are cut, as by a full open").isFalse();
            assertThat(restarted.stats().get(Counter.REPLAYED_SAMPLES)).as("the WAL from the older checkpoint up to the damage")
                    .isLessThan(187L * SERIES);
            assertThat(restarted.durableWatermark(f.streams.idOf("metrics", 0)))
                    .as("what the damage cut comes back from Kafka").isBetween(299L, 485L);
            assertThat(restarted.activeSeriesCount()).isEqualTo(SERIES);
        }
    }

    @Test
    void aDamagedChunkOnlyTheNewestCheckpointUsesFallsBackToTheOlder() throws IOException {
        Map<String, String> expected = reference(487);
        try (ShardFixture f = new ShardFixture(dir)) {
            ingestTwoCheckpointsAndATail(f);
            TreeMap<Long, Path> kept = checkpoints();
            long firstNewChunk = firstChunkAt(chunkPositionOf(kept.firstEntry().getValue())); // cut after the older checkpoint
            Path chunkFile = ChunkFileDescriptor.path(dir.resolve("chunks"), ChunkFileDescriptor.fileIndex(firstNewChunk));
            flipByte(chunkFile, ChunkFileDescriptor.offset(firstNewChunk) + ChunkFileDescriptor.ENTRY_HEADER_BYTES + 3);

            Shard restarted = f.open(options(dir));
            RestoreReport report = restarted.restoreReport();
            assertThat(report.checkpointPosition()).isEqualTo(kept.firstKey());
            assertThat(report.damage()).singleElement().asString().contains(chunkFile.toString())
                    .contains("position " + ChunkFileDescriptor.offset(firstNewChunk)).contains("CRC32C");
            assertThat(restarted.stats().get(Counter.CHUNKS_DAMAGED)).isEqualTo(1);
            assertThat(report.discardedData()).isFalse();
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"truncated", "flipped-bits"})
    void aDamagedChunkBothCheckpointsUseDiscardsTheShardAndKafkaRefillsIt(String damage) throws IOException {
        Map<String, String> expected = reference(487);
        try (ShardFixture f = new ShardFixture(dir)) {
            ingestTwoCheckpointsAndATail(f);
            Path first = ChunkFileDescriptor.path(dir.resolve("chunks"), 0);
            if (damage.equals("truncated")) {
                truncate(first, 20_000);
            } else {
                for (int at = 1_000; at < 3_000; at += 500) {
                    flipByte(first, at);
                }
            }
            Shard restarted = f.open(options(dir));
            RestoreReport report = restarted.restoreReport();
            assertThat(report.discardedData()).isTrue();
            assertThat(report.damage()).hasSize(3); // both checkpoints, then the decision
            assertThat(report.damage().get(0)).contains(first.toString()).contains("position");
            assertThat(restarted.stats().get(Counter.CHUNKS_DAMAGED)).isEqualTo(2);
            assertThat(restarted.stats().get(Counter.DATA_DISCARDED)).isEqualTo(1);
            int stream = f.streams.idOf("metrics", 0);
            assertThat(restarted.durableWatermark(stream)).as("consume from the earliest offset").isEqualTo(-1);
            assertThat(restarted.activeSeriesCount()).isZero();

            // Kafka re-delivers from the adjusted watermark + 1: everything comes back, once.
            new PersistFeed(f, SERIES, SEED).deliver(f, restarted, stream, 0, 487);
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
            assertThat(restarted.stats().get(Counter.SAMPLES_ALREADY_APPLIED)).isZero();
        }
    }

    /** The chunk at {@code position} (where a checkpoint said the next chunk goes), or at the next file's start if it went there. */
    private long firstChunkAt(long position) throws IOException {
        Path file = ChunkFileDescriptor.path(dir.resolve("chunks"), ChunkFileDescriptor.fileIndex(position));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(ChunkFileDescriptor.offset(position) + ChunkFileDescriptor.LENGTH_OFFSET);
            boolean there = ChunkFileDescriptor.offset(position) + ChunkFileDescriptor.ENTRY_HEADER_BYTES < f.length() && f.read() != 0;
            return there ? position : ChunkFileDescriptor.ref(ChunkFileDescriptor.fileIndex(position) + 1, ChunkFileDescriptor.FILE_HEADER_BYTES);
        }
    }

    private static void truncate(Path file, long length) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(length);
        }
    }

    private static void flipByte(Path file, long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0xA5);
        }
    }

    @Test
    void idleSeriesHaveTheirOpenChunkCutAndStayQueryableAcrossARestart() throws IOException {
        long idleMs = 30 * 60_000L;
        try (ShardFixture f = new ShardFixture(dir)) {
            ShardOptions opts = options(dir).withSeriesIdleTimeoutMs(idleMs);
            Shard shard = f.open(opts);
            PersistFeed feed = new PersistFeed(f, SERIES, SEED);
            int stream = f.streams.idOf("metrics", 0);
            feed.deliver(f, shard, stream, 0, 100);
            feed.deliver(f, shard, stream, 100, 300, s -> s % 4 != 0); // a quarter of the series stop at round 99
            Map<String, String> expected = PersistFeed.flat(PersistFeed.contents(shard));
            long chunkBytesBefore = shard.chunkBytesInUse();
            assertThat(shard.checkpoint()).isTrue();
            int idle = SERIES / 4;
            assertThat(shard.stats().get(Counter.SERIES_IDLE_CUT)).isEqualTo(idle);
            assertThat(shard.stats().get(Counter.SERIES_EVICTED)).as("nothing is older than the retention").isZero();
            assertThat(shard.activeSeriesCount()).isEqualTo(SERIES);
            assertThat(shard.chunkBytesInUse()).as("open blocks freed, closed chunks only in the files")
                    .isLessThan(chunkBytesBefore);
            assertThat(shard.labelIndex().labelValues("instance")).hasSize(SERIES).contains("host-0:9100");
            assertThat(PersistFeed.flat(PersistFeed.contents(shard))).as("no sample lost").isEqualTo(expected);

            shard.close();
            Shard restarted = f.open(opts);
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
            assertThat(restarted.activeSeriesCount()).isEqualTo(SERIES);

            // An idle series that comes back continues: same series, a new chunk.
            feed.deliver(f, restarted, stream, 300, 301);
            assertThat(restarted.seriesCount()).isEqualTo(SERIES);
            assertThat(restarted.stats().get(Counter.SAMPLES_TOO_OLD)).isZero();
        }
    }

    @Test
    void retentionDropsOldChunksDeletesTheirFilesAndRemovesSeriesWithNothingInside() throws IOException {
        long roundMs = PersistFeed.STEP_MS;
        long retentionMs = 200 * roundMs;
        try (ShardFixture f = new ShardFixture(dir)) {
            ShardOptions opts = options(dir).withRetentionMs(retentionMs);
            Shard shard = f.open(opts);
            PersistFeed feed = new PersistFeed(f, SERIES, SEED);
            int stream = f.streams.idOf("metrics", 0);
            feed.deliver(f, shard, stream, 0, 300);
            assertThat(shard.checkpoint()).isTrue();
            feed.deliver(f, shard, stream, 300, 900, s -> s % 4 != 0); // a quarter stop at round 299
            assertThat(shard.checkpoint()).isTrue();
            feed.deliver(f, shard, stream, 900, 910, s -> s % 4 != 0);
            assertThat(shard.checkpoint()).isTrue(); // the older checkpoint no longer references the old files either
            int stopped = SERIES / 4;
            assertThat(shard.stats().get(Counter.SERIES_EVICTED)).as("no sample inside the retention").isEqualTo(stopped);
            assertThat(shard.stats().get(Counter.CHUNKS_EXPIRED)).isPositive();
            long cutoff = feed.timestampMs(909) - retentionMs;
            Map<String, java.util.List<long[]>> contents = PersistFeed.contents(shard);
            assertThat(contents).hasSize(SERIES - stopped);
            for (var e : contents.entrySet()) {
                java.util.List<long[]> samples = e.getValue().subList(1, e.getValue().size()); // after the chunk count
                assertThat(samples.getFirst()[0]).as("%s keeps what is inside the retention", e.getKey()).isLessThanOrEqualTo(cutoff);
                assertThat(samples.getFirst()[0]).as("%s lost its old chunks", e.getKey()).isGreaterThan(feed.timestampMs(0));
                assertThat(samples.getLast()[0]).isEqualTo(feed.timestampMs(909));
            }
            try (Stream<Path> files = Files.list(dir.resolve("chunks"))) {
                assertThat(files.map(p -> ChunkFileDescriptor.parseIndex(p.getFileName().toString())).filter(i -> i >= 0))
                        .as("chunk files nothing references are deleted").doesNotContain(0, 1);
            }
            Map<String, String> expected = PersistFeed.flat(contents);
            shard.close();
            Shard restarted = f.open(opts);
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
        }
    }

    @Test
    void aChunkFileTruncatedAfterEveryReferencedChunkLosesNothing() throws IOException {
        Map<String, String> expected = reference(487);
        try (ShardFixture f = new ShardFixture(dir)) {
            ingestTwoCheckpointsAndATail(f);
            long resume = chunkPositionOf(checkpoints().lastEntry().getValue());
            Path current = ChunkFileDescriptor.path(dir.resolve("chunks"), ChunkFileDescriptor.fileIndex(resume));
            truncate(current, ChunkFileDescriptor.offset(resume)); // the file ends right after the last chunk referenced
            Shard restarted = f.open(options(dir));
            assertThat(restarted.restoreReport().damage()).isEmpty();
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
            new PersistFeed(f, SERIES, SEED).deliver(f, restarted, f.streams.idOf("metrics", 0), 487, 600);
            restarted.close();
            Shard again = f.open(options(dir));
            assertThat(again.restoreReport().damage()).isEmpty();
            assertThat(PersistFeed.flat(PersistFeed.contents(again))).isEqualTo(reference600());
        }
    }

    @Test
    void aDamagedOnlyCheckpointFallsBackToTheWholeWal() throws IOException {
        Map<String, String> expected = reference(487);
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(options(dir));
            PersistFeed feed = new PersistFeed(f, SERIES, SEED);
            feed.deliver(f, shard, f.streams.idOf("metrics", 0), 0, 300);
            assertThat(shard.checkpoint()).isTrue();
            feed.deliver(f, shard, f.streams.idOf("metrics", 0), 300, 487);
            shard.closeWithoutCheckpoint();
            assertThat(shard.wal().firstPosition()).as("one checkpoint: the WAL is its fallback").isEqualTo(WalPosition.of(0, 32));
            Path only = checkpoints().firstEntry().getValue();
            flipByte(only, 100);

            Shard restarted = f.open(options(dir));
            assertThat(restarted.restoreReport().checkpointPosition()).isEqualTo(-1);
            assertThat(restarted.restoreReport().discardedData()).isFalse();
            assertThat(restarted.restoreReport().damage()).singleElement().asString().contains(only.toString()).contains("CRC32C");
            assertThat(restarted.stats().get(Counter.REPLAYED_SAMPLES)).isEqualTo(487L * SERIES);
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
        }
    }

    @Test
    void theShardCheckpointsByItselfWhenTheIntervalPassesAndOnRequest() throws IOException {
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(options(dir).withCheckpointIntervalMs(60_000));
            PersistFeed feed = new PersistFeed(f, SERIES, SEED);
            int stream = f.streams.idOf("metrics", 0);
            feed.deliver(f, shard, stream, 0, 50);
            assertThat(shard.stats().get(Counter.CHECKPOINTS_WRITTEN)).as("the interval has not passed").isZero();
            f.clockNs.addAndGet(60_000_000_000L);
            shard.doWork();
            assertThat(shard.stats().get(Counter.CHECKPOINTS_WRITTEN)).isEqualTo(1);
            shard.doWork();
            assertThat(shard.stats().get(Counter.CHECKPOINTS_WRITTEN)).as("not again before the next interval").isEqualTo(1);
            feed.deliver(f, shard, stream, 50, 60);
            shard.requestCheckpoint(); // any thread
            shard.doWork();
            assertThat(shard.stats().get(Counter.CHECKPOINTS_WRITTEN)).isEqualTo(2);
            assertThat(checkpoints()).hasSize(2);
        }
    }

    @Test
    void restartWithoutAnyCheckpointReplaysTheWholeWal() throws IOException {
        Map<String, String> expected = reference(200);
        try (ShardFixture f = new ShardFixture(dir)) {
            Shard shard = f.open(options(dir));
            new PersistFeed(f, SERIES, SEED).deliver(f, shard, f.streams.idOf("metrics", 0), 0, 200);
            shard.closeWithoutCheckpoint();
            Shard restarted = f.open(options(dir));
            assertThat(restarted.restoreReport().checkpointPosition()).isEqualTo(-1);
            assertThat(restarted.stats().get(Counter.REPLAYED_SAMPLES)).isEqualTo(200L * SERIES);
            assertThat(PersistFeed.flat(PersistFeed.contents(restarted))).isEqualTo(expected);
            assertThat(List.of(restarted.restoreReport().damage())).containsExactly(List.of());
        }
    }
}
