package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Damage to a chunk file the checkpoints refer to, done after an orderly stop (whose checkpoint
 * refers to every full chunk): the restarted server reports it with file and position, falls back
 * (older checkpoint and WAL, or an emptied shard refilled from Kafka, docs/format/checkpoint.md
 * "Damage") and in the end holds every sample once. The stream carries late samples
 * ({@link KnownSamples#withLateSamples}): the checkpoints hold out-of-order samples beside the chunk
 * files, restored with them or rebuilt from an older checkpoint, the WAL and Kafka.
 */
class ChunkFileCorruptionTest extends ScenarioTest {
    private static final int FIRST_ROUNDS = 500;  // 4 full chunks (120 samples) per series
    private static final int MORE_ROUNDS = 100;

    @ParameterizedTest
    @EnumSource(ChunkFileDamage.class)
    void damagedChunkFileIsReportedAndItsSamplesComeBack(ChunkFileDamage damage) throws Exception {
        scenario = new CrashScenario("chunks-" + damage.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                E2eEnvironment.broker(), null, List.of("head.checkpoint-interval=1s"),
                KnownSamples.withLateSamples(CrashScenario.SERIES, CrashScenario.PARTITIONS));
        scenario.produce(0, FIRST_ROUNDS);
        ServerProcess first = scenario.launcher().startReady();
        scenario.progress().awaitCaughtUp(CrashScenario.CATCH_UP_TIMEOUT);
        assertThat(first.stop()).as("exit code of an orderly stop").isZero();

        Path chunks = scenario.launcher().dataDir().resolve("shard-0").resolve("chunks");
        String expectedReport = damage.applyTo(chunks);
        scenario.produce(FIRST_ROUNDS, FIRST_ROUNDS + MORE_ROUNDS);
        ServerProcess second = scenario.launcher().startReady();
        scenario.progress().awaitCaughtUp(CrashScenario.CATCH_UP_TIMEOUT);
        assertThat(second.logText()).contains(expectedReport);

        CrashScenario.Verdict verdict = scenario.verify(FIRST_ROUNDS + MORE_ROUNDS, "damage=" + damage + " ("
                + expectedReport + ")");
        assertThat(verdict.isExact()).as(verdict.summary()).isTrue();
    }
}
