package io.sluice.server.kafka;

import io.sluice.server.config.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramSaslClientProvider;

/**
 * Asks one broker listener, over its own connection, what the Kafka clients would otherwise find out
 * through a dozen warnings and a timeout: whether it speaks TLS, whether the truststore trusts its
 * certificate, whether it expects SASL and with which mechanisms, and (for PLAIN and SCRAM) whether
 * the configured user and password authenticate. Each mismatch is a one-line {@link ConfigException}
 * naming the setting to check.
 *
 * <p>The SASL questions are the protocol's own first requests, written by hand (both are fixed-layout,
 * non-flexible versions every broker since 1.0 answers): SaslHandshake v1 (a SASL listener answers with
 * its mechanisms; any other listener with ILLEGAL_SASL_STATE) and SaslAuthenticate v1 carrying the
 * tokens of the JDK's SASL client (PLAIN) or Kafka's (SCRAM). Other mechanisms (GSSAPI, OAUTHBEARER)
 * are left to the clients.
 *
 * <p>Without TLS configured (PLAINTEXT, SASL_PLAINTEXT) no TLS handshake is tried: a TLS listener answers
 * the plaintext SaslHandshake with a TLS alert record, and that answer's first bytes say so. The JDK's
 * TLS stack (hundreds of classes and the crypto providers) then never loads in a plaintext deployment.
 */
final class ListenerProbe {
    private static final short SASL_HANDSHAKE = 17;
    private static final short SASL_AUTHENTICATE = 36;
    private static final short NONE = 0;
    private static final short UNSUPPORTED_SASL_MECHANISM = 33;
    private static final short ILLEGAL_SASL_STATE = 34;
    private static final Set<String> PROBED_MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");
    private static final Pattern JAAS_OPTION = Pattern.compile("(\\w+)\\s*=\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final String address;
    private final String protocol;
    private final Map<String, String> properties;
    private final SSLContext trusted; // null for PLAINTEXT / SASL_PLAINTEXT
    private final int timeoutMs;

    /**
     * @param properties the clients' {@code kafka.*} properties
     * @param trusted    the TLS context of the configured truststore and keystore; null without TLS
     */
    ListenerProbe(String address, Map<String, String> properties, SSLContext trusted, int timeoutMs) {
        this.address = address;
        this.protocol = properties.getOrDefault("security.protocol", "PLAINTEXT").strip().toUpperCase(Locale.ROOT);
        this.properties = properties;
        this.trusted = trusted;
        this.timeoutMs = timeoutMs;
    }

    /** Throws the first mismatch between the configuration and the listener at the address. */
    void check() throws ConfigException {
        boolean wantsTls = protocol.endsWith("SSL");
        if (wantsTls) {
            String anyTls = handshake(null);
            if (anyTls != null && isAlert(anyTls)) {
                throw refusedTls(anyTls); // it speaks TLS, but not with this client (no client certificate, old TLS)
            }
            if (anyTls != null) {
                throw new ConfigException("kafka.security.protocol=" + protocol + ": the broker at " + address
                        + " did not speak TLS on this listener (" + anyTls + "); check kafka.security.protocol"
                        + " (is it a PLAINTEXT or SASL_PLAINTEXT listener?)");
            }
            String trust = handshake(trusted);
            if (trust != null && isAlert(trust)) {
                throw refusedTls(trust);
            }
            if (trust != null) {
                throw new ConfigException("kafka.ssl.truststore.location: the broker at " + address
                        + " presented a certificate the client does not accept: " + trust);
            }
        }
        try (Socket socket = connect(wantsTls ? trusted : null, true)) {
            sasl(socket);
        } catch (IOException | RuntimeException e) { // a peer that is not a Kafka broker may answer anything
            if (e instanceof TlsRecord) {
                throw new ConfigException("kafka.security.protocol=" + protocol + ": the broker at " + address
                        + " speaks TLS on this listener; check kafka.security.protocol (SSL or SASL_SSL, with a truststore)");
            }
            if (e instanceof SSLException && isAlert(e.getMessage())) {
                throw refusedTls(e.getMessage()); // TLS 1.3: a missing client certificate shows on the first read
            }
            String alert = wantsTls && e instanceof java.net.SocketException ? alertAfterHandshake() : null;
            if (alert != null) {
                throw refusedTls(alert); // ... or the request's write met the closed socket first (broken pipe)
            }
            throw new ConfigException("the broker at " + address + " did not answer a SASL handshake as a Kafka broker ("
                    + BrokerCheck.rootCause(e) + "); check kafka.bootstrap-servers and kafka.security.protocol");
        }
    }

    /**
     * TLS 1.3: a broker that wants a client certificate refuses the session after the handshake, with an
     * alert the client sees only on a read; a write that comes first may fail with a broken pipe instead.
     * So, once a request failed that way, connect again and only read: the alert, or null.
     */
    private String alertAfterHandshake() {
        try (Socket socket = connect(trusted, true)) {
            socket.getInputStream().read();
            return null;
        } catch (SSLException e) {
            return isAlert(e.getMessage()) ? e.getMessage() : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Whether a TLS failure is the broker's alert: it speaks TLS and refused this client. */
    private static boolean isAlert(String failure) {
        return failure != null && failure.contains("Received fatal alert");
    }

    private ConfigException refusedTls(String alert) {
        return new ConfigException("the broker at " + address + " refused the TLS session ("
                + alert.replaceFirst("^\\(\\w+\\) ", "") + "); check "
                + "kafka.ssl.keystore.location (a client certificate it trusts, if the listener asks for one) and kafka.ssl.protocol");
    }

    private void sasl(Socket socket) throws IOException, ConfigException {
        boolean wantsSasl = protocol.startsWith("SASL_");
        String mechanism = properties.getOrDefault("sasl.mechanism", "GSSAPI").strip();
        Frames frames = new Frames(socket);
        Frames.Reply handshake = frames.call(SASL_HANDSHAKE, out -> writeString(out, wantsSasl ? mechanism : ""));
        short error = handshake.in().readShort();
        List<String> offered = new ArrayList<>();
        for (int i = handshake.in().readInt(); i > 0; i--) {
            offered.add(readString(handshake.in()));
        }
        offered.sort(null); // the broker's order is a set's
        if (!wantsSasl) {
            if (error != ILLEGAL_SASL_STATE) {
                throw new ConfigException("kafka.security.protocol=" + protocol + ": the broker at " + address
                        + " expects SASL authentication on this listener (mechanisms " + offered + "); check "
                        + "kafka.security.protocol (SASL_" + (protocol.equals("SSL") ? "SSL" : "PLAINTEXT")
                        + "?), kafka.sasl.mechanism and kafka.sasl.jaas.config");
            }
            return;
        }
        if (error == ILLEGAL_SASL_STATE) {
            throw new ConfigException("kafka.security.protocol=" + protocol + ": the broker at " + address
                    + " does not use SASL on this listener; check kafka.security.protocol ("
                    + (protocol.equals("SASL_SSL") ? "SSL" : "PLAINTEXT") + "?)");
        }
        if (error == UNSUPPORTED_SASL_MECHANISM) {
            throw new ConfigException("kafka.sasl.mechanism=" + mechanism + ": the broker at " + address
                    + " does not enable it on this listener; it offers " + offered);
        }
        if (error != NONE) {
            throw new ConfigException("the broker at " + address + " refused the SASL handshake (error code " + error + ")");
        }
        if (PROBED_MECHANISMS.contains(mechanism)) {
            authenticate(frames, mechanism);
        }
    }

    /** Runs the mechanism's exchange; a refusal is "SASL authentication failed for user U: broker's message". */
    private void authenticate(Frames frames, String mechanism) throws IOException, ConfigException {
        Map<String, String> jaas = jaasOptions(properties.get("sasl.jaas.config"));
        String user = jaas.get("username");
        String password = jaas.get("password");
        if (user == null || password == null) {
            throw new ConfigException("kafka.sasl.jaas.config: " + mechanism + " needs username=\"...\" and password=\"...\"");
        }
        ScramSaslClientProvider.initialize();
        SaslClient client;
        try {
            client = Sasl.createSaslClient(new String[] {mechanism}, null, "kafka", hostOf(address), Map.of(),
                    callbacks -> {
                        for (Callback c : callbacks) {
                            if (c instanceof NameCallback name) {
                                name.setName(user);
                            } else if (c instanceof PasswordCallback pw) {
                                pw.setPassword(password.toCharArray());
                            } else if (!(c instanceof ScramExtensionsCallback)) {
                                throw new UnsupportedCallbackException(c);
                            }
                        }
                    });
        } catch (SaslException e) {
            throw new ConfigException("kafka.sasl.mechanism=" + mechanism + ": no SASL client for it: " + BrokerCheck.rootCause(e));
        }
        if (client == null) {
            return; // no SASL client for it in this JVM: the Kafka clients will say
        }
        try {
            byte[] token = client.hasInitialResponse() ? client.evaluateChallenge(new byte[0]) : new byte[0];
            while (token != null) {
                byte[] sent = token;
                Frames.Reply reply = frames.call(SASL_AUTHENTICATE, out -> {
                    out.writeInt(sent.length);
                    out.write(sent);
                });
                short error = reply.in().readShort();
                String message = readNullableString(reply.in());
                if (error != NONE) {
                    throw new ConfigException("SASL authentication failed for user " + user + " (" + mechanism + ") at "
                            + address + ": " + message);
                }
                byte[] challenge = reply.in().readNBytes(reply.in().readInt());
                token = client.isComplete() ? null : client.evaluateChallenge(challenge);
            }
        } catch (SaslException e) {
            throw new ConfigException("SASL authentication failed for user " + user + " (" + mechanism + ") at "
                    + address + ": " + BrokerCheck.rootCause(e));
        } finally {
            client.dispose();
        }
    }

    /** The {@code key="value"} options of a JAAS configuration line. */
    static Map<String, String> jaasOptions(String jaas) {
        Map<String, String> options = new HashMap<>();
        if (jaas != null) {
            Matcher m = JAAS_OPTION.matcher(jaas);
            while (m.find()) {
                options.put(m.group(1), m.group(2).replaceAll("\\\\(.)", "$1"));
            }
        }
        return options;
    }

    /** Null if a TLS handshake completes ({@code context} null: trusting any certificate), else why not. */
    private String handshake(SSLContext context) {
        try (Socket socket = connect(context == null ? trustAny() : context, context != null)) {
            return null;
        } catch (IOException | GeneralSecurityException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        }
    }

    /**
     * A connection to the address, over TLS with {@code tls} (handshake done) unless it is null; checking
     * that the certificate names the host if {@code checkName} and the clients would.
     */
    private Socket connect(SSLContext tls, boolean checkName) throws IOException {
        String host = hostOf(address);
        Socket plain = new Socket();
        try {
            plain.connect(new InetSocketAddress(host, Integer.parseInt(address.substring(address.lastIndexOf(':') + 1))), timeoutMs);
            plain.setSoTimeout(timeoutMs);
            if (tls == null) {
                return plain;
            }
            SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, host, plain.getPort(), true);
            if (checkName && !properties.getOrDefault("ssl.endpoint.identification.algorithm", "https").isBlank()) {
                SSLParameters parameters = socket.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS"); // as the Kafka clients check the broker's name
                socket.setSSLParameters(parameters);
            }
            socket.startHandshake();
            return socket;
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    private static String hostOf(String address) {
        return address.substring(0, address.lastIndexOf(':'));
    }

    private static SSLContext trustAny; // guarded by ListenerProbe.class

    private static synchronized SSLContext trustAny() throws GeneralSecurityException {
        if (trustAny == null) {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new TrustAnyCertificate()}, null);
            trustAny = context;
        }
        return trustAny;
    }

    /** For asking whether the peer speaks TLS at all, not whom to trust. */
    static final class TrustAnyCertificate implements X509TrustManager {
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

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeShort(bytes.length);
        out.write(bytes);
    }

    private static String readString(DataInputStream in) throws IOException {
        String s = readNullableString(in);
        return s == null ? "" : s;
    }

    private static String readNullableString(DataInputStream in) throws IOException {
        short length = in.readShort();
        return length < 0 ? null : new String(in.readNBytes(length), StandardCharsets.UTF_8);
    }

    /**
     * The answer to a plaintext request began as a TLS alert record does (content type 21, then major
     * version 3): a TLS listener refusing the bytes as a handshake. Asking so, instead of attempting a TLS
     * handshake, keeps the JDK's TLS stack (hundreds of classes, the crypto providers) out of a process
     * that does not use TLS.
     */
    private static final class TlsRecord extends IOException {
        TlsRecord() {
            super("a TLS alert record");
        }
    }

    /** Kafka request and response frames (request header v1, response header v0) on one connection. */
    private static final class Frames {
        private static final int TLS_ALERT = 0x15;
        private static final int TLS_MAJOR_VERSION = 0x03;
        private final DataInputStream in;
        private final DataOutputStream out;
        private static final int MAX_RESPONSE_BYTES = 1 << 20;
        private int correlation;

        Frames(Socket socket) throws IOException {
            this.in = new DataInputStream(socket.getInputStream());
            this.out = new DataOutputStream(socket.getOutputStream());
        }

        interface Body {
            void write(DataOutputStream out) throws IOException;
        }

        record Reply(DataInputStream in) {
        }

        /** Sends request {@code apiKey} v1 and returns its response body (after the correlation id). */
        Reply call(short apiKey, Body body) throws IOException {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            DataOutputStream request = new DataOutputStream(buffer);
            request.writeShort(apiKey);
            request.writeShort(1);
            request.writeInt(++correlation);
            writeString(request, "sluice-broker-check");
            body.write(request);
            out.writeInt(buffer.size());
            buffer.writeTo(out);
            out.flush();
            int size = in.readInt();
            if (size >>> 24 == TLS_ALERT && (size >>> 16 & 0xFF) == TLS_MAJOR_VERSION) {
                throw new TlsRecord();
            }
            if (size < 4 || size > MAX_RESPONSE_BYTES) {
                throw new IOException("an answer of " + size + " bytes is no Kafka response to this request");
            }
            byte[] response = in.readNBytes(size);
            DataInputStream reply = new DataInputStream(new ByteArrayInputStream(response));
            if (reply.readInt() != correlation) {
                throw new IOException("answer out of order");
            }
            return new Reply(reply);
        }
    }
}
