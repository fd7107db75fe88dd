package io.sluice.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelsView;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice bench query-data} at test size: the Sluice data directory and the OpenMetrics file it writes hold
 * the same series with the same samples (what benchmarks/query-vs-prometheus.sh relies on to compare answers).
 */
class BenchQueryDataCommandTest {
    private static final Pattern LINE = Pattern.compile("([a-z_]+)\\{(.*)} (\\S+) (\\d+)");
    private static final Pattern PAIR = Pattern.compile("([a-z_]+)=\"([^\"]*)\"");

    @TempDir
    Path dir;

    @Test
    void theHeadAndTheOpenMetricsFileHoldTheSameSamples() throws IOException {
        Path om = dir.resolve("data.om");
        Map<String, List<String>> file = generate(om, dir.resolve("sluice"), 1);
        Set<Double> lastCounterValues = new HashSet<>();
        assertThat(readHead(dir.resolve("sluice"), lastCounterValues)).isEqualTo(file);
        assertThat(lastCounterValues).as("no two counters are equal (topk has no ties)").hasSize(30);
    }

    @Test
    void splitOverInstancesEverySeriesIsInExactlyOne() throws IOException {
        Path data = dir.resolve("sluice");
        Map<String, List<String>> file = generate(dir.resolve("data.om"), data, 3);
        Map<String, List<String>> union = new HashMap<>();
        for (int k = 0; k < 3; k++) {
            Map<String, List<String>> part = readHead(data.resolve("instance-" + k), new HashSet<>());
            assertThat(part).hasSizeBetween(23, 24);
            for (Map.Entry<String, List<String>> e : part.entrySet()) {
                assertThat(union.put(e.getKey(), e.getValue())).as("in one instance only: %s", e.getKey()).isNull();
            }
        }
        assertThat(union).isEqualTo(file);
    }

    /** Runs the command; the OpenMetrics file's samples per series ("t v" in file order). */
    private static Map<String, List<String>> generate(Path om, Path data, int instances) throws IOException {
        CliRun run = CliRun.run("bench", "query-data", "--series", "60", "--minutes", "10", "--dir", data.toString(),
                "--openmetrics", om.toString(), "--shards", "2", "--instances", Integer.toString(instances));
        assertThat(run.exitCode()).as(run.err()).isZero();
        if (instances == 1) {
            assertThat(run.out()).contains("70 series x 40 rounds = 2,800 samples");
        } else {
            assertThat(run.out()).contains("24 series x 40 rounds = 960 samples").contains("23 series x 40 rounds");
        }

        List<String> lines = Files.readAllLines(om);
        assertThat(lines.getLast()).isEqualTo("# EOF");
        Map<String, List<String>> file = new HashMap<>(); // series key -> "t v" in file order
        for (String line : lines.subList(0, lines.size() - 1)) {
            java.util.regex.Matcher m = LINE.matcher(line);
            assertThat(m.matches()).as(line).isTrue();
            TreeMap<String, String> labels = new TreeMap<>();
            labels.put("__name__", m.group(1));
            java.util.regex.Matcher p = PAIR.matcher(m.group(2));
            while (p.find()) {
                labels.put(p.group(1), p.group(2));
            }
            file.computeIfAbsent(labels.toString(), k -> new ArrayList<>())
                    .add(Long.parseLong(m.group(4)) * 1000 + " " + Double.parseDouble(m.group(3)));
        }
        assertThat(file).hasSize(70);
        assertThat(file.keySet()).filteredOn(k -> k.contains("__name__=h_bucket")).hasSize(30)
                .anyMatch(k -> k.contains("le=+Inf"));
        assertThat(file.keySet()).filteredOn(k -> k.contains("__name__=info")).hasSize(10);

        return file;
    }

    /** Every series of a data directory with its samples ("t v"); the last value of each counter x into {@code lastCounterValues}. */
    private static Map<String, List<String>> readHead(Path data, Set<Double> lastCounterValues) throws IOException {
        Map<String, List<String>> head = new HashMap<>();
        try (Head h = new Head(HeadOptions.defaults(data).withShards(2), new StreamRegistry(), new MemoryAccounting())) {
            h.start();
            HeadQuery query = h.query(Long.MIN_VALUE, Long.MAX_VALUE, Matcher.re("__name__", ".+"));
            while (query.next()) {
                TreeMap<String, String> labels = new TreeMap<>();
                LabelsView view = query.labels();
                view.rewind();
                while (view.next()) {
                    labels.put(view.name(), view.value());
                }
                List<String> samples = new ArrayList<>();
                double last = Double.NaN;
                for (SeriesSnapshot.Samples it = query.samples(); it.next(); ) {
                    samples.add(it.timestampMs() + " " + it.value());
                    if (labels.get("__name__").equals("x")) {
                        assertThat(it.value()).as("a counter never decreases").isGreaterThanOrEqualTo(Double.isNaN(last) ? 0 : last);
                    }
                    last = it.value();
                }
                if (labels.get("__name__").equals("x")) {
                    lastCounterValues.add(last);
                }
                head.put(labels.toString(), samples);
            }
        }
        return head;
    }
}
