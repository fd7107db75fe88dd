package io.sluice.server.kafka;

import static io.sluice.server.kafka.SecureKafka.clientFlags;
import static io.sluice.server.kafka.SecureKafka.jaas;
import static io.sluice.server.kafka.SecureKafka.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.server.config.ConfigException;
import io.sluice.server.config.ConfigLoader;
import io.sluice.server.config.KafkaSettings;
import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The start-up check against a real broker listening with TLS, SASL over TLS and SASL over plaintext
 * (SCRAM-SHA-256/512 and PLAIN), certificates made by the test: every right configuration passes, and
 * every classic mistake is one line naming its cause, at once (no client timeout).
 */
class KafkaSecurityTest {
    private static EmbeddedKafka kafka;
    private static Path dir;

    @BeforeAll
    static void broker() {
        kafka = SecureKafka.broker();
        dir = SecureKafka.dir();
    }

    private static KafkaSettings settings(String bootstrap, List<String> flags) throws ConfigException {
        List<String> args = new ArrayList<>(List.of("--kafka.bootstrap-servers=" + bootstrap, "--kafka.topics=m=sluice"));
        args.addAll(flags);
        return ConfigLoader.load(null, Map.of(), args).kafka();
    }

    private static void passes(String listener, List<String> flags) throws ConfigException {
        KafkaSettings kafkaSettings = settings(kafka.bootstrapServers(listener), flags);
        assertThatCode(() -> BrokerCheck.check(kafkaSettings, 30_000)).doesNotThrowAnyException();
    }

    /** The check fails within a few seconds with one line equal to / starting with {@code expected}. */
    private static String fails(String bootstrap, List<String> flags) throws ConfigException {
        KafkaSettings kafkaSettings = settings(bootstrap, flags);
        long t0 = System.nanoTime();
        ConfigException e = assertThrows(ConfigException.class,
                () -> BrokerCheck.check(kafkaSettings, 30_000));
        assertThat((System.nanoTime() - t0) / 1_000_000).as("at once, not a client timeout").isLessThan(10_000);
        assertThat(e.getMessage()).doesNotContain("\n");
        return e.getMessage();
    }

    @Test
    void everyProtocolAndMechanismPasses() throws ConfigException {
        passes("SSL", clientFlags("SSL", null));
        for (String mechanism : List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN")) {
            passes("SASL_SSL", clientFlags("SASL_SSL", mechanism));
            passes("SASL_PLAINTEXT", clientFlags("SASL_PLAINTEXT", mechanism));
        }
        KafkaSettings plaintext = settings(kafka.bootstrapServers(), List.of());
        assertThatCode(() -> BrokerCheck.check(plaintext, 30_000)).doesNotThrowAnyException();
    }

    @Test
    void tlsAgainstAPlaintextListenerSaysTheBrokerDidNotSpeakTls() throws ConfigException {
        String address = kafka.bootstrapServers();
        assertThat(fails(address, clientFlags("SASL_SSL", "SCRAM-SHA-256")))
                .startsWith("kafka.security.protocol=SASL_SSL: the broker at " + address + " did not speak TLS on this listener (")
                .endsWith("); check kafka.security.protocol (is it a PLAINTEXT or SASL_PLAINTEXT listener?)");
        assertThat(fails(kafka.bootstrapServers("SASL_PLAINTEXT"), clientFlags("SSL", null)))
                .contains("did not speak TLS on this listener");
    }

    @Test
    void plaintextAgainstATlsListenerSaysItSpeaksTls() throws ConfigException {
        String address = kafka.bootstrapServers("SSL");
        assertThat(fails(address, List.of())).isEqualTo("kafka.security.protocol=PLAINTEXT: the broker at " + address
                + " speaks TLS on this listener; check kafka.security.protocol (SSL or SASL_SSL, with a truststore)");
        String saslSsl = kafka.bootstrapServers("SASL_SSL");
        assertThat(fails(saslSsl, clientFlags("SASL_PLAINTEXT", "PLAIN"))).isEqualTo("kafka.security.protocol=SASL_PLAINTEXT: "
                + "the broker at " + saslSsl + " speaks TLS on this listener; check kafka.security.protocol (SSL or SASL_SSL, with a truststore)");
    }

    @Test
    void saslAgainstAListenerWithoutSaslAndTheReverse() throws ConfigException {
        String ssl = kafka.bootstrapServers("SSL");
        assertThat(fails(ssl, clientFlags("SASL_SSL", "SCRAM-SHA-256"))).isEqualTo("kafka.security.protocol=SASL_SSL: "
                + "the broker at " + ssl + " does not use SASL on this listener; check kafka.security.protocol (SSL?)");
        String saslSsl = kafka.bootstrapServers("SASL_SSL");
        assertThat(fails(saslSsl, clientFlags("SSL", null))).isEqualTo("kafka.security.protocol=SSL: the broker at " + saslSsl
                + " expects SASL authentication on this listener (mechanisms [PLAIN, SCRAM-SHA-256, SCRAM-SHA-512]); "
                + "check kafka.security.protocol (SASL_SSL?), kafka.sasl.mechanism and kafka.sasl.jaas.config");
        String saslPlain = kafka.bootstrapServers("SASL_PLAINTEXT");
        assertThat(fails(saslPlain, List.of())).startsWith("kafka.security.protocol=PLAINTEXT: the broker at " + saslPlain
                + " expects SASL authentication on this listener");
    }

    @Test
    void aWrongPasswordSaysSaslAuthenticationFailedForTheUser() throws ConfigException {
        String address = kafka.bootstrapServers("SASL_SSL");
        for (String mechanism : List.of("SCRAM-SHA-256", "SCRAM-SHA-512")) {
            assertThat(fails(address, with(clientFlags("SASL_SSL", mechanism), "--kafka.sasl.jaas.config=" + jaas(mechanism, "wrong"))))
                    .isEqualTo("SASL authentication failed for user " + SecureKafka.SCRAM_USER + " (" + mechanism + ") at " + address
                            + ": Authentication failed during authentication due to invalid credentials with SASL mechanism "
                            + mechanism);
        }
        String plain = kafka.bootstrapServers("SASL_PLAINTEXT");
        assertThat(fails(plain, with(clientFlags("SASL_PLAINTEXT", "PLAIN"), "--kafka.sasl.jaas.config=" + jaas("PLAIN", "wrong"))))
                .isEqualTo("SASL authentication failed for user " + SecureKafka.PLAIN_USER + " (PLAIN) at " + plain
                        + ": Authentication failed: Invalid username or password");
    }

    @Test
    void aMechanismTheListenerDoesNotOfferIsNamed() throws ConfigException {
        String address = kafka.bootstrapServers("SASL_SSL");
        assertThat(fails(address, with(clientFlags("SASL_SSL", "SCRAM-SHA-256"), "--kafka.sasl.mechanism=OAUTHBEARER")))
                .isEqualTo("kafka.sasl.mechanism=OAUTHBEARER: the broker at " + address
                        + " does not enable it on this listener; it offers [PLAIN, SCRAM-SHA-256, SCRAM-SHA-512]");
    }

    @Test
    void storeFilesAreCheckedBeforeAnyClient() throws Exception {
        String address = kafka.bootstrapServers("SSL");
        assertThat(fails(address, with(clientFlags("SSL", null), "--kafka.ssl.truststore.location=/nonexistent.jks")))
                .isEqualTo("kafka.ssl.truststore.location: /nonexistent.jks cannot be read (no such file)");
        assertThat(fails(address, with(clientFlags("SSL", null), "--kafka.ssl.truststore.password=wrong")))
                .isEqualTo("kafka.ssl.truststore.password: it does not open " + dir.resolve("truststore.p12") + " (wrong password)");
        Path notAStore = Files.writeString(dir.resolve("not-a-store.jks"), "hello");
        assertThat(fails(address, with(clientFlags("SSL", null), "--kafka.ssl.truststore.location=" + notAStore)))
                .startsWith("kafka.ssl.truststore.location: " + notAStore + " is not a JKS store (");
        assertThat(fails(address, with(clientFlags("SSL", null), "--kafka.ssl.keystore.location=" + dir.resolve("server.p12"),
                "--kafka.ssl.keystore.password=" + SecureKafka.STORE_PASSWORD, "--kafka.ssl.key.password=wrong")))
                .startsWith("kafka.ssl.key.password: it does not open the key in " + dir.resolve("server.p12"));
    }

    @Test
    void aCertificateTheClientDoesNotTrustIsOneLine() throws ConfigException {
        String address = kafka.bootstrapServers("SSL");
        assertThat(fails(address, List.of("--kafka.security.protocol=SSL"))) // the JDK's CAs do not know the test's
                .startsWith("kafka.ssl.truststore.location: the broker at " + address
                        + " presented a certificate the client does not accept: ")
                .contains("unable to find valid certification path");
    }

    @Test
    void aMissingJaasConfigurationIsOneLine() throws ConfigException {
        List<String> flags = new ArrayList<>(clientFlags("SASL_PLAINTEXT", "PLAIN"));
        flags.removeIf(f -> f.startsWith("--kafka.sasl.jaas.config="));
        assertThat(fails(kafka.bootstrapServers("SASL_PLAINTEXT"), flags))
                .isEqualTo("kafka.sasl.jaas.config: PLAIN needs username=\"...\" and password=\"...\"");
    }

    /**
     * A listener that asks for client certificates (a JDK TLS server with the test's server keystore,
     * needing a client certificate) and a client without a keystore: one line naming the keystore.
     */
    @Test
    void aListenerThatWantsAClientCertificateNamesTheKeystore() throws Exception {
        char[] password = SecureKafka.STORE_PASSWORD.toCharArray();
        KeyStore keystore = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(dir.resolve("server.p12"))) {
            keystore.load(in, password);
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance("PKIX");
        keys.init(keystore, password);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(keys.getKeyManagers(), null, null);
        try (SSLServerSocket server = (SSLServerSocket) tls.getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            server.setNeedClientAuth(true);
            Thread answering = Thread.ofVirtual().start(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        s.getInputStream().read(); // the handshake, then the client's first request
                    } catch (IOException handshakeFailedOrClosed) {
                        // next connection
                    }
                }
            });
            String address = "127.0.0.1:" + server.getLocalPort();
            assertThat(fails(address, clientFlags("SSL", null))).startsWith("the broker at " + address
                    + " refused the TLS session (Received fatal alert: ").contains("check kafka.ssl.keystore.location");
            server.close();
            answering.join();
        }
    }

    @Test
    void anUnknownHostIsOneLine() throws ConfigException {
        assertThat(fails("no-such-host.invalid:9093", clientFlags("SSL", null)))
                .isEqualTo("kafka.bootstrap-servers: no broker reachable: no-such-host.invalid:9093 (unknown host)");
    }
}
