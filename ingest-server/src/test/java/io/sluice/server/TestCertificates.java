package io.sluice.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates made for a test with the real openssl: a CA ({@code ca.crt}, {@code ca.key}), a server
 * certificate for 127.0.0.1 ({@code server.crt}, {@code server.key}) and a client certificate
 * ({@code client.crt}, {@code client.key}), both signed by the CA; keys in PKCS#8 PEM.
 */
public final class TestCertificates {
    private TestCertificates() {
    }

    public static void make(Path dir) throws Exception {
        Files.writeString(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1\n");
        run(dir, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
                "-days", "2", "-subj", "/CN=sluice-test-ca");
        for (String name : List.of("server", "client")) {
            run(dir, "openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
                    "-subj", "/CN=" + (name.equals("server") ? "127.0.0.1" : "sluice-test-client"));
            List<String> sign = new ArrayList<>(List.of("openssl", "x509", "-req", "-in", name + ".csr", "-CA", "ca.crt",
                    "-CAkey", "ca.key", "-CAcreateserial", "-out", name + ".crt", "-days", "2"));
            if (name.equals("server")) {
                sign.addAll(List.of("-extfile", "server.ext"));
            }
            run(dir, sign.toArray(String[]::new));
        }
    }

    /**
     * {@link #make} and, from its files, the Java stores a Kafka broker and its clients use, all with
     * {@code password}: {@code server.p12} (the server's key and certificate, openssl) and
     * {@code truststore.p12} (the CA, JDK keytool).
     */
    public static void makeStores(Path dir, String password) throws Exception {
        make(dir);
        run(dir, "openssl", "pkcs12", "-export", "-in", "server.crt", "-inkey", "server.key", "-name", "server",
                "-out", "server.p12", "-passout", "pass:" + password);
        run(dir, Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-importcert", "-noprompt",
                "-alias", "ca", "-file", "ca.crt", "-keystore", "truststore.p12", "-storetype", "PKCS12", "-storepass", password);
    }

    /** Runs {@code cmd} in {@code dir}; fails the test unless it exits 0. */
    public static void run(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(String.join(" ", cmd) + ": " + out).isZero();
    }
}
