package io.sluice.server.kafka;

import io.sluice.server.TestCertificates;
import io.sluice.tools.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The embedded broker of a test JVM with TLS and SASL listeners besides the plaintext one
 * ({@link EmbeddedKafka.Secure}), started on first use with certificates made by openssl and keytool,
 * a SCRAM user and a PLAIN user; stopped by a shutdown hook. {@link #clientFlags} are the
 * {@code --kafka.*} flags of a client that gets every setting right.
 */
public final class SecureKafka {
    public static final String STORE_PASSWORD = "store-secret";
    public static final String SCRAM_USER = "scram-user";
    public static final String SCRAM_PASSWORD = "scram-secret";
    public static final String PLAIN_USER = "plain-user";
    public static final String PLAIN_PASSWORD = "plain-secret";
    private static EmbeddedKafka broker; // guarded by SecureKafka.class
    private static Path dir;             // guarded by SecureKafka.class

    private SecureKafka() {
    }

    public static synchronized EmbeddedKafka broker() {
        if (broker == null) {
            try {
                dir = Files.createTempDirectory("sluice-test-secure-kafka");
                TestCertificates.makeStores(dir, STORE_PASSWORD);
                broker = EmbeddedKafka.start(dir.resolve("kafka"),
                        new EmbeddedKafka.Secure(dir.resolve("server.p12"), STORE_PASSWORD, Map.of(PLAIN_USER, PLAIN_PASSWORD)));
                broker.addScramUser(SCRAM_USER, SCRAM_PASSWORD);
                EmbeddedKafka started = broker;
                Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(started::close));
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the secure test broker: " + e.getMessage(), e);
            }
        }
        return broker;
    }

    /** Where the certificates and stores are: {@code truststore.p12}, {@code server.p12}, {@code ca.crt}... */
    public static synchronized Path dir() {
        broker();
        return dir;
    }

    /** The flags of a client of {@code listener} (SSL, SASL_SSL, SASL_PLAINTEXT) with the right settings. */
    public static List<String> clientFlags(String listener, String mechanism) {
        List<String> flags = new ArrayList<>(List.of("--kafka.security.protocol=" + listener));
        if (listener.endsWith("SSL")) {
            flags.add("--kafka.ssl.truststore.location=" + dir().resolve("truststore.p12"));
            flags.add("--kafka.ssl.truststore.password=" + STORE_PASSWORD);
        }
        if (listener.startsWith("SASL_")) {
            flags.add("--kafka.sasl.mechanism=" + mechanism);
            flags.add("--kafka.sasl.jaas.config=" + jaas(mechanism, mechanism.equals("PLAIN") ? PLAIN_PASSWORD : SCRAM_PASSWORD));
        }
        return flags;
    }

    /** {@code flags} with {@code more} in place of the flags of the same keys ({@code --key=}). */
    public static List<String> with(List<String> flags, String... more) {
        List<String> all = new ArrayList<>(flags);
        for (String flag : more) {
            String key = flag.substring(0, flag.indexOf('=') + 1);
            all.removeIf(f -> f.startsWith(key));
            all.add(flag);
        }
        return all;
    }

    /** The JAAS line of the test's user of {@code mechanism}, with {@code password}. */
    public static String jaas(String mechanism, String password) {
        return mechanism.equals("PLAIN")
                ? "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + PLAIN_USER
                        + "\" password=\"" + password + "\";"
                : "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + SCRAM_USER
                        + "\" password=\"" + password + "\";";
    }
}
