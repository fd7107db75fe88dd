package io.sluice.tools.kafka;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single-node Kafka broker (KRaft, broker and controller in one node) inside this JVM, for tests,
 * {@code sluice demo} and the end-to-end benchmark. Not a production broker: one replica, loopback
 * listeners only; plaintext, unless started with {@link Secure} listeners besides the plaintext one
 * (TLS, SASL over TLS and SASL over plaintext, for the tests of the clients' security settings).
 *
 * <p>Lifecycle: {@link #start(Path)} formats {@code dir} (a fresh cluster id each time unless the
 * directory was formatted before, in which case its data is kept) and returns once the broker
 * answers metadata requests; {@link #close()} shuts it down and waits. Cost on 2 cores: the first
 * broker in a JVM starts in 1–11 s and takes ~350–600 MB; share one per test JVM.
 *
 * <p>Restart on the same address (the end-to-end broker-outage test): {@link #close()}, then
 * {@link #start(Path, int, int)} with the same directory and {@link #brokerPort()} /
 * {@link #controllerPort()}; the topics, their records and the committed offsets are kept.
 *
 * <p>Thread-safe: {@link #createTopic} may be called from any thread.
 */
public final class EmbeddedKafka implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(120);
    private static final String LOOPBACK = "127.0.0.1";
    /** Broker properties that make this a single loopback node; {@code start} refuses to override them. */
    public static final Set<String> MANAGED_PROPERTIES = Set.of("process.roles", "node.id", "controller.quorum.voters",
            "listeners", "advertised.listeners", "controller.listener.names", "inter.broker.listener.name",
            "listener.security.protocol.map", "log.dirs", "log.dir");

    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final int brokerPort;
    private final int controllerPort;
    private final Admin admin;
    private final Map<String, Integer> securePorts; // listener name (SSL, SASL_SSL, SASL_PLAINTEXT) to port; empty without

    /**
     * Listeners besides the plaintext one: {@code SSL}, {@code SASL_SSL} and {@code SASL_PLAINTEXT}, the
     * SASL ones with SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN. TLS uses {@code keystore} (PKCS12: the
     * broker's key and certificate, made by the caller); no client certificates are asked for.
     * SCRAM users are added with {@link #addScramUser}; PLAIN users are fixed here.
     *
     * @param plainUsers PLAIN user name to password
     */
    public record Secure(Path keystore, String keystorePassword, Map<String, String> plainUsers) {
        public Secure {
            plainUsers = Map.copyOf(plainUsers);
        }
    }

    private static final List<String> SECURE_LISTENERS = List.of("SSL", "SASL_SSL", "SASL_PLAINTEXT");

    private EmbeddedKafka(KafkaRaftServer server, int brokerPort, int controllerPort, Map<String, Integer> securePorts) {
        this.server = server;
        this.securePorts = Map.copyOf(securePorts);
        this.bootstrapServers = LOOPBACK + ":" + brokerPort;
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "sluice-embedded-admin"));
    }

    /** Formats (if needed) and starts a broker whose logs live under {@code dir}; returns when it serves. */
    public static EmbeddedKafka start(Path dir) throws IOException {
        return start(dir, freePort(), freePort());
    }

    /**
     * As {@link #start(Path)}, on the given loopback ports: restarts a broker closed before with the
     * same directory and ports, keeping its data. A port still held (TIME_WAIT is not: the listener
     * reuses the address) fails the start with Kafka's bind error.
     */
    public static EmbeddedKafka start(Path dir, int brokerPort, int controllerPort) throws IOException {
        return start(dir, brokerPort, controllerPort, Map.of());
    }

    /**
     * As {@link #start(Path, int, int)}, with broker properties ({@code message.max.bytes}, {@code
     * log.retention.ms}...) set over this class's; a port of 0 picks a free one. The properties that make
     * the broker a loopback single node ({@link #MANAGED_PROPERTIES}) are refused.
     */
    public static EmbeddedKafka start(Path dir, int brokerPort, int controllerPort, Map<String, String> overrides)
            throws IOException {
        return start(dir, brokerPort, controllerPort, overrides, null);
    }

    /** As {@link #start(Path)}, with the {@link Secure} listeners besides the plaintext one. */
    public static EmbeddedKafka start(Path dir, Secure secure) throws IOException {
        return start(dir, 0, 0, Map.of(), secure);
    }

    private static EmbeddedKafka start(Path dir, int brokerPort, int controllerPort, Map<String, String> overrides,
                                       Secure secure) throws IOException {
        for (String key : overrides.keySet()) {
            if (MANAGED_PROPERTIES.contains(key)) {
                throw new IllegalArgumentException("broker property " + key + " is set by the embedded broker itself");
            }
        }
        brokerPort = brokerPort == 0 ? freePort() : brokerPort;
        controllerPort = controllerPort == 0 ? freePort() : controllerPort;
        Files.createDirectories(dir);
        Properties props = brokerProperties(dir.resolve("logs"), brokerPort, controllerPort);
        Map<String, Integer> securePorts = new LinkedHashMap<>();
        if (secure != null) {
            SECURE_LISTENERS.forEach(name -> securePorts.put(name, freePort()));
            addSecureListeners(props, securePorts, secure);
        }
        props.putAll(overrides);
        format(dir, props);
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        EmbeddedKafka kafka = new EmbeddedKafka(server, brokerPort, controllerPort, securePorts);
        try {
            kafka.awaitServing();
        } catch (IOException | RuntimeException e) {
            kafka.close();
            throw e;
        }
        LOG.info("embedded Kafka broker serving at {} (logs in {})", kafka.bootstrapServers, dir);
        return kafka;
    }

    /** {@code host:port} of the broker's plaintext listener. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * {@code host:port} of the secure listener {@code name}: {@code SSL}, {@code SASL_SSL} or
     * {@code SASL_PLAINTEXT} (as {@code kafka.security.protocol} names them).
     *
     * @throws IllegalStateException if the broker was started without {@link Secure} listeners
     */
    public String bootstrapServers(String name) {
        Integer port = securePorts.get(name);
        if (port == null) {
            throw new IllegalStateException("no " + name + " listener: started " + (securePorts.isEmpty()
                    ? "without secure listeners" : "with " + securePorts.keySet()));
        }
        return LOOPBACK + ":" + port;
    }

    /** Adds (or replaces) the SCRAM-SHA-256 and SCRAM-SHA-512 credentials of {@code user}. */
    public void addScramUser(String user, String password) {
        try {
            for (ScramMechanism mechanism : List.of(ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512)) {
                // One request each: the broker refuses two alterations of one user in one request.
                admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                        new ScramCredentialInfo(mechanism, 4096), password))).all().get(60, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot add SCRAM user " + user + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while adding SCRAM user " + user, e);
        }
    }

    /** The port of the plaintext listener (clients). */
    public int brokerPort() {
        return brokerPort;
    }

    /** The port of the controller listener (the KRaft quorum). */
    public int controllerPort() {
        return controllerPort;
    }

    /** Creates a topic (replication 1) and waits until every partition has a leader; an existing topic is kept. */
    public void createTopic(String name, int partitions) {
        createTopic(name, partitions, Map.of());
    }

    /**
     * As {@link #createTopic(String, int)}, with topic configuration ({@code max.message.bytes},
     * {@code retention.ms}...); an existing topic is kept as it is.
     */
    public void createTopic(String name, int partitions, Map<String, String> configs) {
        try {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs))).all()
                    .get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException("cannot create topic " + name + ": " + e.getCause().getMessage(), e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("topic " + name + " was not created within 60 s", e);
        }
        TopicLeaders.await(admin, name, partitions, Duration.ofSeconds(60));
    }

    /** An admin client of this broker, owned by it (do not close it). */
    public Admin admin() {
        return admin;
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
        server.shutdown();
        server.awaitShutdown();
    }

    // ---------------------------------------------------------------- setup

    private static Properties brokerProperties(Path logDir, int brokerPort, int controllerPort) {
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        // Static voters: the quorum's address comes from this configuration on every start, so the
        // same directory can be restarted on other ports (a dynamic quorum records its endpoints).
        p.put("controller.quorum.voters", "1@" + LOOPBACK + ":" + controllerPort);
        p.put("listeners", "PLAINTEXT://" + LOOPBACK + ":" + brokerPort + ",CONTROLLER://" + LOOPBACK + ":" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://" + LOOPBACK + ":" + brokerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", logDir.toString());
        // A single node: every internal topic has one replica, or a consumer group never gets partitions.
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        // Fewer internal partitions start faster on 2 cores (defaults: 50 and 50).
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("num.partitions", "1");
        p.put("auto.create.topics.enable", "true");
        // Tests may use short consumer session timeouts, so a departed member is noticed quickly: the classic
        // protocol's is the client's session.timeout.ms; the consumer protocol's (KIP-848) is the broker's
        // group.consumer.session.timeout.ms / heartbeat.interval.ms (45 s / 5 s, kept here), which a group's
        // own configuration (consumer.session.timeout.ms, ...) may lower down to these minimums.
        p.put("group.min.session.timeout.ms", "1000");
        p.put("group.consumer.min.session.timeout.ms", "1000");
        p.put("group.consumer.min.heartbeat.interval.ms", "500");
        p.put("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        return p;
    }

    /** The {@link Secure} listeners on {@code ports}, TLS from its keystore, SASL with SCRAM and PLAIN. */
    private static void addSecureListeners(Properties p, Map<String, Integer> ports, Secure secure) {
        StringBuilder listeners = new StringBuilder();
        StringBuilder map = new StringBuilder();
        ports.forEach((name, port) -> {
            listeners.append(',').append(name).append("://").append(LOOPBACK).append(':').append(port);
            map.append(',').append(name).append(':').append(name);
        });
        p.put("listeners", p.getProperty("listeners") + listeners);
        p.put("advertised.listeners", p.getProperty("advertised.listeners") + listeners);
        p.put("listener.security.protocol.map", p.getProperty("listener.security.protocol.map") + map);
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.location", secure.keystore().toString());
        p.put("ssl.keystore.password", secure.keystorePassword());
        p.put("ssl.key.password", secure.keystorePassword());
        p.put("ssl.client.auth", "none");
        p.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN");
        StringBuilder plain = new StringBuilder("org.apache.kafka.common.security.plain.PlainLoginModule required");
        secure.plainUsers().forEach((user, password) -> plain.append(" user_").append(user).append("=\"").append(password).append('"'));
        plain.append(';');
        for (String listener : List.of("sasl_ssl", "sasl_plaintext")) {
            String prefix = "listener.name." + listener + ".";
            p.put(prefix + "scram-sha-256.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required;");
            p.put(prefix + "scram-sha-512.sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required;");
            p.put(prefix + "plain.sasl.jaas.config", plain.toString());
        }
    }

    /** Runs Kafka's storage tool ({@code kafka-storage format}); a formatted {@code dir} keeps its data. */
    private static void format(Path dir, Properties props) throws IOException {
        Path config = dir.resolve("server.properties");
        try (OutputStream out = Files.newOutputStream(config)) {
            props.store(out, "sluice embedded Kafka");
        }
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        int rc;
        try (PrintStream print = new PrintStream(output, true, StandardCharsets.UTF_8)) {
            rc = StorageTool.execute(new String[] {"format", "-t", clusterId(dir.resolve("logs")), "-c", config.toString(),
                "--ignore-formatted"}, print);
        }
        if (rc != 0) {
            throw new IOException("formatting embedded Kafka storage in " + dir + " failed: "
                    + output.toString(StandardCharsets.UTF_8).strip());
        }
    }

    /**
     * The cluster id a formatted log directory already has, else a new one: the broker checks the id it
     * is started with against its directory's {@code meta.properties}, so a restart must reuse it.
     */
    private static String clusterId(Path logDir) throws IOException {
        Path meta = logDir.resolve("meta.properties");
        if (Files.exists(meta)) {
            Properties p = new Properties();
            try (var in = Files.newInputStream(meta)) {
                p.load(in);
            }
            String id = p.getProperty("cluster.id");
            if (id != null && !id.isBlank()) {
                return id.strip();
            }
        }
        return Uuid.randomUuid().toString();
    }

    private void awaitServing() throws IOException {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
                    return;
                }
            } catch (ExecutionException | TimeoutException e) {
                last = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the embedded broker", e);
            }
            pause(50);
        }
        throw new IOException("embedded Kafka broker at " + bootstrapServers + " did not serve within "
                + STARTUP_TIMEOUT.toSeconds() + " s" + (last == null ? "" : ": " + last.getMessage()));
    }

    /** Between polls of the broker's state: no need to hammer it. */
    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the embedded broker", e);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
