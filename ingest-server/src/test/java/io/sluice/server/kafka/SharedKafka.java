package io.sluice.server.kafka;

import io.sluice.tools.kafka.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The one embedded broker of a test JVM, started on first use and stopped by a shutdown hook
 * (a broker costs seconds and hundreds of MB on 2 cores). Tests isolate themselves by unique topic
 * and group names from {@link #unique(String)}.
 */
public final class SharedKafka {
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static EmbeddedKafka broker; // guarded by SharedKafka.class

    private SharedKafka() {
    }

    public static synchronized EmbeddedKafka broker() {
        if (broker == null) {
            try {
                Path dir = Files.createTempDirectory("sluice-test-kafka");
                broker = EmbeddedKafka.start(dir);
                EmbeddedKafka started = broker;
                Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> {
                    started.close();
                    deleteRecursively(dir);
                }));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return broker;
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.err.println("could not delete the test broker's directory " + dir + ": " + e);
        }
    }

    /** A name no other test of this JVM uses, e.g. {@code unique("rw")} = {@code rw-7}. */
    public static String unique(String prefix) {
        return prefix + "-" + NAMES.incrementAndGet();
    }
}
