package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `sluice serve` with a bad configuration: exit code 2 and exactly one readable line on stderr. */
class ServeCommandErrorsTest {
    @TempDir
    Path dir;

    private static void assertOneLine(CliRun run, String line) {
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.errLines()).containsExactly(line);
        assertThat(run.out()).isEmpty();
    }

    @Test
    void unknownKey() {
        assertOneLine(CliRun.run("serve", "--http.prot=9"),
                "sluice: unknown key 'http.prot' (flag --http.prot); did you mean 'http.port'?");
    }

    @Test
    void unknownEnvironmentVariable() {
        assertOneLine(CliRun.run(Map.of("SLUICE_WAL_SIZE", "1MiB"), "serve"),
                "sluice: unknown key: environment variable SLUICE_WAL_SIZE names no configuration key");
    }

    @Test
    void badValue() {
        assertOneLine(CliRun.run("serve", "--kafka.bootstrap-servers=h:1", "--kafka.topics=m=sluice", "--queue.batch-bytes=lots"),
                "sluice: queue.batch-bytes: 'lots' is not a size (like 4096, 64KiB, 128MiB, 1GiB) (flag --queue.batch-bytes)");
    }

    @Test
    void badValueFromTheEnvironment() {
        assertOneLine(CliRun.run(Map.of("SLUICE_HTTP_PORT", "http"), "serve"),
                "sluice: http.port: 'http' is not a whole number in 0..65535 (environment SLUICE_HTTP_PORT)");
    }

    @Test
    void missingRequiredValue() {
        assertOneLine(CliRun.run("serve", "--kafka.topics=m=sluice"),
                "sluice: missing required value: kafka.bootstrap-servers (set it in the configuration file, as "
                        + "--kafka.bootstrap-servers=... or as SLUICE_KAFKA_BOOTSTRAP_SERVERS)");
    }

    @Test
    void badConfigurationFile() throws IOException {
        Path file = dir.resolve("sluice.yaml");
        Files.writeString(file, "http:\n  port: 80\n   host: x\n");
        CliRun run = CliRun.run("serve", "--config", file.toString());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.errLines()).hasSize(1);
        assertThat(run.errLines().getFirst()).startsWith("sluice: sluice.yaml:3:").contains("not valid YAML");
    }

    @Test
    void unreachableBroker() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort(); // free once closed: nothing listens there
        }
        assertOneLine(CliRun.run("serve", "--kafka.bootstrap-servers=127.0.0.1:" + closedPort, "--kafka.topics=m=sluice",
                        "--data.dir=" + dir.resolve("data")),
                "sluice: kafka.bootstrap-servers: no broker reachable: 127.0.0.1:" + closedPort + " (Connection refused)");
        assertThat(dir.resolve("data")).doesNotExist(); // checked before anything starts
    }

    @Test
    void noCommandPrintsUsage() {
        CliRun run = CliRun.run();
        assertThat(run.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(run.err()).contains("Usage: sluice").contains("serve").contains("demo").contains("loadgen").contains("wal");
    }

    @Test
    void aGroupWithoutItsSubcommandOrMissingOptionsPrintUsage() {
        CliRun wal = CliRun.run("wal");
        assertThat(wal.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(wal.err()).contains("Usage: sluice wal").contains("inspect");
        CliRun loadgen = CliRun.run("loadgen", "--topic=t");
        assertThat(loadgen.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(loadgen.err()).startsWith("Missing required options: '--bootstrap-servers=H:P'");
        CliRun format = CliRun.run("loadgen", "--bootstrap-servers=h:1", "--topic=t", "--format=csv", "--series=1", "--samples=1");
        assertThat(format.exitCode()).isEqualTo(ExitCodes.CONFIG);
        assertThat(format.err()).startsWith("Invalid value for option '--format': unknown payload format 'csv'");
    }

    @Test
    void helpEverywhere() {
        for (String[] args : new String[][] {{"--help"}, {"serve", "--help"}, {"demo", "--help"}, {"loadgen", "--help"},
                {"wal", "--help"}, {"wal", "inspect", "--help"}}) {
            CliRun run = CliRun.run(args);
            assertThat(run.exitCode()).as(String.join(" ", args)).isZero();
            assertThat(run.out()).as(String.join(" ", args)).startsWith("Usage: sluice");
        }
    }
}
