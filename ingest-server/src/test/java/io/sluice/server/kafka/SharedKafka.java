package io.sluice.server.kafka;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

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
                Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(started::close));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return broker;
    }

    /** A name no other test of this JVM uses, e.g. {@code unique("rw")} = {@code rw-7}. */
    public static String unique(String prefix) {
        return prefix + "-" + NAMES.incrementAndGet();
    }
}
