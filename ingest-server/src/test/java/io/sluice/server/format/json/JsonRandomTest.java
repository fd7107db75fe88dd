package io.sluice.server.format.json;

import static io.sluice.server.format.json.JsonDecoderTest.sample;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.Corruption;
import io.sluice.server.format.DecimalParser;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.RecordingSink;
import io.sluice.server.format.SpecialValues;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Seeded random objects as prometheus-kafka-adapter writes them (Go's FormatFloat 'f' values, RFC 3339
 * times), with random escaping, decode to exactly their sample; corrupted objects are rejected, never
 * thrown past the decoder as another exception.
 */
class JsonRandomTest {
    private static final long SEED = 0x15_0B1EL;
    private static final DateTimeFormatter[] FORMATS = {
        DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssXXX"),
        DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX"),
        DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSSXXX"),
    };

    private final JsonDecoder decoder = new JsonDecoder(DecoderLimits.DEFAULTS);

    private record Case(String json, List<String> events) {
    }

    @Test
    void seededRandomObjectsDecodeToTheirSample() throws PayloadException {
        Random random = new Random(SEED);
        for (int i = 0; i < 5000; i++) {
            Case c = randomCase(random);
            byte[] record = c.json().getBytes(StandardCharsets.UTF_8);
            RecordingSink sink = new RecordingSink();
            decoder.decode(record, 0, record.length, 0, sink);
            assertThat(sink.events()).as("case %d, seed %x: %s", i, SEED, c.json()).isEqualTo(c.events());
        }
    }

    @Test
    void seededRandomCorruptionIsRejectedOrDecodedNeverThrownOtherwise() {
        Random random = new Random(SEED + 1);
        int rejected = 0;
        for (int i = 0; i < 5000; i++) {
            byte[] record = randomCase(random).json().getBytes(StandardCharsets.UTF_8);
            Corruption.flip(random, record);
            rejected += Corruption.rejects(decoder, record, "case " + i + ", seed " + SEED) ? 1 : 0;
        }
        assertThat(rejected).as("seed %x", SEED).isGreaterThan(3000);
    }

    private static Case randomCase(Random random) {
        List<String> labels = new ArrayList<>();
        StringBuilder labelsJson = new StringBuilder("{");
        String name = "metric_" + random.nextInt(50);
        boolean nameInLabels = random.nextBoolean();
        if (nameInLabels) {
            labels.add("__name__");
            labels.add(name);
            labelsJson.append("\"__name__\":").append(quote(name, random));
        }
        for (int l = random.nextInt(random.nextInt(10) == 0 ? 100 : 8); l > 0; l--) {
            String key = SpecialValues.text(random) + "\"\\/\n\t\u0001é" + l;
            String value = SpecialValues.text(random);
            labels.add(key);
            labels.add(value);
            labelsJson.append(labelsJson.length() > 1 ? "," : "").append(quote(key, random)).append(':').append(quote(value, random));
        }
        labelsJson.append('}');
        if (!nameInLabels) {
            labels.add(0, name);
            labels.add(0, "__name__");
        }
        long timestampMs = random.nextInt(3) == 0 ? random.nextLong(-62_135_596_800_000L, 253_370_000_000_000L)
                : 1_763_800_000_000L + random.nextInt(1_000_000_000);
        DateTimeFormatter format = FORMATS[random.nextInt(FORMATS.length)];
        ZoneOffset offset = ZoneOffset.ofTotalSeconds((random.nextInt(49) - 24) * 1800);
        String timestamp = format.format(Instant.ofEpochMilli(timestampMs).atOffset(offset));
        long expectedMs = format == FORMATS[0] ? Math.floorDiv(timestampMs, 1000L) * 1000 : timestampMs;
        double value = SpecialValues.value(random);
        long valueBits = Double.isNaN(value) ? DecimalParser.NAN_BITS : Double.doubleToRawLongBits(value);
        List<String> members = new ArrayList<>(List.of(
                "\"timestamp\":\"" + timestamp + "\"",
                "\"value\":\"" + goFormat(value) + "\"",
                "\"name\":" + quote(name, random),
                "\"labels\":" + labelsJson,
                "\"unknown\":[{\"a\":1.5e-3},null,true]"));
        Collections.shuffle(members, random);
        String json = "{" + String.join(random.nextBoolean() ? "," : " ,\n ", members) + "}";
        return new Case(json, sample(labels.toArray(String[]::new), expectedMs, valueBits));
    }

    /** Go's strconv.FormatFloat(v, 'f', -1, 64): shortest digits, never an exponent. */
    static String goFormat(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        String plain = new BigDecimal(Double.toString(Math.abs(v))).stripTrailingZeros().toPlainString();
        return (Double.doubleToRawLongBits(v) < 0 ? "-" : "") + plain;
    }

    /** A JSON string: escapes what must be escaped, and randomly escapes other characters as \\uXXXX too. */
    private static String quote(String text, Random random) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean pair = Character.isHighSurrogate(c);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || random.nextInt(8) == 0) {
                out.append(String.format("\\u%04x", (int) c));
                if (pair) {
                    out.append(String.format("\\u%04x", (int) text.charAt(++i)));
                }
            } else {
                out.append(c);
                if (pair) {
                    out.append(text.charAt(++i));
                }
            }
        }
        return out.append('"').toString();
    }
}
