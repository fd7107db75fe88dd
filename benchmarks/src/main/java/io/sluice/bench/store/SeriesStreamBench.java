package io.sluice.bench.store;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.bench.query.FilledHead;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.config.StoreApiOptions;
import io.sluice.server.store.StoreApiServer;
import io.sluice.server.store.proto.AggrChunk;
import io.sluice.server.store.proto.LabelMatcher;
import io.sluice.server.store.proto.Series;
import io.sluice.server.store.proto.SeriesRequest;
import io.sluice.server.store.proto.SeriesResponse;
import io.sluice.server.store.proto.StoreGrpc;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Thanos StoreAPI {@code Series} call over loopback: a real head holding {@code --series}
 * {@code node_cpu_seconds_total} series with {@code --rounds} samples each (15 s apart; 480 = 2 h), the
 * real gRPC server, and a client asking for every series over the whole range (or, with
 * {@code --window-ms W}, over its last W ms: an instant query's narrow window), {@code --calls}
 * times after {@code --warmup} calls, {@code --batch} series per response
 * ({@code response_batch_size}; the Querier asks for 64, 0 = one per response). The client is either
 * a grpc-java blocking stub in this JVM ({@code --client java}) or, with {@code --go-client PATH},
 * {@code benchmarks/anchors/storeapi-client} (the thanos module's storepb client, as a Querier
 * decodes) in its own process. The figure is the raw chunk bytes received per second of wall time;
 * the CPU of the server's threads ({@code storeapi*}), of the rest of this process (GC, JIT; the
 * Java client) and of the Go client are printed next to it, and the server's CPU per GB. The head
 * is checkpointed after the fill ({@code --checkpoint false}: not), as a running instance does every
 * 5 minutes: its closed chunks are then read from their chunk files, as most of a 2 h query's are.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xms2g -Xmx2g \
 *   -cp benchmarks/target/benchmarks.jar io.sluice.bench.store.SeriesStreamBench \
 *   [--series 10000] [--rounds 480] [--shards 2] [--server-threads 2] [--warmup 5] [--calls 20] \
 *   [--batch 64] [--checkpoint true] [--external-label sluice_instance=a] [--window-ms 600000]
 *   [--go-client /tmp/storeapi-client [--anchor /tmp/storeapi-server] [--repeat 1] [--client-window 0]]
 * </pre>
 *
 * With {@code --anchor PATH} ({@code benchmarks/anchors/storeapi-server}) a Go gRPC StoreAPI server
 * records this server's answer and replays it; the Go client measures it after this server,
 * {@code --repeat} times in turn: the ceiling on the machine, in the same run.
 */
public final class SeriesStreamBench {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** The Go client's HTTP/2 windows ({@code --client-window}; 0: grpc-go's own, grown by its BDP estimate). */
    private static int clientWindow;

    private SeriesStreamBench() {
    }

    public static void main(String[] args) throws Exception {
        int series = Integer.parseInt(arg(args, "series", "10000"));
        int rounds = Integer.parseInt(arg(args, "rounds", "480"));
        int shards = Integer.parseInt(arg(args, "shards", "2"));
        int serverThreads = Integer.parseInt(arg(args, "server-threads", "2"));
        int warmup = Integer.parseInt(arg(args, "warmup", "5"));
        int calls = Integer.parseInt(arg(args, "calls", "20"));
        int batch = Integer.parseInt(arg(args, "batch", "64"));
        String goClient = arg(args, "go-client", null);
        clientWindow = Integer.parseInt(arg(args, "client-window", "0"));
        boolean checkpoint = Boolean.parseBoolean(arg(args, "checkpoint", "true"));
        long windowMs = Long.parseLong(arg(args, "window-ms", "0"));
        long maxTime = FilledHead.FIRST_MS + rounds * FilledHead.STEP_MS;
        long minTime = windowMs > 0 ? maxTime - windowMs : FilledHead.FIRST_MS;
        // e.g. sluice_instance=a: the usual Thanos setup, whose answers are sorted before they are sent
        String external = arg(args, "external-label", null);
        Map<String, String> externalLabels = external == null ? Map.of()
                : Map.of(external.substring(0, external.indexOf('=')), external.substring(external.indexOf('=') + 1));
        System.out.printf("StoreAPI Series: %,d series x %d samples (15 s apart), %d shards, %d server threads, "
                        + "%d warm-up + %d measured calls, %d series per response, %s client, external labels %s, window %s%n", series, rounds,
                shards, serverThreads, warmup, calls, batch, goClient != null ? "Go (" + goClient + ")" : "in-JVM Java",
                externalLabels, windowMs > 0 ? "last " + windowMs + " ms" : "whole range");
        long fillStart = System.nanoTime();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (FilledHead filled = new FilledHead(series, rounds, shards)) {
            System.out.printf("head filled with %,d samples in %.1f s%n", filled.samples, (System.nanoTime() - fillStart) / 1e9);
            if (checkpoint && !filled.head.checkpoint(120_000)) {
                throw new IllegalStateException("the head's checkpoint did not finish in 2 min");
            }
            StoreApiServer server = StoreApiServer.start(
                    new StoreApiOptions("127.0.0.1", 0, externalLabels, StoreApiOptions.DEFAULT_MAX_MESSAGE_BYTES, null, null),
                    filled.head, QueryOptions.DEFAULTS, serverThreads, registry, () -> null);
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext()
                    .maxInboundMessageSize(64 << 20).build();
            try {
                if (goClient != null) {
                    String anchor = arg(args, "anchor", null);
                    int repeat = Integer.parseInt(arg(args, "repeat", "1"));
                    Process anchorServer = anchor == null ? null : startAnchor(anchor, server.port(), minTime, maxTime, batch);
                    try {
                        String anchorAddress = anchorServer == null ? null : anchorAddress(anchorServer);
                        for (int r = 0; r < repeat; r++) {
                            System.out.println("-- Sluice's StoreAPI server, round " + (r + 1) + " of " + repeat);
                            goClient(goClient, "127.0.0.1:" + server.port(), null, minTime, maxTime, batch, warmup, calls, series);
                            if (anchorServer != null) {
                                System.out.println("-- the Go anchor server (" + anchor + "), round " + (r + 1) + " of " + repeat);
                                goClient(goClient, anchorAddress, anchorServer, minTime, maxTime, batch, warmup, calls, series);
                            }
                        }
                    } finally {
                        if (anchorServer != null) {
                            anchorServer.destroy();
                            anchorServer.waitFor(10, TimeUnit.SECONDS);
                        }
                    }
                    return;
                }
                StoreGrpc.StoreBlockingStub store = StoreGrpc.newBlockingStub(channel);
                SeriesRequest request = SeriesRequest.newBuilder()
                        .setMinTime(minTime)
                        .setMaxTime(maxTime)
                        .addMatchers(LabelMatcher.newBuilder().setType(LabelMatcher.Type.EQ)
                                .setName("__name__").setValue("node_cpu_seconds_total"))
                        .setResponseBatchSize(batch)
                        .build();
                for (int i = 0; i < warmup; i++) {
                    call(store, request);
                }
                Map<Thread, Long> threads0 = cpuByThread();
                long serverCpu0 = cpuOfThreads("storeapi");
                long processCpu0 = OS.getProcessCpuTime();
                long start = System.nanoTime();
                long[] total = new long[3];
                for (int i = 0; i < calls; i++) {
                    long[] one = call(store, request);
                    if (one[0] != series) {
                        throw new IllegalStateException("call " + i + " answered " + one[0] + " series, not " + series);
                    }
                    for (int k = 0; k < total.length; k++) {
                        total[k] += one[k];
                    }
                }
                long wall = System.nanoTime() - start;
                long serverCpu = cpuOfThreads("storeapi") - serverCpu0;
                long processCpu = OS.getProcessCpuTime() - processCpu0;
                System.out.printf("per call: %,d series, %,d chunks, %,d chunk bytes (%.1f bytes/sample)%n",
                        total[0] / calls, total[1] / calls, total[2] / calls, (double) total[2] / calls / filled.samples);
                System.out.printf("%d calls: %,d chunk bytes in %.3f s wall = %.3f GB/s of chunk bytes, %.1f ms/call, "
                                + "%,.0f series/s%n", calls, total[2], wall / 1e9, total[2] / (double) wall,
                        wall / 1e6 / calls, total[0] / (wall / 1e9));
                System.out.printf("CPU: server (storeapi threads) %.3f s = %.3f s per GB, client and the rest of the "
                                + "process %.3f s, total %.3f s = %.2f cores%n", serverCpu / 1e9, serverCpu / (double) total[2],
                        (processCpu - serverCpu) / 1e9, processCpu / 1e9, processCpu / (double) wall);
                serverCpuPerCall(serverCpu, calls, series);
                printThreads(threads0, processCpu);
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
                server.close();
            }
        }
    }

    /**
     * Runs the Go client against the server: it warms up, says "warm", measures once told to on stdin
     * and prints one {@code storeapi_client ...} line; the server's CPU is read around the measured part.
     */
    private static void goClient(String binary, String address, Process anchor, long minTime, long maxTime, int batch,
                                 int warmup, int calls, int series) throws Exception {
        Process p = new ProcessBuilder(binary, "-addr", address, "-min", Long.toString(minTime),
                "-max", Long.toString(maxTime), "-batch", Integer.toString(batch),
                "-warmup", Integer.toString(warmup), "-calls", Integer.toString(calls), "-handshake",
                "-window", Integer.toString(clientWindow))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             Writer in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
            String line = out.readLine();
            if (!"warm".equals(line)) {
                throw new IllegalStateException("the Go client did not warm up: " + line);
            }
            Map<Thread, Long> threads0 = cpuByThread();
            long serverCpu0 = anchor == null ? cpuOfThreads("storeapi") : cpuOfProcess(anchor);
            long processCpu0 = OS.getProcessCpuTime();
            in.write("go\n");
            in.flush();
            line = out.readLine();
            long serverCpu = (anchor == null ? cpuOfThreads("storeapi") : cpuOfProcess(anchor)) - serverCpu0;
            long processCpu = OS.getProcessCpuTime() - processCpu0;
            if (line == null || !line.startsWith("storeapi_client ")) {
                throw new IllegalStateException("the Go client answered " + line);
            }
            Map<String, String> r = new HashMap<>();
            for (String kv : line.substring("storeapi_client ".length()).split(" ")) {
                String[] parts = kv.split("=", 2);
                r.put(parts[0], parts[1]);
            }
            long got = Long.parseLong(r.get("series"));
            if (got != (long) series * calls) {
                throw new IllegalStateException("the Go client received " + got + " series, not " + (long) series * calls);
            }
            long bytes = Long.parseLong(r.get("chunk_bytes"));
            double wall = Double.parseDouble(r.get("wall_s"));
            double clientCpu = Double.parseDouble(r.get("cpu_s"));
            System.out.printf("per call: %,d series, %,d chunks, %,d chunk bytes%n", got / calls,
                    Long.parseLong(r.get("chunks")) / calls, bytes / calls);
            System.out.printf("%d calls: %,d chunk bytes in %.3f s wall = %.3f GB/s of chunk bytes, %.1f ms/call%n",
                    calls, bytes, wall, bytes / wall / 1e9, wall * 1e3 / calls);
            if (anchor != null) {
                System.out.printf("CPU: Go anchor server %.3f s = %.3f s per GB, Go client %.3f s = %.3f s per GB%n",
                        serverCpu / 1e9, serverCpu / 1e9 / (bytes / 1e9), clientCpu, clientCpu / (bytes / 1e9));
                return;
            }
            System.out.printf("CPU: server (storeapi threads) %.3f s = %.3f s per GB, rest of the server JVM %.3f s, "
                            + "Go client %.3f s = %.3f s per GB%n", serverCpu / 1e9, serverCpu / 1e9 / (bytes / 1e9),
                    (processCpu - serverCpu) / 1e9, clientCpu, clientCpu / (bytes / 1e9));
            serverCpuPerCall(serverCpu, calls, series);
            printThreads(threads0, processCpu);
        } finally {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    /**
     * Starts {@code benchmarks/anchors/storeapi-server}: it records the answer of Sluice's server for
     * the same request, then serves it from Go.
     */
    private static Process startAnchor(String binary, int port, long minTime, long maxTime, int batch) throws Exception {
        return new ProcessBuilder(binary, "-from", "127.0.0.1:" + port, "-min", Long.toString(minTime),
                "-max", Long.toString(maxTime), "-batch", Integer.toString(batch))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** The anchor's address, from its {@code listening ADDR responses=N bytes=B} line. */
    private static String anchorAddress(Process anchor) throws Exception {
        String line = new BufferedReader(new InputStreamReader(anchor.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (line == null || !line.startsWith("listening ")) {
            throw new IllegalStateException("the Go anchor server did not start: " + line);
        }
        System.out.println("Go anchor server " + line);
        return line.split(" ")[1];
    }

    /** User + system CPU nanoseconds of another process so far (Linux: /proc/PID/stat, in clock ticks of 10 ms). */
    private static long cpuOfProcess(Process p) throws java.io.IOException {
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(p.pid()), "stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
    }

    private static void serverCpuPerCall(long serverCpuNanos, int calls, int series) {
        System.out.printf("server CPU per call: %.2f ms = %.2f us per series%n", serverCpuNanos / 1e6 / calls,
                serverCpuNanos / 1e3 / calls / series);
    }

    /** One Series call read to its end: {series, chunks, raw chunk bytes}. */
    private static long[] call(StoreGrpc.StoreBlockingStub store, SeriesRequest request) {
        long[] out = new long[3];
        for (Iterator<SeriesResponse> it = store.series(request); it.hasNext(); ) {
            SeriesResponse r = it.next();
            if (r.hasSeries()) {
                count(r.getSeries(), out);
            } else if (r.hasBatch()) {
                for (Series s : r.getBatch().getSeriesList()) {
                    count(s, out);
                }
            }
        }
        return out;
    }

    private static void count(Series s, long[] out) {
        out[0]++;
        for (AggrChunk c : s.getChunksList()) {
            out[1]++;
            out[2] += c.getRaw().getData().size();
        }
    }

    private static String arg(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--" + name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    private static Map<String, Long> NATIVE_BEFORE = Map.of();

    /** utime + stime ticks of the JVM's own threads (GC, JIT: no Java Thread), by name, from /proc. */
    private static Map<String, Long> nativeThreadTicks() {
        Map<String, Long> ticks = new java.util.TreeMap<>();
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (java.nio.file.Path task : tasks.toList()) {
                try {
                    String stat = java.nio.file.Files.readString(task.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    ticks.merge(name.replaceAll("[0-9]+$", "#"), Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
                } catch (java.io.IOException | RuntimeException e) {
                    // the thread ended
                }
            }
        } catch (java.io.IOException e) {
            return Map.of();
        }
        return ticks;
    }

    /** CPU nanoseconds used so far by each live thread. */
    private static Map<Thread, Long> cpuByThread() {
        NATIVE_BEFORE = nativeThreadTicks();
        Map<Thread, Long> cpu = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            cpu.put(t, Math.max(0, THREADS.getThreadCpuTime(t.threadId())));
        }
        return cpu;
    }

    /**
     * The threads that used at least 2 % of the process' CPU since {@code before}, most first; the
     * rest (GC, JIT, threads that ended) as one figure.
     */
    private static void printThreads(Map<Thread, Long> before, long processCpuNanos) {
        Map<String, Long> nativeBefore = NATIVE_BEFORE;
        Map<Thread, Long> after = cpuByThread();
        StringBuilder line = new StringBuilder("CPU by thread:");
        long named = 0;
        for (Map.Entry<Thread, Long> e : after.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue() - before.getOrDefault(b.getKey(), 0L),
                        a.getValue() - before.getOrDefault(a.getKey(), 0L))).toList()) {
            long used = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            named += used;
            if (used * 50 >= processCpuNanos) {
                line.append(String.format(" %s %.3f s,", e.getKey().getName(), used / 1e9));
            }
        }
        line.append(String.format(" GC, JIT and the rest %.3f s", (processCpuNanos - named) / 1e9));
        System.out.println(line);
        StringBuilder rest = new StringBuilder("of which (/proc, 10 ms ticks):");
        NATIVE_BEFORE.forEach((name, ticks) -> {
            long used = ticks - nativeBefore.getOrDefault(name, 0L);
            if (used >= 5) {
                rest.append(' ').append(name).append(' ').append(used).append(',');
            }
        });
        System.out.println(rest);
    }

    /** CPU nanoseconds used so far by every live thread whose name starts with {@code prefix}. */
    private static long cpuOfThreads(String prefix) {
        long total = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix)) {
                total += Math.max(0, THREADS.getThreadCpuTime(t.threadId()));
            }
        }
        return total;
    }
}
