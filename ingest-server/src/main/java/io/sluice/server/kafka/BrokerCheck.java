package io.sluice.server.kafka;

import io.sluice.server.config.ConfigException;
import io.sluice.server.config.KafkaSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;

/**
 * Checks at start that the brokers answer as configured, so a mistake is one line at start and not a
 * consumer retrying forever behind a dozen client warnings: first a TCP connection to each bootstrap
 * address (a precise error: refused, unknown host, timeout); then, for TLS, that the truststore and
 * keystore open with their passwords ({@link ClientStores}); then, with the first reachable broker,
 * whether its listener speaks TLS and SASL as {@code kafka.security.protocol} says, trusts each other's
 * certificates, offers the mechanism and accepts the user ({@link ListenerProbe}); then the client
 * properties, by creating the AdminClient (a bad SASL setting: one line with the root cause, not
 * "Failed to create new KafkaAdminClient"); then {@code describeCluster}. Every failure is a one-line
 * {@link ConfigException}; {@code sluice serve} prints it and exits 2.
 */
public final class BrokerCheck {
    public static final long DEFAULT_TIMEOUT_MS = 10_000;
    private static final List<String> PROTOCOLS = List.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");

    private BrokerCheck() {
    }

    /** Throws a one-line {@link ConfigException} when no broker of {@code kafka} answers within {@code timeoutMs}. */
    public static void check(KafkaSettings kafka, long timeoutMs) throws ConfigException {
        String protocol = kafka.clientProperties().getOrDefault(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT");
        if (!PROTOCOLS.contains(protocol.strip().toUpperCase(Locale.ROOT))) {
            throw new ConfigException("kafka.security.protocol: '" + protocol + "' is not one of " + String.join(", ", PROTOCOLS));
        }
        SSLContext tls = protocol.strip().toUpperCase(Locale.ROOT).endsWith("SSL") ? ClientStores.tlsContext(kafka.clientProperties()) : null;
        List<String> failures = new ArrayList<>();
        boolean anyConnected = false;
        String reachable = null;
        for (String address : kafka.bootstrapServers().split(",")) {
            String failure = connect(address, (int) Math.min(timeoutMs, 5_000));
            if (failure == null) {
                anyConnected = true;
                reachable = address.strip();
                break;
            }
            failures.add(address + " (" + failure + ")");
        }
        if (!anyConnected) {
            throw new ConfigException("kafka.bootstrap-servers: no broker reachable: " + String.join(", ", failures));
        }
        new ListenerProbe(reachable, kafka.clientProperties(), tls, (int) Math.min(timeoutMs, 5_000)).check();
        describeCluster(kafka, timeoutMs);
    }

    /** The deepest cause's message, with its type when that says more (NoSuchFileException: /x.jks). */
    static String rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? "" : root.getMessage();
        return root instanceof IOException || message.isEmpty() ? root.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message)
                : message;
    }

    /** Null if a TCP connection to {@code host:port} opens, else why not. */
    private static String connect(String address, int timeoutMs) {
        int colon = address.lastIndexOf(':');
        InetSocketAddress target = new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
        if (target.isUnresolved()) {
            return "unknown host";
        }
        try (Socket socket = new Socket()) {
            socket.connect(target, timeoutMs);
            return null;
        } catch (IOException e) {
            return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
    }

    private static void describeCluster(KafkaSettings kafka, long timeoutMs) throws ConfigException {
        Map<String, Object> properties = new HashMap<>();
        kafka.clientProperties().forEach((k, v) -> {
            if (AdminClientConfig.configNames().contains(k)) {
                properties.put(k, v);
            }
        });
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeoutMs);
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeoutMs);
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, "sluice-broker-check");
        Admin created;
        try {
            created = Admin.create(properties);
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new ConfigException("kafka client configuration rejected: " + rootCause(e));
        }
        try (Admin admin = created) {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeoutMs)).nodes()
                    .get(timeoutMs + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SaslAuthenticationException sasl) {
                throw new ConfigException("SASL authentication failed for user "
                        + ListenerProbe.jaasOptions(kafka.clientProperties().get("sasl.jaas.config")).getOrDefault("username", "?")
                        + ": " + sasl.getMessage());
            }
            if (e.getCause() instanceof SslAuthenticationException ssl) {
                throw new ConfigException("TLS with " + kafka.bootstrapServers() + " failed: " + rootCause(ssl));
            }
            throw new ConfigException("kafka.bootstrap-servers: " + kafka.bootstrapServers()
                    + " did not answer as a Kafka cluster: " + rootCause(e.getCause()));
        } catch (TimeoutException e) {
            throw new ConfigException("kafka.bootstrap-servers: " + kafka.bootstrapServers()
                    + " did not describe its cluster within " + timeoutMs + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigException("interrupted while checking kafka.bootstrap-servers");
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new ConfigException("kafka client configuration rejected: " + rootCause(e));
        }
    }
}
