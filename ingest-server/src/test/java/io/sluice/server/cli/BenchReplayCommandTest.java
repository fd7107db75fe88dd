package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.memory.MemoryAccounting;
import io.sluice.tools.bench.GaugeWorkload;
import io.sluice.tools.bench.TimeVerbose;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice bench replay} end to end at test size: writes 200,000 samples through the head, restarts
 * in a real child JVM (under /usr/bin/time -v where GNU time exists), and the restarted head holds
 * exactly those samples, bit for bit the workload's values.
 */
class BenchReplayCommandTest {
    private static final int SERIES = 1_000;
    private static final long SAMPLES = 200_000;

    @TempDir
    Path dir;

    @Test
    void writesAWalAndARestartedHeadHoldsExactlyEverySample() throws IOException {
        Path data = dir.resolve("bench");
        CliRun run = CliRun.run("bench", "replay", "--samples", Long.toString(SAMPLES), "--series", Integer.toString(SERIES),
                "--dir", data.toString(), "--shards", "2");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("write done: 200,000 samples (200,000 appended)")
                .contains("restart| replay_done samples=200000 series=1000");
        if (Files.isExecutable(Path.of("/usr/bin/time"))) {
            assertThat(run.out()).containsPattern("restart process: wall [\\d.]+ s, CPU [\\d.]+ s .* peak RSS \\d+ MB");
        }
        assertThat(run.out()).containsPattern("WAL: [\\d,]+ bytes, [\\d.]+ bytes/sample");
        assertThat(run.out()).contains("from the WAL alone");
        // The WAL-only restart put the writer's checkpoint back and wrote none: the same directory restarts from it.
        try (var files = Files.list(data.resolve("shard-0"))) {
            assertThat(files.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("checkpoint."))
                    .noneMatch(n -> n.equals(".bench-aside"));
        }
        CliRun fromCheckpoint = CliRun.run("bench", "replay", "--replay-only", "--from", "checkpoint", "--samples",
                Long.toString(SAMPLES), "--dir", data.toString(), "--shards", "2");
        assertThat(fromCheckpoint.exitCode()).as(fromCheckpoint.err()).isZero();
        assertThat(fromCheckpoint.out()).contains("from its checkpoint").contains("restart| replay_done samples=200000 series=1000");

        // A third process' view: open the WALs again and read every sample back.
        GaugeWorkload expected = new GaugeWorkload(SERIES);
        long[] expectedBits = new long[SERIES * (int) (SAMPLES / SERIES)];
        for (long r = 0; r < SAMPLES / SERIES; r++) {
            for (int s = 0; s < SERIES; s++) {
                expectedBits[(int) (r * SERIES + s)] = Double.doubleToRawLongBits(expected.value(s, r));
            }
        }
        long samples = 0;
        long mismatches = 0;
        try (Head head = new Head(HeadOptions.defaults(data).withShards(2), new StreamRegistry(), new MemoryAccounting())) {
            head.start();
            assertThat(head.seriesCount()).isEqualTo(SERIES);
            HeadQuery query = head.query(Long.MIN_VALUE, Long.MAX_VALUE, Matcher.re("__name__", ".+"));
            while (query.next()) {
                int s = seriesIndex(query.labels().toString());
                long r = 0;
                for (SeriesSnapshot.Samples it = query.samples(); it.next(); r++, samples++) {
                    mismatches += it.timestampMs() == GaugeWorkload.timestampMs(r)
                            && it.valueBits() == expectedBits[(int) (r * SERIES + s)] ? 0 : 1;
                }
            }
        }
        assertThat(samples).isEqualTo(SAMPLES);
        assertThat(mismatches).isZero();
    }

    /**
     * {@code --aot-cache} with class directories on the class path (as in this test JVM) is one readable
     * line, before anything is written: the JDK builds AOT caches from jars only. (The cache itself is
     * tested end to end on the packaged jar: BenchReplayAotTest in the e2e module.)
     */
    @Test
    void anAotCacheOutsideThePackagedJarIsOneLineError() {
        Path data = dir.resolve("aot");
        CliRun run = CliRun.run("bench", "replay", "--samples", "20000", "--series", "100", "--dir", data.toString(),
                "--aot-cache", dir.resolve("replay.aot").toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.err().strip()).startsWith("sluice: bench replay: --aot-cache needs the packaged jar").doesNotContain("\n")
                .doesNotContain("Exception");
        assertThat(data).doesNotExist();
    }

    /** The workload's series index from its labels: host {@code i / 10}, mountpoint by {@code i % 10}. */
    private static int seriesIndex(String labels) {
        List<String> mounts = List.of("/", "/boot", "/home", "/var", "/var/log", "/tmp", "/data", "/data1", "/data2", "/srv");
        java.util.regex.Matcher host = java.util.regex.Pattern.compile("host-(\\d{4})").matcher(labels);
        java.util.regex.Matcher mount = java.util.regex.Pattern.compile("mountpoint=\"([^\"]*)\"").matcher(labels);
        assertThat(host.find() && mount.find()).as(labels).isTrue();
        return Integer.parseInt(host.group(1)) * 10 + mounts.indexOf(mount.group(1));
    }

    @Test
    void refusesAFullDirectoryAndBadCountsWithOneLine() throws IOException {
        Path full = Files.createDirectories(dir.resolve("full"));
        Files.writeString(full.resolve("x"), "x");
        CliRun run = CliRun.run("bench", "replay", "--samples", "1000", "--series", "10", "--dir", full.toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.errLines()).singleElement().asString().contains("is not empty");
        run = CliRun.run("bench", "replay", "--samples", "5", "--series", "10", "--dir", dir.resolve("new").toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.errLines()).singleElement().asString().contains("--samples must be at least --series");
        run = CliRun.run("bench", "replay", "--dir", dir.resolve("new").toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.errLines()).singleElement().asString().contains("--samples is required");
        run = CliRun.run("bench", "replay", "--replay-only", "--from", "disk", "--dir", full.toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.errLines()).singleElement().asString().contains("--from is 'wal' or 'checkpoint'");
        run = CliRun.run("bench", "replay", "--replay-only", "--dir", dir.resolve("absent").toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.errLines()).singleElement().asString().contains("is not a directory");
    }

    @Test
    void parsesGnuTimeVerbose() {
        TimeVerbose t = TimeVerbose.parse(List.of("\tCommand being timed: \"java -cp x\"", "\tUser time (seconds): 3.21",
                "\tSystem time (seconds): 0.40", "\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02.50",
                "\tMaximum resident set size (kbytes): 173000", "\tExit status: 0"));
        assertThat(t).isEqualTo(new TimeVerbose(62.5, 3.21, 0.40, 173_000));
        assertThat(TimeVerbose.clockSeconds("1:00:01")).isEqualTo(3601.0);
        assertThat(TimeVerbose.parse(List.of("Command terminated by signal 9"))).isNull();
    }
}
