package io.sluice.server.format.influx;

import static io.sluice.server.format.influx.InfluxDecoderTest.series;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.SpecialValues;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded random batches written by a line-protocol writer that escapes as Telegraf does, decoded back
 * to exactly the series they describe; cut and corrupted batches never make the decoder throw.
 */
class InfluxRandomTest {
    private static final long SEED = 0x1F1_0C0L;
    private static final long RECORD_MS = 1_763_800_000_000L;
    private static final String[] PIECES = {"cpu", "host", "a b", "x,y", "k=v", "back\\slash", "#hash", "\"q\"", "grüße",
        "标签", "🙂", "_", "0", "usage.idle", "é"};
    private static final String[] TRUE = {"t", "T", "true", "True", "TRUE"};
    private static final String[] FALSE = {"f", "F", "false", "False", "FALSE"};

    private final InfluxDecoder decoder = new InfluxDecoder(DecoderLimits.DEFAULTS);

    /** One line: its text and the series it must produce. */
    private record Line(String text, List<String> events) {
    }

    @Test
    void seededRandomBatchesDecodeToTheSeriesTheyDescribe() throws PayloadException {
        Random random = new Random(SEED);
        long samples = 0;
        for (int batch = 0; batch < 400; batch++) {
            StringBuilder text = new StringBuilder();
            List<String> expected = new ArrayList<>();
            for (int l = random.nextInt(20); l >= 0; l--) {
                Line line = randomLine(random);
                text.append(line.text()).append(random.nextInt(5) == 0 ? "\r\n" : "\n");
                expected.addAll(line.events());
                if (random.nextInt(6) == 0) {
                    text.append(random.nextBoolean() ? "# comment, with = signs and \"quotes\"\n" : "  \n");
                }
            }
            byte[] record = text.toString().getBytes(StandardCharsets.UTF_8);
            RecordingSink sink = new RecordingSink();
            decoder.decode(record, 0, record.length, RECORD_MS, sink);
            assertThat(sink.events()).as("batch %d, seed %x:%n%s", batch, SEED, text).isEqualTo(expected);
            samples += expected.stream().filter(e -> e.startsWith("sample")).count();
        }
        assertThat(decoder.linesRejectedTotal()).isZero();
        assertThat(samples).as("the batches carry samples").isGreaterThan(5_000);
    }

    @Test
    void aBatchCutAtEveryByteKeepsEveryLineBeforeTheCut() throws PayloadException {
        Random random = new Random(SEED + 1);
        List<Line> lines = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        List<Integer> lineEnds = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Line line = randomLine(random);
            lines.add(line);
            text.append(line.text()).append('\n');
            lineEnds.add(text.toString().getBytes(StandardCharsets.UTF_8).length);
        }
        byte[] whole = text.toString().getBytes(StandardCharsets.UTF_8);
        for (int cut = 0; cut <= whole.length; cut++) {
            RecordingSink sink = new RecordingSink();
            decoder.decode(whole, 0, cut, RECORD_MS, sink);
            List<String> complete = new ArrayList<>();
            int l = 0;
            while (l < lines.size() && lineEnds.get(l) <= cut) {
                complete.addAll(lines.get(l++).events());
            }
            assertThat(sink.events().subList(0, Math.min(complete.size(), sink.events().size())))
                    .as("cut %d", cut).isEqualTo(complete);
            int cutLineEvents = l < lines.size() ? lines.get(l).events().size() : 0;
            assertThat(sink.events().size()).as("cut %d", cut).isBetween(complete.size(), complete.size() + cutLineEvents);
        }
    }

    @Test
    void seededRandomCorruptionNeverEscapesAsAnException() throws PayloadException {
        Random random = new Random(SEED + 2);
        for (int i = 0; i < 2000; i++) {
            StringBuilder text = new StringBuilder();
            for (int l = 1 + random.nextInt(5); l > 0; l--) {
                text.append(randomLine(random).text()).append('\n');
            }
            byte[] record = text.toString().getBytes(StandardCharsets.UTF_8);
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                record[random.nextInt(record.length)] = (byte) random.nextInt(256);
            }
            decoder.decode(record, 0, record.length, RECORD_MS, new RecordingSink());
        }
        assertThat(decoder.linesRejectedTotal()).as("seed %x", SEED).isGreaterThan(1000);
    }

    private static Line randomLine(Random random) {
        String measurement = randomText(random);
        if (measurement.startsWith("#")) {
            measurement = "m" + measurement;
        }
        StringBuilder text = new StringBuilder(escape(measurement, ", "));
        List<String> tags = new ArrayList<>();
        int tagCount = random.nextInt(6) == 0 ? 40 + random.nextInt(40) : random.nextInt(5);
        for (int t = 0; t < tagCount; t++) {
            String key = randomText(random) + "_" + t; // unique keys
            String value = randomText(random);
            tags.add(key);
            tags.add(value);
            text.append(',').append(escape(key, ",= ")).append('=').append(escape(value, ",= "));
        }
        text.append(' ');
        List<String> events = new ArrayList<>();
        boolean hasTimestamp = random.nextInt(4) != 0;
        long timestampNs = random.nextInt(3) == 0 ? random.nextLong() : RECORD_MS * 1_000_000 + random.nextInt(1_000_000_000);
        long timestampMs = hasTimestamp ? Math.floorDiv(timestampNs, 1_000_000L) : RECORD_MS;
        int fields = 1 + random.nextInt(4);
        for (int f = 0; f < fields; f++) {
            String key = randomText(random);
            text.append(f > 0 ? "," : "").append(escape(key, ",= ")).append('=');
            double value = appendValue(random, text);
            if (!Double.isNaN(value)) {
                events.addAll(series(measurement + "_" + key, tags.toArray(String[]::new), timestampMs, value));
            }
        }
        if (hasTimestamp) {
            text.append(" ".repeat(1 + random.nextInt(2))).append(timestampNs);
        }
        return new Line(text.toString(), events);
    }

    /** Writes a random field value; returns the sample it must become, or NaN for a (skipped) string field. */
    private static double appendValue(Random random, StringBuilder text) {
        switch (random.nextInt(5)) {
            case 0 -> {
                long v = random.nextLong() >> random.nextInt(64);
                text.append(v).append('i');
                return v;
            }
            case 1 -> {
                long v = random.nextLong() >>> random.nextInt(64);
                text.append(Long.toUnsignedString(v)).append('u');
                return v >= 0 ? v : new BigDecimal(Long.toUnsignedString(v)).doubleValue();
            }
            case 2 -> {
                boolean v = random.nextBoolean();
                text.append((v ? TRUE : FALSE)[random.nextInt(5)]);
                return v ? 1 : 0;
            }
            case 3 -> {
                text.append('"').append(randomText(random).replace("\\", "\\\\").replace("\"", "\\\"")).append("\n\"");
                return Double.NaN;
            }
            default -> {
                double v;
                do {
                    v = SpecialValues.value(random);
                } while (Double.isNaN(v) || Double.isInfinite(v));
                text.append(switch (random.nextInt(3)) {
                    case 0 -> Double.toString(v);
                    case 1 -> String.format(Locale.ROOT, "%.17e", v);
                    default -> Math.abs(v) < 1e30 && Math.abs(v) > 1e-30 ? new BigDecimal(v).toPlainString() : Double.toString(v);
                });
                return v;
            }
        }
    }

    /** One to four pieces; never ends with a backslash, which would escape the separator after it. */
    private static String randomText(Random random) {
        StringBuilder text = new StringBuilder();
        for (int i = 1 + random.nextInt(4); i > 0; i--) {
            text.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return text.toString();
    }

    /** Telegraf's escaping: a backslash before each of {@code special}. */
    private static String escape(String raw, String special) {
        StringBuilder out = new StringBuilder();
        for (char c : raw.toCharArray()) {
            if (special.indexOf(c) >= 0) {
                out.append('\\');
            }
            out.append(c);
        }
        return out.toString();
    }

    @Test
    void theWriterHereEscapesLikeTheDocumentedRules() {
        assertThat(escape("a b,c=d", ",= ")).isEqualTo("a\\ b\\,c\\=d");
        assertThat(escape("a b,c=d", ", ")).isEqualTo("a\\ b\\,c=d");
        assertThat(Arrays.asList(PIECES)).noneMatch(p -> p.endsWith("\\"));
    }
}
