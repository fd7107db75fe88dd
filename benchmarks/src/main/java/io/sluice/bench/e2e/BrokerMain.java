package io.sluice.bench.e2e;

import io.sluice.tools.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A single-node KRaft broker in its own process, for e2e runs that keep the broker out of the
 * measured JVM ({@code --bootstrap-servers}): prints {@code bootstrap.servers=HOST:PORT} and serves
 * until killed (SIGTERM closes it).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx2g \
 *   -cp benchmarks/target/benchmarks.jar io.sluice.bench.e2e.BrokerMain [DIR]
 * </pre>
 */
public final class BrokerMain {
    private BrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = args.length > 0 ? Files.createDirectories(Path.of(args[0])) : Files.createTempDirectory("sluice-broker-");
        EmbeddedKafka kafka = EmbeddedKafka.start(dir);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            kafka.close();
            stopped.countDown();
        }, "broker-shutdown"));
        System.out.println("bootstrap.servers=" + kafka.bootstrapServers());
        System.out.flush();
        stopped.await();
    }
}
