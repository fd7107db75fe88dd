package io.sluice.e2e;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Reads back everything a server stores into a {@link SampleTally}, two ways:
 * <ul>
 *   <li>{@link #export}: {@code GET /api/v1/export?match[]={__name__=~".+"}} of the running server,
 *       JSON lines {@code {"metric":{...},"values":[...],"timestamps":[...]}} (what queries see);</li>
 *   <li>{@link #replay}: the stopped server's data directory opened by a {@link Head} in this JVM,
 *       which replays the same WALs with the same code a restart runs (what a restart would see).</li>
 * </ul>
 */
final class StoredSamples {
    static final String EXPORT_PATH = "/api/v1/export?match[]="
            + URLEncoder.encode("{__name__=~\".+\"}", StandardCharsets.UTF_8);

    private StoredSamples() {
    }

    /** Tallies what the running {@code server} answers on the export endpoint. */
    static void export(ServerProcess server, SampleTally tally) throws IOException {
        HttpResponse<String> r = server.get(EXPORT_PATH);
        if (r.statusCode() != 200) {
            throw new AssertionError("export answered " + r.statusCode() + ": " + r.body());
        }
        parseExport(r.body(), tally);
    }

    /** Parses export JSON lines; only the {@code series} label and the two arrays matter here. */
    static void parseExport(String body, SampleTally tally) {
        for (String line : body.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String series = stringField(line, "series");
            String[] values = array(line, "values");
            String[] timestamps = array(line, "timestamps");
            if (values.length != timestamps.length) {
                throw new AssertionError("values and timestamps differ in length: " + line);
            }
            for (int i = 0; i < values.length; i++) {
                tally.add(series, Long.parseLong(timestamps[i]), parseValue(values[i]));
            }
        }
    }

    private static String stringField(String line, String name) {
        String key = "\"" + name + "\":\"";
        int start = line.indexOf(key);
        if (start < 0) {
            return null;
        }
        start += key.length();
        return line.substring(start, line.indexOf('"', start));
    }

    private static String[] array(String line, String name) {
        String key = "\"" + name + "\":[";
        int start = line.indexOf(key);
        if (start < 0) {
            throw new AssertionError("no " + name + " array in export line: " + line);
        }
        start += key.length();
        String inner = line.substring(start, line.indexOf(']', start)).strip();
        return inner.isEmpty() ? new String[0] : inner.split(",");
    }

    /** A JSON number, or a string such as "NaN" or "+Inf" (how Prometheus spells the specials). */
    private static double parseValue(String text) {
        String t = text.strip();
        if (t.startsWith("\"")) {
            t = t.substring(1, t.length() - 1);
            return switch (t) {
                case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                default -> Double.parseDouble(t);
            };
        }
        return Double.parseDouble(t);
    }

    /** Replays the stopped server's WALs in this JVM and tallies every sample of every series. */
    static void replay(Path dataDir, int shards, SampleTally tally) throws IOException {
        HeadOptions options = HeadOptions.defaults(dataDir).withShards(shards).withPerShard(s -> s.withWalSegmentBytes(64 << 10));
        try (Head head = new Head(options, new StreamRegistry(), new MemoryAccounting())) {
            head.start();
            HeadQuery q = head.query(Long.MIN_VALUE, Long.MAX_VALUE, Matcher.re("__name__", ".+"));
            while (q.next()) {
                String series = q.labels().get("series");
                for (SeriesSnapshot.Samples s = q.samples(); s.next(); ) {
                    tally.add(series, s.timestampMs(), Double.longBitsToDouble(s.valueBits()));
                }
            }
        }
    }
}
