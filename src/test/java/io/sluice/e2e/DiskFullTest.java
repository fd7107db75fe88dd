package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * A full disk under the WAL: the server stays up, says why it stopped taking data ({@code /-/ready}
 * 503 with the reason, {@code sluice_wal_error} 1, one ERROR log line), pauses consumption instead of
 * crashing or corrupting, and once space is freed resumes by itself; nothing is lost or stored twice.
 * The file system is a 64 MiB tmpfs the test mounts (root only: skipped with the reason otherwise).
 */
class DiskFullTest {
    private static final int FIRST_ROUNDS = 200;
    private static final int ROUNDS_WHILE_FULL = 400; // several 64 KiB segments per shard: rolls must fail

    private CrashScenario scenario;
    private SmallFilesystem small;

    @AfterEach
    void cleanUp() throws IOException {
        try {
            if (scenario != null) {
                scenario.close(); // the server first: it holds files on the tmpfs
            }
        } finally {
            if (small != null) {
                small.close();
            }
        }
    }

    @Test
    void fullDiskPausesIngestionAndFreedSpaceResumesIt() throws Exception {
        Path work = E2eEnvironment.newWorkDir("disk-full");
        try {
            small = SmallFilesystem.mount(work.resolve("small"), 64);
        } catch (SmallFilesystem.Unavailable e) {
            Assumptions.abort(e.getMessage());
        }
        scenario = new CrashScenario("disk-full", E2eEnvironment.broker(), small.path().resolve("data"), List.of());
        scenario.produce(0, FIRST_ROUNDS);
        ServerProcess server = scenario.launcher().startReady();
        scenario.progress().awaitCaughtUp(CrashScenario.CATCH_UP_TIMEOUT);

        long filled = small.fill();
        scenario.produce(FIRST_ROUNDS, FIRST_ROUNDS + ROUNDS_WHILE_FULL);
        String[] lastReady = {""};
        Poll.until("the server reporting its full disk", Duration.ofMinutes(2), () -> {
            lastReady[0] = answer(server, "/-/ready");
            return lastReady[0].startsWith("503") && lastReady[0].contains("cannot write its WAL");
        }, () -> "/-/ready: " + lastReady[0]);
        Poll.until("consumption pausing", Duration.ofMinutes(2),
                () -> metric(server, "sluice_partitions_paused") > 0, () -> "sluice_partitions_paused 0");
        double walError = metric(server, "sluice_wal_error");
        String healthy = answer(server, "/-/healthy");
        long lagWhileFull = scenario.progress().lag(scenario.progress().endOffsets());
        assertThat(server.isAlive()).isTrue();
        assertThat(walError).as("sluice_wal_error").isGreaterThan(0);
        assertThat(healthy).startsWith("200");
        assertThat(lagWhileFull).as("records not committed while the disk is full").isPositive();
        assertThat(server.logText()).contains("cannot write its WAL").contains("No space left on device");

        small.free();
        CrashScenario.Verdict verdict = scenario.verify(FIRST_ROUNDS + ROUNDS_WHILE_FULL, "filled=" + filled / 1024 + "KiB"
                + " lag-while-full=" + lagWhileFull + " wal-error=" + walError);
        assertThat(server.logText()).contains("writes its WAL again");
        assertThat(verdict.isExact()).as(verdict.summary()).isTrue();
    }

    private static String answer(ServerProcess server, String path) {
        try {
            HttpResponse<String> r = server.get(path);
            return r.statusCode() + " " + r.body();
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static double metric(ServerProcess server, String name) {
        try {
            double v = server.metric(name, "");
            return Double.isNaN(v) ? 0 : v;
        } catch (IOException e) {
            return 0;
        }
    }
}
