package io.sluice.bench.e2e;

import java.nio.file.Path;
import java.util.Locale;

/**
 * One end-to-end run: a prefill of {@code prefillSamples} that the service drains (max rate), then
 * {@code sustainSeconds} at {@code rateSamplesPerSecond} while the producer runs, replacing
 * {@code churnSeriesPerSecond} of the active series by new ones. Presets are the scenarios;
 * {@code scale} multiplies series, samples and rates (0.01 for a quick look, 0.0005 in the smoke test).
 *
 * @param bootstrapServers null = an embedded broker in this JVM (it shares the CPU and shows in RSS)
 */
public record E2eConfig(String preset, int series, long prefillSamples, double rateSamplesPerSecond,
                        long sustainSeconds, double churnSeriesPerSecond, int partitions, int shards,
                        int consumerThreads, String bootstrapServers, Path workDir, Path outDir) {

    public E2eConfig {
        if (series < 1 || prefillSamples < 0 || rateSamplesPerSecond < 0 || sustainSeconds < 0 || churnSeriesPerSecond < 0) {
            throw new IllegalArgumentException("series >= 1, samples, rate, seconds and churn >= 0 expected");
        }
        if (partitions < 1 || shards < 1 || consumerThreads < 1) {
            throw new IllegalArgumentException("partitions, shards and consumer threads must be at least 1");
        }
    }

    /**
     * A preset at a scale: {@code max-rate} (a) 100k series, 20 M samples to drain, then 30 s at
     * 1 M samples/s; {@code percona} (b) 1.7 M series, one scrape of each to drain, then 120 s at
     * 380k samples/s; {@code churn} (c) 200k series, 4 M to drain, then 120 s at 200k samples/s
     * replacing 1 M series per 10 minutes (1,667/s).
     */
    public static E2eConfig preset(String name, double scale) {
        int cores = Runtime.getRuntime().availableProcessors();
        return switch (name) {
            case "max-rate" -> new E2eConfig(name, scaled(100_000, scale), scaledLong(20_000_000, scale),
                    1_000_000 * scale, 30, 0, 4, cores, 1, null, null, null);
            case "percona" -> new E2eConfig(name, scaled(1_700_000, scale), scaledLong(1_700_000, scale),
                    380_000 * scale, 120, 0, 8, cores, 1, null, null, null);
            case "churn" -> new E2eConfig(name, scaled(200_000, scale), scaledLong(4_000_000, scale),
                    200_000 * scale, 120, 1_000_000 / 600.0 * scale, 4, cores, 1, null, null, null);
            default -> throw new IllegalArgumentException("preset must be max-rate, percona or churn, not " + name);
        };
    }

    private static int scaled(int n, double scale) {
        return (int) Math.max(1, Math.round(n * scale));
    }

    private static long scaledLong(long n, double scale) {
        return Math.max(1, Math.round(n * scale));
    }

    /** The preset named by {@code --preset} (default max-rate) at {@code --scale}, each field overridable by its flag. */
    public static E2eConfig parse(String[] args) {
        Args a = new Args(args);
        E2eConfig p = preset(a.get("preset", "max-rate"), Double.parseDouble(a.get("scale", "1")));
        return new E2eConfig(p.preset,
                Integer.parseInt(a.get("series", Integer.toString(p.series))),
                Long.parseLong(a.get("prefill-samples", Long.toString(p.prefillSamples))),
                Double.parseDouble(a.get("rate", Double.toString(p.rateSamplesPerSecond))),
                Long.parseLong(a.get("seconds", Long.toString(p.sustainSeconds))),
                Double.parseDouble(a.get("churn-per-second", Double.toString(p.churnSeriesPerSecond))),
                Integer.parseInt(a.get("partitions", Integer.toString(p.partitions))),
                Integer.parseInt(a.get("shards", Integer.toString(p.shards))),
                Integer.parseInt(a.get("consumer-threads", Integer.toString(p.consumerThreads))),
                a.get("bootstrap-servers", null),
                a.has("dir") ? Path.of(a.get("dir", null)) : null,
                Path.of(a.get("out", "benchmarks/results/e2e")));
    }

    /** The file-name stem of this run's outputs: preset, series, rate. */
    public String runName() {
        return String.format(Locale.ROOT, "%s-%dseries-%drate", preset, series, Math.round(rateSamplesPerSecond));
    }

    /** {@code --name value} pairs; unknown names are refused in one line. */
    private record Args(String[] args) {
        private static final java.util.Set<String> KNOWN = java.util.Set.of("preset", "scale", "series", "prefill-samples",
                "rate", "seconds", "churn-per-second", "partitions", "shards", "consumer-threads", "bootstrap-servers", "dir", "out");

        Args {
            for (int i = 0; i < args.length; i += 2) {
                String name = args[i].startsWith("--") ? args[i].substring(2) : null;
                if (name == null || !KNOWN.contains(name) || i + 1 >= args.length) {
                    throw new IllegalArgumentException("unknown or incomplete option " + args[i] + " (options: --" + String.join(" --", KNOWN.stream().sorted().toList()) + ")");
                }
            }
        }

        boolean has(String name) {
            return get(name, null) != null;
        }

        String get(String name, String fallback) {
            for (int i = 0; i + 1 < args.length; i += 2) {
                if (args[i].equals("--" + name)) {
                    return args[i + 1];
                }
            }
            return fallback;
        }
    }
}
