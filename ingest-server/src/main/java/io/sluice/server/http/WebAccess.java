package io.sluice.server.http;

import at.favre.lib.crypto.bcrypt.BCrypt;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The current {@link WebConfig}, reloaded when its file (or a certificate, key or CA file it names)
 * changes or on demand (SIGHUP), and the credentials check: a bearer token by its SHA-256 (tokens are random, so a fast hash
 * suffices), a basic-auth password by bcrypt. A reload that fails keeps the previous configuration and logs
 * one line. bcrypt is slow on purpose (tens of ms at cost 10), so a verified user and password is
 * remembered (by a SHA-256 of the password, never the password) until the next reload; the first
 * check of new credentials runs on a worker thread under a query permit, never on the event loop.
 */
final class WebAccess {
    private static final Logger LOG = LoggerFactory.getLogger(WebAccess.class);
    private static final int MAX_REMEMBERED = 10_000;

    /** The outcome of {@link #check}. */
    enum Check { OK, DENIED, VERIFY }

    private final Path file;
    private volatile WebConfig current;
    private volatile String fingerprint;
    private final AtomicBoolean reloading = new AtomicBoolean();
    private final Map<String, Boolean> verified = new ConcurrentHashMap<>();

    private WebAccess(Path file, WebConfig config) {
        this.file = file;
        this.current = config;
        this.fingerprint = file == null ? "" : fingerprint(config);
    }

    /** No TLS, no authentication. */
    static WebAccess none() {
        return new WebAccess(null, WebConfig.NONE);
    }

    /** Reads {@code file}; null means none. */
    static WebAccess open(Path file) throws IOException {
        return file == null ? none() : new WebAccess(file, WebConfig.load(file));
    }

    WebConfig current() {
        return current;
    }

    /** Reloads if a file changed since the last load; one log line either way. At most one at a time; any thread. */
    void reloadIfChanged() {
        reload(false, "changed");
    }

    /** Reloads whether or not a file changed (SIGHUP); one log line either way. Any thread; waits for a running reload. */
    void reloadNow(String why) {
        if (file == null) {
            LOG.info("{}: no web configuration to reload (http.web-config-file is not set)", why);
            return;
        }
        while (!reload(true, why)) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // the once-a-second check runs: reload after it
        }
    }

    /** False if another reload runs. */
    private boolean reload(boolean always, String why) {
        if (file == null || !reloading.compareAndSet(false, true)) {
            return false;
        }
        try {
            String now = fingerprint(current);
            if (!always && now.equals(fingerprint)) {
                return true;
            }
            fingerprint = now;
            try {
                WebConfig next = WebConfig.load(file);
                fingerprint = fingerprint(next);
                current = next;
                verified.clear();
                LOG.info("reloaded the web configuration {} ({}): TLS {}, {} basic-auth user(s), {} bearer token(s)", file, why,
                        next.ssl() != null ? "on" : "off", next.users().size(), next.tokenDigests().size());
            } catch (IOException e) {
                LOG.error("{}; keeping the previous web configuration", e.getMessage());
            }
            return true;
        } finally {
            reloading.set(false);
        }
    }

    /** OK or DENIED when known at once; VERIFY when {@link #verify} must run bcrypt first. */
    Check check(WebConfig config, String path, HttpRequest request) {
        if (!config.requiresAuth(path)) {
            return Check.OK;
        }
        String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String digest = HexFormat.of().formatHex(sha256(header.substring(7).strip()));
            return config.tokenDigests().contains(digest) ? Check.OK : Check.DENIED;
        }
        Credentials c = Credentials.of(request);
        if (c == null || !config.users().containsKey(c.user)) {
            return Check.DENIED;
        }
        return Boolean.TRUE.equals(verified.get(key(c, config.users().get(c.user)))) ? Check.OK : Check.VERIFY;
    }

    /** Runs bcrypt for the request's credentials (slow); remembers a success. */
    boolean verify(WebConfig config, HttpRequest request) {
        Credentials c = Credentials.of(request);
        String hash = c == null ? null : config.users().get(c.user);
        if (hash == null) {
            return false;
        }
        boolean ok = BCrypt.verifyer().verify(c.password.getBytes(StandardCharsets.UTF_8),
                hash.getBytes(StandardCharsets.US_ASCII)).verified;
        if (ok) {
            if (verified.size() >= MAX_REMEMBERED) {
                verified.clear();
            }
            verified.put(key(c, hash), true);
        }
        return ok;
    }

    private static String key(Credentials c, String hash) {
        return c.user + '\0' + hash + '\0' + HexFormat.of().formatHex(sha256(c.password));
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static String fingerprint(WebConfig config) {
        StringBuilder f = new StringBuilder();
        for (Path p : config.files()) {
            try {
                f.append(p).append(':').append(Files.getLastModifiedTime(p).toMillis()).append(':').append(Files.size(p)).append(';');
            } catch (IOException e) {
                f.append(p).append(":missing;");
            }
        }
        return f.toString();
    }

    private record Credentials(String user, String password) {
        static Credentials of(HttpRequest request) {
            String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
            if (header == null || !header.regionMatches(true, 0, "Basic ", 0, 6)) {
                return null;
            }
            String decoded;
            try {
                decoded = new String(Base64.getDecoder().decode(header.substring(6).strip()), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return null;
            }
            int colon = decoded.indexOf(':');
            return colon < 0 ? null : new Credentials(decoded.substring(0, colon), decoded.substring(colon + 1));
        }
    }
}
