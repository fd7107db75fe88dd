package io.sluice.core.head.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.chunkfiles.ChunkFileDescriptor;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.CanonicalLabels;
import io.sluice.core.labels.LabelsView;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chunk files are written in the head's label order ({@link LabelOrder#chunkOrder}): once the
 * order covers the series, the closed chunks of one write lie in the files in the order a query reads
 * them (series created in an order unrelated to their labels); a restart from the checkpoint that
 * references them answers every sample, and so does the head before it.
 */
class LabelOrderChunkFilesTest {
    private static final int SERIES = 400;
    private static final int SAMPLES = 260; // at least one cut per series (~120 samples a chunk)
    private static final long FIRST_MS = 1_700_000_000_000L;

    @TempDir
    Path dir;
    private final StreamRegistry streams = new StreamRegistry();
    private final int stream = streams.idOf("order", 0);
    private final long[] samplesPerShard = new long[2];
    private long offset;

    @Test
    void closedChunksAreWrittenInLabelOrderAndReadBackWholeAfterARestart() throws Exception {
        SplittableRandom random = new SplittableRandom(17);
        List<byte[]> labels = new ArrayList<>();
        for (int i = 0; i < SERIES; i++) { // created in an order unrelated to the labels'
            labels.add(CanonicalLabels.encode("__name__", "m", "k", Integer.toString(random.nextInt(1_000_000)), "n", Integer.toString(i)));
        }
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(2), streams, new MemoryAccounting())) {
            head.start();
            append(head, labels, 0, 1);
            head.makeLabelOrder();
            append(head, labels, 1, SAMPLES);
            assertThat(head.checkpoint(30_000)).isTrue();
            assertEverySample(head, labels);

            int entries = 0;
            for (int s = 0; s < 2; s++) {
                List<byte[]> inFile = new ArrayList<>();
                for (int[] entry : entries(dir.resolve("shard-" + s).resolve("chunks"))) {
                    inFile.add(head.shard(s).labelsCopy(entry[0]));
                }
                assertThat(inFile).as("shard %d: its series' closed chunks", s).hasSizeGreaterThan(100);
                LabelsView x = new LabelsView();
                LabelsView y = new LabelsView();
                for (int i = 1; i < inFile.size(); i++) {
                    byte[] a = inFile.get(i - 1);
                    byte[] b = inFile.get(i);
                    assertThat(x.wrap(a, 0, a.length).compareTo(y.wrap(b, 0, b.length)))
                            .as("shard %d: chunk %d of the file in label order", s, i).isLessThanOrEqualTo(0);
                }
                entries += inFile.size();
            }
            assertThat(entries).as("a closed chunk or more per series").isGreaterThanOrEqualTo(SERIES);
        }
        try (Head restarted = new Head(HeadOptions.defaults(dir).withShards(2), streams, new MemoryAccounting())) {
            restarted.start();
            assertEverySample(restarted, labels);
        }
    }

    /** Samples {@code from..to-1} of every series, one batch per shard per round. */
    private void append(Head head, List<byte[]> labels, int from, int to) {
        for (int r = from; r < to; r++) {
            ShardBatch[] batches = new ShardBatch[2];
            for (int i = 0; i < labels.size(); i++) {
                byte[] canonical = labels.get(i);
                long hash = new LabelsView().wrap(canonical, 0, canonical.length).hash();
                int shard = head.shardOf(hash);
                if (batches[shard] == null) {
                    while ((batches[shard] = head.shard(shard).acquireBatch()) == null) {
                        Thread.onSpinWait();
                    }
                    batches[shard].record(stream, offset++);
                }
                assertThat(batches[shard].series(hash, canonical, 0, canonical.length)).isTrue();
                assertThat(batches[shard].sample(FIRST_MS + r * 15_000L, Double.doubleToRawLongBits(i * 1000 + r))).isTrue();
                samplesPerShard[shard]++;
            }
            for (int s = 0; s < 2; s++) {
                if (batches[s] != null) {
                    head.shard(s).submit(batches[s]);
                }
            }
        }
        long deadline = System.nanoTime() + 30_000_000_000L;
        for (int s = 0; s < 2; s++) {
            while (head.shard(s).stats().get(ShardStats.Counter.SAMPLES_APPENDED) < samplesPerShard[s]) {
                assertThat(System.nanoTime()).as("samples appended").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
    }

    private static void assertEverySample(Head head, List<byte[]> labels) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < labels.size(); i++) {
            index.put(new LabelsView().wrap(labels.get(i), 0, labels.get(i).length).toString(), i);
        }
        HeadQuery q = head.query(0, Long.MAX_VALUE, Matcher.eq("__name__", "m"));
        int series = 0;
        while (q.next()) {
            int i = index.get(q.labels().toString());
            var samples = q.samples();
            int r = 0;
            while (samples.next()) {
                assertThat(samples.timestampMs()).isEqualTo(FIRST_MS + r * 15_000L);
                assertThat(samples.value()).isEqualTo(i * 1000 + r);
                r++;
            }
            assertThat(r).as("samples of series %d", i).isEqualTo(SAMPLES);
            series++;
        }
        assertThat(series).isEqualTo(SERIES);
    }

    /** {series id, length} of every entry of a shard's chunk files, in file order. */
    private static List<int[]> entries(Path chunks) throws IOException {
        List<int[]> entries = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> list = Files.list(chunks)) {
            files = list.filter(p -> p.getFileName().toString().matches("\\d{8}")).sorted().toList();
        }
        for (Path file : files) {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            int at = ChunkFileDescriptor.FILE_HEADER_BYTES;
            while (at + ChunkFileDescriptor.ENTRY_HEADER_BYTES <= bytes.limit()) {
                int length = bytes.getInt(at + ChunkFileDescriptor.LENGTH_OFFSET);
                if (length == 0) {
                    break;
                }
                entries.add(new int[] {bytes.getInt(at + ChunkFileDescriptor.SERIES_ID_OFFSET), length});
                at += ChunkFileDescriptor.entryBytes(length);
            }
        }
        return entries;
    }
}
