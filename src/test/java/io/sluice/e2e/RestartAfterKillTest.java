package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The small-scale version of {@code benchmarks/restart-after-kill.sh} (issue 6: restart after kill -9
 * with many active series): {@value #SERIES} series, a checkpoint of the first {@value #CHECKPOINTED_ROUNDS}
 * rounds, {@value #WAL_ROUNDS} more rounds only in the WAL, SIGKILL, {@value #WHILE_DOWN_ROUNDS} rounds
 * produced while the server is down, restart. Asserts what the restart loaded, exactly: every series
 * at readiness (and a query answers), the checkpoint's samples restored, the WAL's replayed, the rest
 * consumed from the committed offsets; finally every produced sample stored once (export and WAL).
 * Counts, never time: the time to ready is the script's measurement.
 *
 * <p>The server runs with the default group membership: static, named after its data directory, so the
 * restart takes its partitions back at once although the killed member's session lasts 10 minutes.
 *
 * <p>The checkpoint is the one of an orderly stop, and the killed run checkpoints only on shutdown
 * ({@code head.checkpoint-interval=0}), so exactly which rounds are in the checkpoint and which only in
 * the WAL does not depend on timing.
 */
class RestartAfterKillTest extends ScenarioTest {
    static final int SERIES = 20_000;
    static final int CHECKPOINTED_ROUNDS = 8;
    static final int WAL_ROUNDS = 4;
    static final int WHILE_DOWN_ROUNDS = 3;

    @Test
    void restartAfterKillNineLoadsCheckpointAndWalAndResumesAtTheRightOffsets() throws Exception {
        // Default group membership (the launcher's static id unset again): the restart must rejoin as the
        // member named after the data directory. With dynamic membership it would wait for the killed
        // member's session (10 min here) to expire, beyond the launcher's ready timeout.
        scenario = new CrashScenario("restart", E2eEnvironment.broker(), null,
                List.of("head.checkpoint-interval=0", "wal.segment-size=1MiB", "kafka.commit-interval=200ms",
                        "kafka.group-instance-id=", "kafka.session-timeout=10m"), SERIES);
        ServerLauncher launcher = scenario.launcher();
        int walEnd = CHECKPOINTED_ROUNDS + WAL_ROUNDS;
        int end = walEnd + WHILE_DOWN_ROUNDS;

        // Run 1: the first rounds, then an orderly stop: its checkpoint holds every series.
        ServerProcess first = launcher.startReady();
        scenario.produce(0, CHECKPOINTED_ROUNDS);
        awaitMetric(first, "sluice_samples_appended_total", (long) SERIES * CHECKPOINTED_ROUNDS);
        scenario.progress().awaitCaughtUp(CrashScenario.CATCH_UP_TIMEOUT);
        assertThat(first.stop()).as("exit code of the orderly stop").isZero();

        // Run 2: restores that checkpoint, appends more rounds to its WAL only, and is killed.
        ServerProcess second = launcher.startReady();
        assertThat(metric(second, "sluice_restore_samples_total")).as("samples restored by run 2")
                .isEqualTo((long) SERIES * CHECKPOINTED_ROUNDS);
        scenario.produce(CHECKPOINTED_ROUNDS, walEnd);
        awaitMetric(second, "sluice_samples_appended_total", (long) SERIES * WAL_ROUNDS);
        // Committed = synced by every shard: the WAL holds all of them, so the replay count below is exact
        // (an unsynced tail at the kill is KillNineCyclesTest's subject).
        scenario.progress().awaitCaughtUp(CrashScenario.CATCH_UP_TIMEOUT);
        assertThat(metric(second, "sluice_checkpoints_written_total")).as("checkpoints of run 2").isZero();
        second.kill();

        // Down: the producer goes on. Run 3 must load checkpoint + WAL and consume only what follows.
        scenario.produce(walEnd, end);
        ServerProcess third = launcher.startReady();
        long restored = metric(third, "sluice_restore_samples_total");
        long replayed = metric(third, "sluice_replay_samples_total");
        long seriesAtReady = metric(third, "sluice_series_active");
        assertThat(seriesAtReady).as("series in the head at readiness").isEqualTo(SERIES);
        assertThat(restored).as("samples restored from the checkpoint").isEqualTo((long) SERIES * CHECKPOINTED_ROUNDS);
        assertThat(replayed).as("samples replayed from the WAL after the checkpoint").isEqualTo((long) SERIES * WAL_ROUNDS);
        assertThat(lastSeriesAnswers(third)).as("a query for one series at readiness").isTrue();

        awaitMetric(third, "sluice_samples_appended_total", (long) SERIES * WHILE_DOWN_ROUNDS);
        scenario.progress().awaitCaughtUp(CrashScenario.CATCH_UP_TIMEOUT);
        long appended = metric(third, "sluice_samples_appended_total");
        long skipped = metric(third, "sluice_samples_already_applied_total");
        CrashScenario.Verdict verdict = scenario.verify(end, "series=" + SERIES + " restored=" + restored
                + " replayed=" + replayed + " appended-after-restart=" + appended + " already-applied-skipped=" + skipped);

        assertThat(restored + replayed + appended).as("checkpoint + WAL + consumed after the restart")
                .isEqualTo((long) SERIES * end);
        assertThat(verdict.isExact()).as(verdict.summary()).isTrue();
    }

    /** The query the script times as "first query answer": the series of one label value. */
    private static boolean lastSeriesAnswers(ServerProcess server) throws IOException {
        String name = KnownSamples.seriesName(SERIES - 1);
        HttpResponse<String> r = server.get("/api/v1/series?match[]="
                + URLEncoder.encode("{series=\"" + name + "\"}", StandardCharsets.UTF_8));
        return r.statusCode() == 200 && r.body().contains("\"" + name + "\"");
    }

    private static void awaitMetric(ServerProcess server, String name, long atLeast) {
        Poll.until(name + " reaching " + atLeast, CrashScenario.CATCH_UP_TIMEOUT, () -> metric(server, name) >= atLeast,
                () -> name + " = " + metric(server, name));
    }

    /** A metric summed over its lines; 0 when absent or the server does not answer. */
    private static long metric(ServerProcess server, String name) {
        try {
            double v = server.metric(name, "");
            return Double.isNaN(v) ? 0 : (long) v;
        } catch (IOException e) {
            return 0;
        }
    }
}
