package io.sluice.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every preset, scaled down to a few thousand series and a 3-second sustained phase, against one
 * real broker (passed as an external one): the report's numbers agree with each other and with the
 * lag CSV. Speed is not asserted.
 */
class E2eBenchSmokeTest {
    private static EmbeddedKafka kafka;
    @TempDir
    static Path brokerDir;
    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker() throws IOException {
        kafka = EmbeddedKafka.start(brokerDir);
    }

    @AfterAll
    static void stopBroker() {
        kafka.close();
    }

    private E2eReport run(String preset, String scale) throws Exception {
        E2eConfig config = E2eConfig.parse(new String[] {"--preset", preset, "--scale", scale, "--seconds", "3",
            "--bootstrap-servers", kafka.bootstrapServers(), "--dir", dir.resolve("work").toString(),
            "--out", dir.resolve("out").toString()});
        E2eReport report = E2eBench.run(config);
        assertConsistent(config, report);
        return report;
    }

    private void assertConsistent(E2eConfig config, E2eReport r) throws IOException {
        assertThat(r.appendedSamples()).isEqualTo(r.producedSamples());
        assertThat(r.drain().samples()).isEqualTo(config.prefillSamples());
        // samples stored in the sustained window plus the lag at its end are the ones produced in it
        assertThat(r.drain().samples() + r.sustain().samples() + r.sustain().endLagSamples()).isEqualTo(r.producedSamples());
        assertThat(r.sustain().samples()).isPositive();
        assertThat(r.sustain().samplesPerSecond()).isCloseTo(r.sustain().samples() / r.sustain().seconds(),
                org.assertj.core.data.Percentage.withPercentage(0.01));
        assertThat(r.sustain().samplesPerSecondPerCore() * r.cores()).isCloseTo(r.sustain().samplesPerSecond(),
                org.assertj.core.data.Percentage.withPercentage(0.01));
        assertThat(r.sustain().latencyP50Ms()).isPositive().isLessThanOrEqualTo(r.sustain().latencyP99Ms());
        assertThat(r.sustain().latencyP99Ms()).isLessThanOrEqualTo(r.sustain().latencyP999Ms());
        assertThat(r.drain().maxLagSamples()).isPositive().isLessThanOrEqualTo(config.prefillSamples());
        assertThat(r.seriesInHead()).isEqualTo(r.seriesCreated());
        assertThat(r.peakRssBytes()).isGreaterThanOrEqualTo(r.heapUsedBytes()).isPositive();
        assertThat(r.liveHeapBytes()).isPositive().isLessThanOrEqualTo(r.peakRssBytes());
        assertThat(r.offheapBytes()).isPositive();
        assertThat(r.walBytesPerSample()).isPositive();
        assertThat(r.chunkBytesPerSample()).isPositive();
        assertThat(r.embeddedBroker()).isFalse();

        Path out = dir.resolve("out");
        String stem = java.time.LocalDate.now() + "-" + config.runName();
        assertThat(Files.readString(out.resolve(stem + ".json"))).contains("\"producedSamples\": " + r.producedSamples());
        List<String> rows = Files.readAllLines(out.resolve(stem + "-lag.csv"));
        assertThat(rows.getFirst()).isEqualTo(LagSampler.HEADER);
        String[] last = rows.getLast().split(",");
        assertThat(Long.parseLong(last[2])).as("produced, last row").isEqualTo(r.producedSamples());
        assertThat(Long.parseLong(last[3])).as("appended, last row").isEqualTo(r.producedSamples());
        assertThat(Long.parseLong(last[4])).as("lag, last row").isZero();
        assertThat(rows.stream().skip(1).map(row -> row.split(",")[1]).distinct()).contains("drain", "sustain");
    }

    @Test
    void maxRateAtSmallScale() throws Exception {
        E2eReport r = run("max-rate", "0.01"); // 1,000 series, 200,000 samples to drain, then 10,000 samples/s
        assertThat(r.activeSeries()).isEqualTo(1_000);
        assertThat(r.seriesCreated()).isEqualTo(1_000);
    }

    @Test
    void perconaAtSmallScale() throws Exception {
        E2eReport r = run("percona", "0.002"); // 3,400 series, one scrape of each, then 760 samples/s
        assertThat(r.seriesInHead()).isEqualTo(3_400);
        assertThat(r.targetRate()).isEqualTo(760);
    }

    @Test
    void churnCreatesNewSeriesAtItsRate() throws Exception {
        E2eReport r = run("churn", "0.01"); // 2,000 series, 16.7 new series a second
        assertThat(r.seriesCreated()).isGreaterThan(2_000).isLessThanOrEqualTo(2_000 + 17 * 3 + 1);
        assertThat(r.seriesInHead()).isEqualTo(r.seriesCreated());
    }

    @Test
    void unknownFlagIsOneReadableLine() {
        assertThatThrownBy(() -> E2eConfig.parse(new String[] {"--preset", "max-rate", "--sereis", "10"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("unknown or incomplete option --sereis");
        assertThatThrownBy(() -> E2eConfig.preset("nope", 1)).hasMessageContaining("max-rate, percona or churn");
    }
}
