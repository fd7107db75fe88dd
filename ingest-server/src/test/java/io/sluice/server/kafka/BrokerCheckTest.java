package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.KafkaSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The start-up broker check: an unreachable broker is one line; a live one passes. */
class BrokerCheckTest {
    private static KafkaSettings kafka(String bootstrapServers, String... flags) throws ConfigException {
        List<String> args = new java.util.ArrayList<>(List.of("--kafka.bootstrap-servers=" + bootstrapServers, "--kafka.topics=m=sluice"));
        args.addAll(List.of(flags));
        return ConfigLoader.load(null, Map.of(), args).kafka();
    }

    /** SASL_SSL against the plaintext listener of a real broker: one line naming TLS, at once, not a timeout. */
    @Test
    void tlsAgainstAPlaintextListenerIsOneLineNamingTls() throws ConfigException {
        String address = SharedKafka.broker().bootstrapServers();
        KafkaSettings tls = kafka(address, "--kafka.security.protocol=SASL_SSL", "--kafka.sasl.mechanism=SCRAM-SHA-256",
                "--kafka.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"p\";");
        assertThatThrownBy(() -> BrokerCheck.check(tls, 30_000))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("kafka.security.protocol=SASL_SSL but the broker at " + address + " does not speak TLS (")
                .hasMessageEndingWith("): is it a PLAINTEXT or SASL_PLAINTEXT listener?")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    /** A truststore that does not exist: one line naming the file, not "Failed to create new KafkaAdminClient". */
    /** A client property Kafka refuses: the root cause in one line. */
    @Test
    void aBadClientPropertyIsOneLineWithTheRootCause() throws ConfigException {
        KafkaSettings bad = kafka(SharedKafka.broker().bootstrapServers(), "--kafka.security.protocol=SASL_PLAINTEXT",
                "--kafka.sasl.mechanism=PLAIN");
        assertThatThrownBy(() -> BrokerCheck.check(bad, 30_000))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("kafka client configuration rejected: ")
                .hasMessageContaining("JAAS")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("Failed to create new KafkaAdminClient"));
    }

    @Test
    void aMissingTruststoreIsOneLineNamingTheFile() throws ConfigException {
        KafkaSettings missing = kafka(SharedKafka.broker().bootstrapServers(), "--kafka.security.protocol=SSL",
                "--kafka.ssl.truststore.location=/nonexistent.jks", "--kafka.ssl.truststore.password=x");
        assertThatThrownBy(() -> BrokerCheck.check(missing, 30_000))
                .isInstanceOf(ConfigException.class)
                .hasMessage("kafka.ssl.truststore.location: /nonexistent.jks cannot be read (no such file)")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n").doesNotContain("Failed to create new KafkaAdminClient"));
    }

    @Test
    void anUnreachableBrokerIsOneLine() throws ConfigException {
        KafkaSettings unreachable = kafka("127.0.0.1:1");
        assertThatThrownBy(() -> BrokerCheck.check(unreachable, 500))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("kafka.bootstrap-servers: no broker reachable: 127.0.0.1:1")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aLiveBrokerPasses() throws ConfigException {
        KafkaSettings live = kafka(SharedKafka.broker().bootstrapServers());
        assertThatCode(() -> BrokerCheck.check(live, 30_000)).doesNotThrowAnyException();
    }
}
