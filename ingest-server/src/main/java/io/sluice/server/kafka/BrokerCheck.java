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
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Checks at start that the brokers answer, so a wrong address is one line at start and not a
 * consumer retrying forever: first a TCP connection to each bootstrap address (a precise error:
 * refused, unknown host, timeout), then an AdminClient {@code describeCluster} with the configured
 * {@code kafka.*} client properties (security, SASL, TLS).
 */
public final class BrokerCheck {
    public static final long DEFAULT_TIMEOUT_MS = 10_000;

    private BrokerCheck() {
    }

    /** Throws a one-line {@link ConfigException} when no broker of {@code kafka} answers within {@code timeoutMs}. */
    public static void check(KafkaSettings kafka, long timeoutMs) throws ConfigException {
        List<String> failures = new ArrayList<>();
        boolean anyConnected = false;
        for (String address : kafka.bootstrapServers().split(",")) {
            String failure = connect(address, (int) Math.min(timeoutMs, 5_000));
            if (failure == null) {
                anyConnected = true;
                break;
            }
            failures.add(address + " (" + failure + ")");
        }
        if (!anyConnected) {
            throw new ConfigException("kafka.bootstrap-servers: no broker reachable: " + String.join(", ", failures));
        }
        describeCluster(kafka, timeoutMs);
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
        try (Admin admin = Admin.create(properties)) {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeoutMs)).nodes()
                    .get(timeoutMs + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new ConfigException("kafka.bootstrap-servers: " + kafka.bootstrapServers()
                    + " did not answer as a Kafka cluster: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new ConfigException("kafka.bootstrap-servers: " + kafka.bootstrapServers()
                    + " did not describe its cluster within " + timeoutMs + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigException("interrupted while checking kafka.bootstrap-servers");
        } catch (org.apache.kafka.common.KafkaException e) {
            throw new ConfigException("kafka client configuration rejected: " + e.getMessage());
        }
    }
}
