package io.sluice.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.PayloadFormat;
import io.sluice.tools.kafka.EmbeddedKafka;
import io.sluice.tools.loadgen.Loadgen;
import io.sluice.tools.loadgen.LoadgenConfig;
import java.io.File;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice serve} from the full {@code ./sluice} command line (what the container runs) consumes
 * from a real broker without loading a class of the Kafka broker or of the tools: the jar holds them,
 * the service's path never touches them. The server runs in a class loader of its own that records
 * every class it is asked for; the broker runs in the test's loader.
 */
class ServeLoadsNoBrokerTest {
    @TempDir
    Path dir;

    /** A loader over the test's class path that records every class name asked of it. */
    private static final class RecordingLoader extends URLClassLoader {
        final Set<String> requested = ConcurrentHashMap.newKeySet();

        RecordingLoader(URL[] urls) {
            super("recording", urls, ClassLoader.getPlatformClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            requested.add(name);
            return super.loadClass(name, resolve);
        }
    }

    private static URL[] classPath() throws Exception {
        String[] entries = System.getProperty("java.class.path").split(File.pathSeparator);
        URL[] urls = new URL[entries.length];
        for (int i = 0; i < entries.length; i++) {
            urls[i] = Path.of(entries[i]).toUri().toURL();
        }
        return urls;
    }

    @Test
    void serveConsumesWithoutLoadingBrokerOrToolClasses() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"));
             RecordingLoader loader = new RecordingLoader(classPath())) {
            kafka.createTopic("metrics", 1);
            Loadgen.run(LoadgenConfig.of(kafka.bootstrapServers(), "metrics", PayloadFormat.SLUICE, 10, 100));
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            Class<?> signalClass = loader.loadClass("io.sluice.server.StopSignal");
            Object stop = signalClass.getMethod("manual").invoke(null);
            Supplier<Object> stopSignal = () -> stop;
            Method run = loader.loadClass("io.sluice.tools.Main").getMethod("run", String[].class, PrintWriter.class,
                    PrintWriter.class, Map.class, Supplier.class);
            String[] args = {"serve", "--kafka.bootstrap-servers=" + kafka.bootstrapServers(), "--kafka.topics=metrics=sluice",
                    "--data.dir=" + dir.resolve("data"), "--http.host=127.0.0.1", "--http.port=" + port};
            StringWriter err = new StringWriter();
            CompletableFuture<Object> serve = new CompletableFuture<>();
            Thread server = new Thread(() -> { // Kafka clients load configured classes from the context loader
                try {
                    serve.complete(run.invoke(null, args, new PrintWriter(new StringWriter()), new PrintWriter(err, true),
                            Map.of(), stopSignal));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    serve.completeExceptionally(e);
                }
            }, "serve");
            server.setContextClassLoader(loader);
            server.start();
            awaitReady(port, serve, err);
            signalClass.getMethod("stop").invoke(stop);
            assertThat(serve.get(2, TimeUnit.MINUTES)).as("exit code; stderr: %s", err).isEqualTo(0);

            // The recording saw the service's path (else the assertions below would prove nothing) ...
            assertThat(loader.requested).contains("io.sluice.server.cli.ServeCommand", "io.sluice.server.kafka.KafkaIngest",
                    "org.apache.kafka.clients.consumer.KafkaConsumer");
            // ... and nothing of the broker (kafka.server, kafka.tools, Scala) or of the tools.
            List<String> strays = loader.requested.stream()
                    .filter(name -> name.startsWith("kafka.") || name.startsWith("scala.")
                            || name.startsWith("org.apache.kafka.raft.") || name.startsWith("org.apache.kafka.metadata.")
                            || name.startsWith("org.apache.kafka.storage.") || name.startsWith("io.sluice.tools.kafka.")
                            || name.startsWith("io.sluice.tools.loadgen.") || name.startsWith("io.sluice.tools.bench.")
                            || (name.startsWith("io.sluice.tools.cli.") && !name.startsWith("io.sluice.tools.cli.ToolCommands"))
                            || name.matches("io\\.sluice\\.server\\.format\\..*Encoder.*"))
                    .sorted().toList();
            assertThat(strays).isEmpty();
        }
    }

    private static void awaitReady(int port, CompletableFuture<Object> serve, StringWriter err) throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready"))
                .timeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            assertThat(serve).as("serve stopped early; stderr: %s", err).isNotDone();
            try {
                if (client.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (java.io.IOException notListeningYet) {
                // starting
            }
            Thread.sleep(100);
        }
        throw new AssertionError("serve never became ready; stderr: " + err);
    }
}
