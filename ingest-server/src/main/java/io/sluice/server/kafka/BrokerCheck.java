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
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Checks at start that the brokers answer, so a wrong address is one line at start and not a
 * consumer retrying forever: first a TCP connection to each bootstrap address (a precise error:
 * refused, unknown host, timeout); then that the truststore and keystore files can be read; then
 * whether the listener speaks what {@code kafka.security.protocol} says (a TLS handshake with the
 * first reachable broker: SSL/SASL_SSL against a plaintext listener, or PLAINTEXT/SASL_PLAINTEXT
 * against a TLS one, is one line at once instead of a timeout after a dozen client warnings); then
 * the client properties, by creating the AdminClient (a bad SASL setting: one line with the root
 * cause, not "Failed to create new KafkaAdminClient"); then {@code describeCluster}.
 */
public final class BrokerCheck {
    public static final long DEFAULT_TIMEOUT_MS = 10_000;

    private BrokerCheck() {
    }

    /** Throws a one-line {@link ConfigException} when no broker of {@code kafka} answers within {@code timeoutMs}. */
    public static void check(KafkaSettings kafka, long timeoutMs) throws ConfigException {
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
        describeCluster(kafka, timeoutMs, reachable);
    }

    /**
     * Throws when {@code address} does not speak what {@code protocol} says: a TLS handshake (trusting
     * any certificate: this only asks whether the listener speaks TLS; the client checks the certificate)
     * fails for SSL/SASL_SSL, or succeeds for PLAINTEXT/SASL_PLAINTEXT.
     */
    static void checkListenerProtocol(String address, String protocol, int timeoutMs) throws ConfigException {
        boolean wantsTls = protocol.endsWith("SSL");
        String tlsFailure = tlsHandshake(address, timeoutMs);
        if (wantsTls && tlsFailure != null) {
            throw new ConfigException("kafka.security.protocol=" + protocol + " but the broker at " + address
                    + " does not speak TLS (" + tlsFailure + "): is it a PLAINTEXT or SASL_PLAINTEXT listener?");
        }
        if (!wantsTls && tlsFailure == null) {
            throw new ConfigException("kafka.security.protocol=" + protocol + " but the broker at " + address
                    + " speaks TLS: set kafka.security.protocol=SSL (or SASL_SSL) and a truststore");
        }
    }

    /** Null if a TLS handshake with {@code address} completes, else why not. */
    private static String tlsHandshake(String address, int timeoutMs) {
        int colon = address.lastIndexOf(':');
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new TrustAnyCertificate()}, null);
            try (Socket plain = new Socket()) {
                plain.connect(new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))), timeoutMs);
                plain.setSoTimeout(timeoutMs);
                try (SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, address.substring(0, colon),
                        plain.getPort(), false)) {
                    tls.startHandshake();
                    return null;
                }
            }
        } catch (IOException | java.security.GeneralSecurityException e) {
            return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        }
    }

    /** For {@link #tlsHandshake} only: whether the peer speaks TLS, not whom to trust. */
    private static final class TrustAnyCertificate implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
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

    private static void describeCluster(KafkaSettings kafka, long timeoutMs, String reachable) throws ConfigException {
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
        for (String key : List.of("ssl.truststore.location", "ssl.keystore.location")) {
            Object location = properties.get(key);
            if (location != null && !location.toString().isBlank() && !java.nio.file.Files.isReadable(java.nio.file.Path.of(location.toString()))) {
                // Checked here: Kafka's client would log the missing file with a stack trace before failing.
                throw new ConfigException("kafka." + key + ": " + location + " cannot be read ("
                        + (java.nio.file.Files.exists(java.nio.file.Path.of(location.toString())) ? "no permission" : "no such file") + ")");
            }
        }
        Object protocol = properties.getOrDefault(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT");
        checkListenerProtocol(reachable, protocol.toString().toUpperCase(java.util.Locale.ROOT), (int) Math.min(timeoutMs, 5_000));
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
