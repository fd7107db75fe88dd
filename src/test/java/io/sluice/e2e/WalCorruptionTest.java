package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each kind of WAL damage ({@link WalDamage}) done to a killed server's shard-0 WAL after everything
 * was consumed and committed: {@code sluice wal inspect} reports it with file and position, the
 * restarted server reports its repair the same way and, as its own commit is now ahead of its WAL,
 * consumes the cut records again from Kafka: in the end none lost, none twice. The stream carries
 * late samples ({@link KnownSamples#withLateSamples}), so the records consumed again hold samples
 * older than their series' newest, and exact repeats of stored ones.
 */
class WalCorruptionTest extends ScenarioTest {
    private static final int FIRST_ROUNDS = 500;  // ~5 segments of 64 KiB per shard
    private static final int MORE_ROUNDS = 100;   // produced while the server is down

    @ParameterizedTest
    @EnumSource(WalDamage.class)
    void damageIsReportedRepairedAndRefilledFromKafka(WalDamage damage) throws Exception {
        scenario = new CrashScenario("wal-" + damage.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                E2eEnvironment.broker(), null, List.of(),
                KnownSamples.withLateSamples(CrashScenario.SERIES, CrashScenario.PARTITIONS));
        scenario.produce(0, FIRST_ROUNDS);
        ServerProcess first = scenario.launcher().startReady();
        scenario.progress().awaitCaughtUp(CrashScenario.CATCH_UP_TIMEOUT);
        first.kill();

        Path wal = scenario.launcher().dataDir().resolve("shard-0").resolve("wal");
        WalDamage.Damage done = damage.applyTo(wal);
        SluiceCli.Result inspect = SluiceCli.run("wal", "inspect", wal.toString());
        String segment = Integer.toString(Integer.parseInt(done.file().getFileName().toString().substring(0, 10)));
        if (damage.expectedReason() != null) {
            assertThat(inspect.exitCode()).as(inspect.output()).isEqualTo(1);
            assertThat(inspect.output()).contains("corruption: " + damage.expectedReason() + " at " + segment + ":" + done.offset());
        } else if (damage == WalDamage.ZEROED_PAGE) {
            assertThat(inspect.exitCode()).as(inspect.output()).isEqualTo(1);
            assertThat(inspect.output()).containsPattern("corruption: [A-Z_]+ at " + segment + ":\\d+");
        }

        scenario.produce(FIRST_ROUNDS, FIRST_ROUNDS + MORE_ROUNDS);
        ServerProcess second = scenario.launcher().startReady();
        scenario.progress().awaitCaughtUp(CrashScenario.CATCH_UP_TIMEOUT);
        String log = second.logText();
        if (damage.expectedReason() != null) {
            assertThat(log).contains("shard 0 repaired its WAL: " + damage.expectedReason() + " in " + done.file()
                    + " at byte " + done.offset());
        } else if (damage == WalDamage.ZEROED_PAGE) {
            assertThat(log).containsPattern("shard 0 repaired its WAL: [A-Z_]+ in " + done.file() + " at byte \\d+");
        }
        if (damage != WalDamage.TORN_LAST_RECORD) { // the torn OFFSETS record may not be above the commit
            assertThat(log).contains("WAL data was lost");
        }
        CrashScenario.Verdict verdict = scenario.verify(FIRST_ROUNDS + MORE_ROUNDS, "damage=" + damage + " at " + done.file()
                + (done.offset() >= 0 ? ":" + done.offset() : ""));
        assertThat(verdict.isExact()).as(verdict.summary()).isTrue();
    }
}
