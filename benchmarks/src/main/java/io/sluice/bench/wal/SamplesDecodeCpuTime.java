package io.sluice.bench.wal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.LongSupplier;

/**
 * {@link SamplesDecodeBenchmark}'s two methods timed by the thread's CPU time instead of the wall
 * clock: on a shared 2-core machine (load 10–20) JMH's wall-clock figures for this benchmark spread by
 * ±50–200 %, while CPU time per sample stays within ~10 %. Not a substitute for JMH on a calm machine;
 * a way to compare two builds back to back on a busy one.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.bench.wal.SamplesDecodeCpuTime [rounds]</pre>
 *
 * Prints, per method, CPU ns per sample for each of {@code rounds} (default 10) rounds of 100
 * invocations, after 300 invocations of warm-up.
 */
public final class SamplesDecodeCpuTime {
    private SamplesDecodeCpuTime() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        SamplesDecodeBenchmark benchmark = new SamplesDecodeBenchmark();
        benchmark.setUp();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        report("decodeAll", benchmark::decodeAll, rounds, threads);
        report("next", benchmark::next, rounds, threads);
    }

    private static void report(String name, LongSupplier method, int rounds, ThreadMXBean threads) {
        long sink = 0;
        for (int i = 0; i < 300; i++) {
            sink += method.getAsLong();
        }
        StringBuilder line = new StringBuilder(name).append(": CPU ns/sample");
        for (int round = 0; round < rounds; round++) {
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < 100; i++) {
                sink += method.getAsLong();
            }
            double nsPerSample = (threads.getCurrentThreadCpuTime() - start) / (100.0 * SamplesDecodeBenchmark.SAMPLES);
            line.append(String.format(" %.2f", nsPerSample));
        }
        System.out.println(line.append("  (checksum ").append(sink & 0xFF).append(')'));
    }
}
