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

/** The start-up broker check: an unreachable broker is one line; a live one passes (TLS and SASL: KafkaSecurityTest). */
class BrokerCheckTest {
    private static KafkaSettings kafka(String bootstrapServers, String... flags) throws ConfigException {
        List<String> args = new java.util.ArrayList<>(List.of("--kafka.bootstrap-servers=" + bootstrapServers, "--kafka.topics=m=sluice"));
        args.addAll(List.of(flags));
        return ConfigLoader.load(null, Map.of(), args).kafka();
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
