package io.sluice.bench.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Compares two JMH JSON result files (a committed baseline and a fresh run) benchmark by benchmark
 * (name + parameters + mode): the score, and the allocation per operation ({@code gc.alloc.rate.norm})
 * when both have it. A change is a regression when it is worse by more than the threshold: a larger
 * time per op (avgt, sample, ss), a smaller throughput (thrpt), or more bytes per op (and more than
 * {@value #ALLOC_NOISE_BYTES} B/op more: below that it is JMH's own noise). Informational: speed on
 * a shared machine moves by 2–3× (BENCHMARKS.md), so CI prints the report and never fails on it.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.bench.check.RegressionCheck BASELINE.json CURRENT.json [--threshold 15] [--ci]
 * </pre>
 * Exit status: 0 without regressions or with --ci; 3 with regressions; 2 for unusable input.
 */
public final class RegressionCheck {
    static final double ALLOC_NOISE_BYTES = 1.0;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One benchmark's figures in one file. */
    record Result(String key, String mode, double score, String unit, double allocBytesPerOp) {
    }

    /** One line of the report. */
    record Finding(String key, String what, double baseline, double current, String unit, double changePercent, boolean isRegression) {
        String line() {
            return String.format(Locale.ROOT, "%-10s %-70s %-6s %,14.3f -> %,14.3f %-8s (%+.1f %%)",
                    isRegression ? "REGRESSION" : changePercent == 0 ? "same" : "ok", key, what, baseline, current, unit, changePercent);
        }
    }

    /** The comparison: findings for benchmarks in both files, and those only in one. */
    record Report(List<Finding> findings, List<String> onlyInBaseline, List<String> onlyInCurrent, double thresholdPercent) {
        List<Finding> regressions() {
            return findings.stream().filter(Finding::isRegression).toList();
        }

        String text() {
            StringBuilder sb = new StringBuilder();
            sb.append(String.format(Locale.ROOT, "%d benchmark figure(s) compared, threshold %.0f %%: %d regression(s)%n",
                    findings.size(), thresholdPercent, regressions().size()));
            // regressions first: the lines someone reading a CI log is looking for
            regressions().forEach(f -> sb.append(f.line()).append('\n'));
            findings.stream().filter(f -> !f.isRegression()).forEach(f -> sb.append(f.line()).append('\n'));
            onlyInBaseline.forEach(k -> sb.append("missing    ").append(k).append(" (in the baseline, not in this run)\n"));
            onlyInCurrent.forEach(k -> sb.append("new        ").append(k).append(" (not in the baseline)\n"));
            return sb.toString();
        }
    }

    private RegressionCheck() {
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: RegressionCheck BASELINE.json CURRENT.json [--threshold PERCENT] [--ci]");
            System.exit(2);
        }
        double threshold = 15;
        boolean ci = false;
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "--ci" -> ci = true;
                case "--threshold" -> threshold = Double.parseDouble(args[++i]);
                default -> {
                    System.err.println("unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        Report report;
        try {
            report = compare(read(Path.of(args[0])), read(Path.of(args[1])), threshold);
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("regression check: " + e.getMessage());
            System.exit(ci ? 0 : 2);
            return;
        }
        System.out.print(report.text());
        System.exit(!ci && !report.regressions().isEmpty() ? 3 : 0);
    }

    /** The results of a JMH JSON file by key (benchmark, sorted parameters, mode). */
    static Map<String, Result> read(Path file) throws IOException {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (IOException e) {
            throw new IOException(file + " is not readable JMH JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException(file + " is not a JMH JSON result (an array expected)");
        }
        Map<String, Result> out = new LinkedHashMap<>();
        for (JsonNode run : root) {
            String mode = run.path("mode").asText();
            String key = key(run);
            JsonNode primary = run.path("primaryMetric");
            JsonNode alloc = run.path("secondaryMetrics").path("gc.alloc.rate.norm");
            out.put(key, new Result(key, mode, primary.path("score").asDouble(), primary.path("scoreUnit").asText(),
                    alloc.isMissingNode() ? Double.NaN : alloc.path("score").asDouble()));
        }
        return out;
    }

    private static String key(JsonNode run) {
        String name = run.path("benchmark").asText().replaceFirst("^io\\.sluice\\.bench\\.", "");
        Map<String, String> params = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = run.path("params").properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            params.put(e.getKey(), e.getValue().asText());
        }
        return params.isEmpty() ? name : name + params.toString().replace('{', '[').replace('}', ']').replace(", ", ",");
    }

    /** Compares {@code current} against {@code baseline}; pure, for tests. */
    static Report compare(Map<String, Result> baseline, Map<String, Result> current, double thresholdPercent) {
        List<Finding> findings = new ArrayList<>();
        List<String> onlyInBaseline = new ArrayList<>();
        for (Result base : baseline.values()) {
            Result now = current.get(base.key());
            if (now == null) {
                onlyInBaseline.add(base.key());
                continue;
            }
            boolean higherIsBetter = base.mode().equals("thrpt");
            double change = percent(base.score(), now.score());
            double worse = higherIsBetter ? -change : change;
            findings.add(new Finding(base.key(), "score", base.score(), now.score(), now.unit(), change, worse > thresholdPercent));
            if (!Double.isNaN(base.allocBytesPerOp()) && !Double.isNaN(now.allocBytesPerOp())) {
                double allocChange = percent(base.allocBytesPerOp(), now.allocBytesPerOp());
                boolean more = now.allocBytesPerOp() - base.allocBytesPerOp() > ALLOC_NOISE_BYTES && allocChange > thresholdPercent;
                findings.add(new Finding(base.key(), "alloc", base.allocBytesPerOp(), now.allocBytesPerOp(), "B/op", allocChange, more));
            }
        }
        List<String> onlyInCurrent = current.keySet().stream().filter(k -> !baseline.containsKey(k)).toList();
        return new Report(findings, onlyInBaseline, onlyInCurrent, thresholdPercent);
    }

    private static double percent(double base, double now) {
        if (base == 0) {
            return now == 0 ? 0 : Double.POSITIVE_INFINITY;
        }
        return (now - base) / Math.abs(base) * 100;
    }
}
