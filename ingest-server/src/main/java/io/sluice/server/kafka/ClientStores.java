package io.sluice.server.kafka;

import io.sluice.server.config.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The truststore and keystore the {@code kafka.ssl.*} properties name, opened as the Kafka clients
 * would open them, before any client is created: a missing or unreadable file, a wrong store or key
 * password, a file that is not a store is one line naming the property (the clients would log a stack
 * trace and fail with "Failed to create new KafkaAdminClient"). The result is the TLS context the
 * {@link ListenerProbe} checks the broker's certificate with.
 *
 * <p>Store types: JKS (the clients' default; the JDK also reads PKCS12 files as JKS), PKCS12 and PEM
 * files. Certificates given inline ({@code ssl.truststore.certificates}) are not checked here.
 */
final class ClientStores {
    private ClientStores() {
    }

    /**
     * The TLS context of {@code properties}' stores (the JDK's default trust when no truststore is set).
     *
     * @throws ConfigException naming the property when a store cannot be opened
     */
    static SSLContext tlsContext(Map<String, String> properties) throws ConfigException {
        TrustManager[] trust = null;
        KeyStore truststore = open(properties, "truststore");
        if (truststore != null) {
            trust = trustManagers(truststore);
        } else if (properties.containsKey("ssl.truststore.certificates")) {
            trust = new TrustManager[] {new ListenerProbe.TrustAnyCertificate()}; // inline PEM: left to the clients
        }
        KeyManager[] keys = null;
        KeyStore keystore = open(properties, "keystore");
        if (keystore != null) {
            String keyPassword = properties.getOrDefault("ssl.key.password", properties.get("ssl.keystore.password"));
            try {
                KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                factory.init(keystore, keyPassword == null ? new char[0] : keyPassword.toCharArray());
                keys = factory.getKeyManagers();
            } catch (UnrecoverableKeyException e) {
                throw new ConfigException("kafka.ssl.key.password: it does not open the key in "
                        + properties.get("ssl.keystore.location") + " (" + BrokerCheck.rootCause(e) + ")");
            } catch (GeneralSecurityException e) {
                throw new ConfigException("kafka.ssl.keystore.location: " + properties.get("ssl.keystore.location")
                        + " holds no usable key: " + BrokerCheck.rootCause(e));
            }
        }
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys, trust, null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new ConfigException("kafka.ssl.*: no TLS context: " + BrokerCheck.rootCause(e));
        }
    }

    /** The {@code ssl.<kind>.location} store opened with its password and type, or null when none is set. */
    private static KeyStore open(Map<String, String> properties, String kind) throws ConfigException {
        String property = "ssl." + kind + ".location";
        String location = properties.get(property);
        if (location == null || location.isBlank()) {
            return null;
        }
        Path file = Path.of(location);
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new ConfigException("kafka." + property + ": " + location + " cannot be read ("
                    + (!Files.exists(file) ? "no such file" : Files.isDirectory(file) ? "a directory" : "no permission") + ")");
        }
        String type = properties.getOrDefault("ssl." + kind + ".type", "JKS").toUpperCase(Locale.ROOT);
        String password = properties.get("ssl." + kind + ".password");
        try (InputStream in = Files.newInputStream(file)) {
            if (type.equals("PEM")) {
                return pem(in, kind);
            }
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password == null ? null : password.toCharArray());
            return store;
        } catch (KeyStoreException e) {
            throw new ConfigException("kafka.ssl." + kind + ".type: " + type + " is not a store type this JVM reads");
        } catch (IOException e) {
            if (e.getCause() instanceof UnrecoverableKeyException) {
                throw new ConfigException("kafka.ssl." + kind + ".password: it does not open " + location
                        + (password == null ? " (no password set)" : " (wrong password)"));
            }
            throw new ConfigException("kafka." + property + ": " + location + " is not a " + type + " store ("
                    + BrokerCheck.rootCause(e) + ")");
        } catch (GeneralSecurityException e) {
            throw new ConfigException("kafka." + property + ": " + location + " cannot be opened: " + BrokerCheck.rootCause(e));
        }
    }

    /** The certificates of a PEM truststore; a PEM keystore's key is left to the clients (null). */
    private static KeyStore pem(InputStream in, String kind) throws GeneralSecurityException, IOException {
        if (!kind.equals("truststore")) {
            return null;
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        int i = 0;
        for (Certificate certificate : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
            store.setCertificateEntry("ca-" + i++, certificate);
        }
        if (i == 0) {
            throw new IOException("no certificate in it");
        }
        return store;
    }

    private static TrustManager[] trustManagers(KeyStore truststore) throws ConfigException {
        try {
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(truststore);
            return factory.getTrustManagers();
        } catch (GeneralSecurityException e) {
            throw new ConfigException("kafka.ssl.truststore.location: no trusted certificate in it: " + BrokerCheck.rootCause(e));
        }
    }
}
