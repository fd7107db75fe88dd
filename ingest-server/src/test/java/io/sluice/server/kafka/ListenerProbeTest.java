package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.KafkaSettings;
import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What the start-up check of a listener loads: a plaintext deployment never needs the JDK's TLS stack,
 * so checking a PLAINTEXT or SASL_PLAINTEXT listener loads none of its classes (whether the listener speaks TLS is read
 * from the bytes it answers, KafkaSecurityTest), while a check over TLS does. Each check runs in a JVM
 * of its own ({@link Check}), whose class loading is logged.
 */
class ListenerProbeTest {

    @Test
    void aPlaintextCheckLoadsNoTlsClassesAndATlsCheckDoes() throws Exception {
        EmbeddedKafka kafka = SecureKafka.broker();
        assertThat(tlsClassesLoaded(kafka.bootstrapServers(), List.of())).isEmpty();
        assertThat(tlsClassesLoaded(kafka.bootstrapServers("SASL_PLAINTEXT"), SecureKafka.clientFlags("SASL_PLAINTEXT", "SCRAM-SHA-256")))
                .isEmpty();
        assertThat(tlsClassesLoaded(kafka.bootstrapServers("SSL"), SecureKafka.clientFlags("SSL", null)))
                .as("TLS classes, when TLS is used").hasSizeGreaterThan(100);
    }

    /** The log lines of the {@code sun.security.ssl} classes a JVM loads checking the listener at {@code bootstrap}. */
    private static List<String> tlsClassesLoaded(String bootstrap, List<String> flags) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx256m",
                "-Xlog:class+load=info:stdout", "-cp", System.getProperty("java.class.path"), Check.class.getName(),
                "--kafka.bootstrap-servers=" + bootstrap, "--kafka.topics=m=sluice"));
        command.addAll(flags);
        Path log = Files.createTempFile("listener-probe", ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the check's JVM exits").isTrue();
        } finally {
            process.destroyForcibly();
        }
        String output = Files.readString(log);
        Files.delete(log);
        assertThat(output).as("the check's JVM").contains(Check.PASSED);
        // SunJSSE, the provider's entry in the JDK's provider list, loads with any JCA lookup that walks the list
        return output.lines().filter(line -> line.contains(" sun.security.ssl.") && !line.contains(" sun.security.ssl.SunJSSE "))
                .toList();
    }

    /** Runs the start-up check of {@code --kafka.*} ARGS and prints {@link #PASSED} if it passes. */
    public static final class Check {
        static final String PASSED = "broker check passed";

        public static void main(String[] args) throws ConfigException {
            KafkaSettings settings = ConfigLoader.load(null, Map.of(), List.of(args)).kafka();
            BrokerCheck.check(settings, 30_000);
            System.out.println(PASSED);
        }
    }
}
