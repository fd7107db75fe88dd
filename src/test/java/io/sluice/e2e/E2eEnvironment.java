package io.sluice.e2e;

import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every end-to-end test shares: the server jar and how to run it (surefire passes the paths as
 * system properties, see src/test/pom.xml), the seed, a work directory, and the one Kafka broker of
 * the test JVM. The broker lives in this JVM, so it outlives every server process the tests kill.
 */
final class E2eEnvironment {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static EmbeddedKafka broker; // guarded by E2eEnvironment.class

    private E2eEnvironment() {
    }

    /** The shaded server jar; a missing jar is a clear failure, not a confusing process exit. */
    static Path serverJar() {
        String configured = System.getProperty("sluice.jar", "tools/target/sluice.jar");
        Path jar = Path.of(configured).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the server jar " + jar + " does not exist: build it first, e.g."
                    + " ./mvnw -pl src/test -am verify (the reactor packages the tools jar before these tests),"
                    + " or pass -Dsluice.jar=PATH");
        }
        return jar;
    }

    /** The java launcher of this JVM (JDK 25) and the project's flags for the server process. */
    static List<String> javaCommand() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String flags = System.getProperty("sluice.jvm.flags",
                "--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(Arrays.stream(flags.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList());
        return command;
    }

    static long seed() {
        return Long.getLong("sluice.e2e.seed", 20261122L);
    }

    static int cycles() {
        return Integer.getInteger("sluice.e2e.cycles", 20);
    }

    /** Pace of the kill -9 test's producer: one round (a sample of every series) per this many ms. */
    static long roundIntervalMs() {
        return Long.getLong("sluice.e2e.round-interval-ms", 100);
    }

    /** A fresh directory under target/e2e for one test. */
    static Path newWorkDir(String name) {
        try {
            Path root = Path.of(System.getProperty("sluice.e2e.work", "target/e2e")).toAbsolutePath();
            Files.createDirectories(root);
            return Files.createTempDirectory(root, name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The broker of this JVM, started on first use, stopped by a shutdown hook. */
    static synchronized EmbeddedKafka broker() {
        if (broker == null) {
            try {
                // Under target/e2e like everything else the tests write: `mvn clean` removes it.
                broker = EmbeddedKafka.start(newWorkDir("kafka"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(broker::close));
        }
        return broker;
    }

    /** A topic or group name no other test of this JVM uses. */
    static String unique(String prefix) {
        return prefix + "-" + NAMES.incrementAndGet() + "-" + Long.toHexString(System.nanoTime() & 0xffffff);
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
