package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.KafkaSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The start-up broker check: an unreachable broker is one line; a live one passes (TLS and SASL: KafkaSecurityTest). */
class BrokerCheckTest {
    private static KafkaSettings kafka(String bootstrapServers, String... flags) throws ConfigException {
        List<String> args = new ArrayList<>(List.of("--kafka.bootstrap-servers=" + bootstrapServers, "--kafka.topics=m=sluice"));
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
    void anUnknownSecurityProtocolIsOneLine() throws ConfigException {
        KafkaSettings tls = kafka(SharedKafka.broker().bootstrapServers(), "--kafka.security.protocol=TLS");
        assertThatThrownBy(() -> BrokerCheck.check(tls, 5_000))
                .isInstanceOf(ConfigException.class)
                .hasMessage("kafka.security.protocol: 'TLS' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");
    }

    /** Something that is not a Kafka broker on the port (here: answers every connection as HTTP would). */
    @Test
    void aPeerThatIsNoKafkaBrokerIsOneLine() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread answering = Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    } catch (IOException closed) {
                        return;
                    }
                }
            });
            String address = "127.0.0.1:" + server.getLocalPort();
            assertThatThrownBy(() -> BrokerCheck.check(kafka(address), 5_000))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageStartingWith("the broker at " + address + " did not answer a SASL handshake as a Kafka broker (")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
            server.close();
            answering.join();
        }
    }

    @Test
    void aLiveBrokerPasses() throws ConfigException {
        KafkaSettings live = kafka(SharedKafka.broker().bootstrapServers());
        assertThatCode(() -> BrokerCheck.check(live, 30_000)).doesNotThrowAnyException();
    }
}
