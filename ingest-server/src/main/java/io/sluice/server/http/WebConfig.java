package io.sluice.server.http;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The web configuration ({@code http.web-config-file}), in the format of Prometheus'
 * {@code --web.config.file}: TLS, optionally with client certificates, and basic-auth users with
 * bcrypt hashes. Two Sluice keys are added: {@code bearer_token_sha256} and {@code health_without_auth}.
 *
 * <pre>{@code
 * tls_server_config:
 *   cert_file: server.crt            # PEM; relative paths are relative to this file
 *   key_file: server.key             # PEM, PKCS#8 (openssl's default)
 *   client_auth_type: RequireAndVerifyClientCert   # or NoClientCert (default), VerifyClientCertIfGiven
 *   client_ca_file: ca.crt           # required by the two verifying types
 * basic_auth_users:
 *   alice: $2y$10$...                # bcrypt hash (htpasswd -nBC 10 "" | tr -d ':\n')
 * bearer_token_sha256:               # Authorization: Bearer <token> for tokens with these SHA-256 (hex)
 *   - 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08   # printf %s "$TOKEN" | sha256sum
 * health_without_auth: true          # /-/healthy and /-/ready answer without credentials (default false)
 * }</pre>
 * An unknown key, a missing file or a bad certificate is an {@link IOException} with one line naming it.
 */
final class WebConfig {
    static final WebConfig NONE = new WebConfig(null, Map.of(), Set.of(), false, List.of());
    private static final Set<String> TOP_KEYS = Set.of("tls_server_config", "basic_auth_users", "bearer_token_sha256",
            "health_without_auth");
    private static final Set<String> TLS_KEYS = Set.of("cert_file", "key_file", "client_auth_type", "client_ca_file");

    private final SslContext ssl;
    private final Map<String, String> users;
    /** SHA-256 digests (lower-case hex) of the accepted bearer tokens. */
    private final Set<String> tokenDigests;
    private final boolean healthWithoutAuth;
    /** The files this configuration was read from (itself, certificates, keys), for noticing changes. */
    private final List<Path> files;

    private WebConfig(SslContext ssl, Map<String, String> users, Set<String> tokenDigests, boolean healthWithoutAuth,
                      List<Path> files) {
        this.ssl = ssl;
        this.users = Map.copyOf(users);
        this.tokenDigests = Set.copyOf(tokenDigests);
        this.healthWithoutAuth = healthWithoutAuth;
        this.files = List.copyOf(files);
    }

    /** Null when connections are plain HTTP. */
    SslContext ssl() {
        return ssl;
    }

    /** User name to bcrypt hash; empty when no authentication is required. */
    Map<String, String> users() {
        return users;
    }

    /** SHA-256 digests (lower-case hex) of the accepted bearer tokens; empty when none. */
    Set<String> tokenDigests() {
        return tokenDigests;
    }

    /** Whether a request for {@code path} needs credentials. */
    boolean requiresAuth(String path) {
        if (users.isEmpty() && tokenDigests.isEmpty()) {
            return false;
        }
        return !(healthWithoutAuth && (path.equals(HealthRoutes.HEALTHY_PATH) || path.equals(HealthRoutes.READY_PATH)));
    }

    List<Path> files() {
        return files;
    }

    /** Reads {@code file}. */
    static WebConfig load(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IOException("cannot read the web configuration " + file + ": " + e.getMessage(), e);
        }
        Object root;
        try {
            root = new Load(LoadSettings.builder().build()).loadFromString(text);
        } catch (RuntimeException e) {
            throw new IOException("web configuration " + file + " is not valid YAML: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
        Map<String, Object> top = map(root == null ? Map.of() : root, file, "the file");
        unknownKeys(top, TOP_KEYS, file, "");
        List<Path> files = new ArrayList<>(List.of(file));
        SslContext ssl = null;
        if (top.get("tls_server_config") != null) {
            ssl = tls(map(top.get("tls_server_config"), file, "tls_server_config"), file, files);
        }
        Map<String, String> users = new LinkedHashMap<>();
        if (top.get("basic_auth_users") != null) {
            for (Map.Entry<String, Object> e : map(top.get("basic_auth_users"), file, "basic_auth_users").entrySet()) {
                String hash = e.getValue() == null ? "" : e.getValue().toString();
                if (!hash.matches("\\$2[aby]?\\$\\d\\d\\$[./A-Za-z0-9]{53}")) {
                    throw new IOException("web configuration " + file + ": basic_auth_users." + e.getKey()
                            + " is not a bcrypt hash ($2y$10$... as htpasswd -B writes it)");
                }
                users.put(e.getKey(), hash);
            }
        }
        Set<String> tokens = new java.util.HashSet<>();
        if (top.get("bearer_token_sha256") != null) {
            if (!(top.get("bearer_token_sha256") instanceof List<?> list)) {
                throw new IOException("web configuration " + file + ": bearer_token_sha256 is not a list");
            }
            for (Object digest : list) {
                String hex = digest == null ? "" : digest.toString().strip().toLowerCase(java.util.Locale.ROOT);
                if (!hex.matches("[0-9a-f]{64}")) {
                    throw new IOException("web configuration " + file + ": bearer_token_sha256 has an entry that is not a "
                            + "SHA-256 in hex (64 digits): " + digest);
                }
                tokens.add(hex);
            }
        }
        Object health = top.get("health_without_auth");
        if (health != null && !(health instanceof Boolean)) {
            throw new IOException("web configuration " + file + ": health_without_auth is not true or false");
        }
        return new WebConfig(ssl, users, tokens, Boolean.TRUE.equals(health), files);
    }

    private static SslContext tls(Map<String, Object> tls, Path file, List<Path> files) throws IOException {
        unknownKeys(tls, TLS_KEYS, file, "tls_server_config.");
        Path cert = path(tls, "cert_file", file, true);
        Path key = path(tls, "key_file", file, true);
        Path ca = path(tls, "client_ca_file", file, false);
        String type = tls.get("client_auth_type") == null ? "NoClientCert" : tls.get("client_auth_type").toString();
        ClientAuth clientAuth = switch (type) {
            case "NoClientCert" -> ClientAuth.NONE;
            case "VerifyClientCertIfGiven" -> ClientAuth.OPTIONAL;
            case "RequireAndVerifyClientCert" -> ClientAuth.REQUIRE;
            default -> throw new IOException("web configuration " + file + ": tls_server_config.client_auth_type "
                    + type + " is not supported (NoClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert)");
        };
        if (clientAuth != ClientAuth.NONE && ca == null) {
            throw new IOException("web configuration " + file + ": client_auth_type " + type + " needs tls_server_config.client_ca_file");
        }
        files.add(cert);
        files.add(key);
        try {
            SslContextBuilder builder = SslContextBuilder.forServer(cert.toFile(), key.toFile()).clientAuth(clientAuth);
            if (ca != null) {
                files.add(ca);
                builder.trustManager(ca.toFile());
            }
            return builder.build();
        } catch (IOException | RuntimeException e) {
            Throwable cause = e;
            while (cause.getCause() != null && cause.getCause() != cause) {
                cause = cause.getCause();
            }
            throw new IOException("web configuration " + file + ": cannot use the TLS certificate " + cert + " / key " + key
                    + (ca != null ? " / client CA " + ca : "") + ": " + cause.getMessage(), e);
        }
    }

    private static Path path(Map<String, Object> tls, String name, Path file, boolean required) throws IOException {
        Object value = tls.get(name);
        if (value == null || value.toString().isBlank()) {
            if (required) {
                throw new IOException("web configuration " + file + ": tls_server_config." + name + " is missing");
            }
            return null;
        }
        Path dir = file.toAbsolutePath().getParent();
        Path path = dir.resolve(value.toString());
        if (!Files.isReadable(path)) {
            throw new IOException("web configuration " + file + ": tls_server_config." + name + " " + path + " cannot be read");
        }
        return path;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value, Path file, String what) throws IOException {
        if (!(value instanceof Map<?, ?> m)) {
            throw new IOException("web configuration " + file + ": " + what + " is not a map");
        }
        for (Object k : m.keySet()) {
            if (!(k instanceof String)) {
                throw new IOException("web configuration " + file + ": " + what + " has a key that is not a string: " + k);
            }
        }
        return (Map<String, Object>) m;
    }

    private static void unknownKeys(Map<String, Object> map, Set<String> known, Path file, String prefix) throws IOException {
        for (String k : map.keySet()) {
            if (!known.contains(k)) {
                throw new IOException("web configuration " + file + ": unknown key " + prefix + k + " (known: "
                        + String.join(", ", new java.util.TreeSet<>(known)) + ")");
            }
        }
    }
}
