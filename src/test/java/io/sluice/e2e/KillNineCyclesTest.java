package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * kill -9 while producing: the server is started and SIGKILLed at seeded random moments
 * ({@code sluice.e2e.cycles} times: 20 in the normal run, 200 with {@code -P soak}) while a producer
 * keeps writing known samples; then one last server catches up and everything stored must equal
 * everything produced: none lost, none twice.
 */
class KillNineCyclesTest extends ScenarioTest {
    /**
     * Bounds the data on a slow machine (cycles take longer there, and without checkpoints every
     * restart replays everything): 20 cycles produce at most 600,000 samples.
     */
    private static final int MAX_ROUNDS_PER_CYCLE = 150;

    @Test
    void killNineAtRandomMomentsLosesNothingAndStoresNothingTwice() throws Exception {
        scenario = new CrashScenario("kill9", E2eEnvironment.broker(), null, List.of());
        killAtRandomMoments(null);
    }

    /**
     * The same with late samples in the stream ({@link KnownSamples#withLateSamples}: series spread over
     * the partitions, samples held back, exact repeats) and a checkpoint every second, so runs are
     * killed after checkpoints and chunk-file writes made while late samples were held, and restart
     * from them (the samples a killed run consumed and committed come back only from its data directory).
     */
    @Test
    void killNineWithLateSamplesInTheStreamLosesNothingAndStoresNothingTwice() throws Exception {
        scenario = new CrashScenario("kill9-late", E2eEnvironment.broker(), null, List.of("head.checkpoint-interval=1s"),
                KnownSamples.withLateSamples(CrashScenario.SERIES, CrashScenario.PARTITIONS));
        LateKills late = new LateKills();
        killAtRandomMoments(late);
        assertThat(late.afterCheckpointAndChunkWrite).as("runs killed after a checkpoint and a chunk-file write with late "
                + "samples held").isPositive();
        assertThat(late.outOfOrder).as("late samples stored by the runs").isPositive();
        assertThat(late.duplicates).as("exact repeats ignored by the runs").isPositive();
    }

    /** What the runs of the late-sample test did before their kill (from /metrics). */
    private static final class LateKills {
        int afterCheckpointAndChunkWrite;
        long outOfOrder;
        long duplicates;

        void beforeKill(ServerProcess server) {
            double held = metric(server, "sluice_head_out_of_order_series");
            if (held > 0 && metric(server, "sluice_checkpoints_written_total") > 0
                    && metric(server, "sluice_chunks_persisted_total") > 0) {
                afterCheckpointAndChunkWrite++;
            }
            outOfOrder += (long) Math.max(0, metric(server, "sluice_samples_out_of_order_total"));
            duplicates += (long) Math.max(0, metric(server, "sluice_samples_duplicate_total"));
        }

        @Override
        public String toString() {
            return "killed-after-checkpoint-and-chunk-write-with-late-held=" + afterCheckpointAndChunkWrite
                    + " out-of-order-stored-by-killed-runs=" + outOfOrder + " duplicates-by-killed-runs=" + duplicates;
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

    private void killAtRandomMoments(LateKills late) throws Exception {
        int cycles = E2eEnvironment.cycles();
        long seed = E2eEnvironment.seed();
        SplittableRandom random = new SplittableRandom(seed);
        SampleProducer producer = scenario.startProducer(Duration.ofMillis(E2eEnvironment.roundIntervalMs()), 0,
                cycles * MAX_ROUNDS_PER_CYCLE);
        long t0 = System.nanoTime();
        int killedBeforeReady = 0;
        int killedWhileAppending = 0; // runs that had appended samples when killed: the kills hit real work
        long appendedByKilledRuns = 0;
        for (int cycle = 0; cycle < cycles; cycle++) {
            ServerProcess server = scenario.launcher().start();
            // One kill in four lands while the server starts (replaying, joining the group), the rest
            // while it consumes: a random moment 0.2 to 2.5 s after it became ready.
            long delayMs;
            if (random.nextInt(4) == 0) {
                delayMs = 300 + random.nextInt(2500);
                killedBeforeReady++;
            } else {
                server.awaitReady(ServerLauncher.READY_TIMEOUT);
                delayMs = 200 + random.nextInt(2300);
            }
            pauseMs(delayMs); // the random moment of the kill: deliberate, not a synchronisation
            long appended = appendedSoFar(server);
            if (late != null) {
                late.beforeKill(server);
            }
            server.kill();
            if (appended > 0) {
                killedWhileAppending++;
                appendedByKilledRuns += appended;
            }
        }
        int rounds = producer.stop();
        CrashScenario.Verdict verdict = scenario.verify(rounds, "cycles=" + cycles + " seed=" + seed + " round-interval="
                + E2eEnvironment.roundIntervalMs() + "ms killed-while-starting="
                + killedBeforeReady + " killed-while-appending=" + killedWhileAppending + " appended-by-killed-runs="
                + appendedByKilledRuns + (late == null ? "" : " " + late) + " duration=" + (System.nanoTime() - t0) / 1_000_000_000 + "s");

        assertThat(rounds).as("rounds produced").isGreaterThan(cycles);
        assertThat(killedWhileAppending).as("runs killed in the middle of ingesting").isGreaterThan(cycles / 4);
        assertThat(verdict.isExact()).as(verdict.summary()).isTrue();
    }

    /** Samples the run appended, or 0 if it does not answer (still starting). */
    private static long appendedSoFar(ServerProcess server) {
        try {
            double v = server.metric("sluice_samples_appended_total", "");
            return Double.isNaN(v) ? 0 : (long) v;
        } catch (IOException e) {
            return 0;
        }
    }

    private static void pauseMs(long ms) {
        LockSupport.parkNanos(ms * 1_000_000);
    }
}
