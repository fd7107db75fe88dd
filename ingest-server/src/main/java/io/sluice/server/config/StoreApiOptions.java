package io.sluice.server.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The Thanos StoreAPI gRPC server's settings ({@code store.*} keys).
 *
 * @param host            address to bind ({@code store.grpc.host})
 * @param port            port, 0 for a free one, {@link #OFF} for no server ({@code store.grpc.port})
 * @param externalLabels  labels added to every served series and advertised by Info, sorted by name
 *                        ({@code store.external-labels})
 * @param maxMessageBytes largest request accepted ({@code store.grpc.max-message-size})
 * @param tlsCertFile     PEM certificate chain for TLS, or null for plaintext
 * @param tlsKeyFile      PEM private key for TLS, or null for plaintext
 */
public record StoreApiOptions(String host, int port, Map<String, String> externalLabels, int maxMessageBytes,
                              Path tlsCertFile, Path tlsKeyFile) {
    /** {@link #port()} when the server is off. */
    public static final int OFF = -1;
    /** The default of {@code store.grpc.max-message-size}. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 16 << 20;
    public static final StoreApiOptions DISABLED = new StoreApiOptions("0.0.0.0", OFF, Map.of(), DEFAULT_MAX_MESSAGE_BYTES, null, null);

    public StoreApiOptions {
        Objects.requireNonNull(host, "host");
        externalLabels = java.util.Collections.unmodifiableMap(new TreeMap<>(externalLabels));
        if (port < OFF || port > 65_535 || maxMessageBytes < 1 || (tlsCertFile == null) != (tlsKeyFile == null)) {
            throw new IllegalArgumentException("bad StoreAPI options: port " + port + ", max message " + maxMessageBytes
                    + ", TLS " + tlsCertFile + " / " + tlsKeyFile);
        }
    }

    /** Whether the server runs at all. */
    public boolean enabled() {
        return port != OFF;
    }

    /** These options listening on {@code newPort} (tests: 0 for a free port). */
    public StoreApiOptions withPort(int newPort) {
        return new StoreApiOptions(host, newPort, externalLabels, maxMessageBytes, tlsCertFile, tlsKeyFile);
    }

    /** These options with other external labels. */
    public StoreApiOptions withExternalLabels(Map<String, String> labels) {
        return new StoreApiOptions(host, port, labels, maxMessageBytes, tlsCertFile, tlsKeyFile);
    }
}
