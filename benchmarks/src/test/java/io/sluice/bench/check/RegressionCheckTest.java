package io.sluice.bench.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two JMH JSON files in, the regression report out. */
class RegressionCheckTest {
    @TempDir
    Path dir;

    private static String run(String benchmark, String mode, String params, double score, String unit, Double alloc) {
        String secondary = alloc == null ? "{}"
                : String.format(Locale.ROOT, "{\"gc.alloc.rate.norm\": {\"score\": %f, \"scoreUnit\": \"B/op\"}}", alloc);
        return String.format(Locale.ROOT, "{\"benchmark\": \"io.sluice.bench.%s\", \"mode\": \"%s\", \"params\": %s, "
                + "\"primaryMetric\": {\"score\": %f, \"scoreUnit\": \"%s\"}, \"secondaryMetrics\": %s}",
                benchmark, mode, params, score, unit, secondary);
    }

    private Path file(String name, String... runs) throws IOException {
        return Files.writeString(dir.resolve(name), "[" + String.join(",\n", runs) + "]");
    }

    @Test
    void reportsSlowerFasterMoreAllocationAndMissingBenchmarks() throws IOException {
        Path baseline = file("baseline.json",
                run("chunks.Xor.encode", "avgt", "{\"shape\": \"constant\"}", 1000, "ns/op", 0.0),
                run("chunks.Xor.encode", "avgt", "{\"shape\": \"random\"}", 1000, "ns/op", 0.0),
                run("head.Append.append", "avgt", "{}", 100, "ns/op", 10.0),
                run("wal.Read.read", "thrpt", "{}", 500, "ops/s", null),
                run("gone.Old.bench", "avgt", "{}", 1, "ns/op", null));
        Path current = file("current.json",
                run("chunks.Xor.encode", "avgt", "{\"shape\": \"constant\"}", 1200, "ns/op", 0.5),   // +20 % slower; 0.5 B/op is noise
                run("chunks.Xor.encode", "avgt", "{\"shape\": \"random\"}", 1100, "ns/op", 0.0),     // +10 %: under the threshold
                run("head.Append.append", "avgt", "{}", 80, "ns/op", 40.0),                          // faster, but 4x the allocation
                run("wal.Read.read", "thrpt", "{}", 400, "ops/s", null),                             // throughput -20 %
                run("query.New.bench", "avgt", "{}", 1, "ns/op", null));

        RegressionCheck.Report report = RegressionCheck.compare(RegressionCheck.read(baseline), RegressionCheck.read(current), 15);

        assertThat(report.regressions()).extracting(f -> f.key() + " " + f.what()).containsExactly(
                "chunks.Xor.encode[shape=constant] score", "head.Append.append alloc", "wal.Read.read score");
        assertThat(report.findings()).hasSize(7); // 4 scores + 3 allocations present in both
        assertThat(report.onlyInBaseline()).containsExactly("gone.Old.bench");
        assertThat(report.onlyInCurrent()).containsExactly("query.New.bench");
        String text = report.text();
        assertThat(text).startsWith("7 benchmark figure(s) compared, threshold 15 %: 3 regression(s)");
        assertThat(text).contains("(+20.0 %)").contains("(-20.0 %)").contains("missing    gone.Old.bench").contains("new        query.New.bench");
        assertThat(text.lines().skip(1).limit(3)).allMatch(l -> l.startsWith("REGRESSION"));
        assertThat(text.lines().filter(l -> l.startsWith("REGRESSION"))).hasSize(3);
    }

    @Test
    void aLargerThresholdLetsTheSameChangesPass() throws IOException {
        Path baseline = file("b.json", run("chunks.Xor.encode", "avgt", "{}", 1000, "ns/op", 0.0));
        Path current = file("c.json", run("chunks.Xor.encode", "avgt", "{}", 1200, "ns/op", 0.0));
        assertThat(RegressionCheck.compare(RegressionCheck.read(baseline), RegressionCheck.read(current), 25).regressions()).isEmpty();
        assertThat(RegressionCheck.compare(RegressionCheck.read(baseline), RegressionCheck.read(current), 15).regressions()).hasSize(1);
    }

    @Test
    void somethingThatIsNotJmhJsonIsOneClearError() throws IOException {
        Path notJmh = Files.writeString(dir.resolve("x.json"), "{\"a\": 1}");
        assertThatThrownBy(() -> RegressionCheck.read(notJmh)).hasMessageContaining("is not a JMH JSON result");
        Path broken = Files.writeString(dir.resolve("y.json"), "[{");
        assertThatThrownBy(() -> RegressionCheck.read(broken)).hasMessageContaining("is not readable JMH JSON");
    }
}
