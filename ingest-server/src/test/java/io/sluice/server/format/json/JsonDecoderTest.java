package io.sluice.server.format.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.sluice.server.format.DecimalParser;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadException.Reason;
import io.sluice.server.format.RecordingSink;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** prometheus-kafka-adapter's JSON: values, timestamps, escapes, member order, and malformed objects. */
class JsonDecoderTest {
    private static final long JAN_2020_MS = 1_577_836_800_000L;

    private final JsonDecoder decoder = new JsonDecoder(DecoderLimits.DEFAULTS);

    private List<String> decode(String json) throws PayloadException {
        return decode(json.getBytes(StandardCharsets.UTF_8));
    }

    private List<String> decode(byte[] record) throws PayloadException {
        RecordingSink sink = new RecordingSink();
        decoder.decode(record, 0, record.length, 0, sink);
        return sink.events();
    }

    private PayloadException reject(String json) {
        return reject(json.getBytes(StandardCharsets.UTF_8));
    }

    private PayloadException reject(byte[] record) {
        RecordingSink sink = new RecordingSink();
        try {
            decoder.decode(record, 0, record.length, 0, sink);
        } catch (PayloadException e) {
            assertThat(sink.events()).as("nothing reaches the sink from a rejected record").isEmpty();
            assertThat(e.position()).isBetween(0L, (long) record.length);
            return e;
        }
        return fail("decoded a malformed record: " + new String(record, StandardCharsets.UTF_8));
    }

    /** The events of one sample: labels as name/value pairs in order, then the sample. */
    static List<String> sample(String[] labels, long timestampMs, long valueBits) {
        List<String> events = new ArrayList<>();
        events.add(RecordingSink.begin());
        for (int i = 0; i < labels.length; i += 2) {
            events.add(RecordingSink.label(utf8(labels[i]), utf8(labels[i + 1])));
        }
        events.add(RecordingSink.endLabelsEvent());
        events.add(RecordingSink.sample(timestampMs, valueBits));
        return events;
    }

    private static long bits(double value) {
        return Double.doubleToRawLongBits(value);
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String record(String timestamp, String value) {
        return "{\"timestamp\":\"" + timestamp + "\",\"value\":" + value + ",\"name\":\"up\",\"labels\":{\"__name__\":\"up\"}}";
    }

    @Test
    void theAdaptersObjectInEitherMemberOrder() throws PayloadException {
        String adapter = "{\"timestamp\":\"2020-01-01T00:00:00Z\",\"value\":\"1.5\",\"name\":\"up\","
                + "\"labels\":{\"__name__\":\"up\",\"instance\":\"localhost:9090\",\"job\":\"prometheus\"}}";
        String goSorted = " {\n \"labels\" : {\"__name__\":\"up\",\"instance\":\"localhost:9090\",\"job\":\"prometheus\"},"
                + "\"name\":\"up\",\t\"timestamp\":\"2020-01-01T00:00:00Z\",\"value\":\"1.5\" } \r\n";
        List<String> expected = sample(new String[] {"__name__", "up", "instance", "localhost:9090", "job", "prometheus"},
                JAN_2020_MS, bits(1.5));
        assertThat(decode(adapter)).isEqualTo(expected);
        assertThat(decode(goSorted)).isEqualTo(expected);
    }

    @Test
    void nameBecomesTheMetricNameWhenTheLabelsHaveNone() throws PayloadException {
        assertThat(decode("{\"name\":\"up\",\"labels\":{\"job\":\"a\"},\"value\":\"1\",\"timestamp\":\"2020-01-01T00:00:00Z\"}"))
                .isEqualTo(sample(new String[] {"__name__", "up", "job", "a"}, JAN_2020_MS, bits(1)));
        assertThat(decode("{\"name\":\"up\",\"labels\":{},\"value\":\"1\",\"timestamp\":\"2020-01-01T00:00:00Z\"}"))
                .isEqualTo(sample(new String[] {"__name__", "up"}, JAN_2020_MS, bits(1)));
        assertThat(reject("{\"name\":\"up\",\"labels\":{\"__name__\":\"down\"},\"value\":\"1\",\"timestamp\":\"2020-01-01T00:00:00Z\"}")
                .reason()).isEqualTo(Reason.BAD_SCHEMA);
    }

    @Test
    void valuesAsGoFormatsThemSpecialOnesIncludedAndAsJsonNumbers() throws PayloadException {
        Object[][] cases = {
            {"\"NaN\"", DecimalParser.NAN_BITS}, {"\"+Inf\"", bits(Double.POSITIVE_INFINITY)},
            {"\"-Inf\"", bits(Double.NEGATIVE_INFINITY)}, {"\"-0\"", bits(-0.0)}, {"\"0\"", 0L},
            {"\"" + new BigDecimal("4.9e-324").toPlainString() + "\"", bits(Double.MIN_VALUE)},
            {"\"4.9e-324\"", bits(Double.MIN_VALUE)},
            {"\"" + new BigDecimal("1.7976931348623157e308").toPlainString() + "\"", bits(Double.MAX_VALUE)},
            {"\"97.38955823293173\"", bits(97.38955823293173)}, {"1.5", bits(1.5)}, {"-2e3", bits(-2000)}, {"0", 0L},
        };
        for (Object[] c : cases) {
            assertThat(decode(record("2020-01-01T00:00:00Z", (String) c[0])))
                    .as((String) c[0]).isEqualTo(sample(new String[] {"__name__", "up"}, JAN_2020_MS, (Long) c[1]));
        }
        for (String bad : new String[] {"\"1e400\"", "\"\"", "\"abc\"", "\"1,5\"", "\" 1\"", "\"-NaN\"", "1e400"}) {
            assertThat(reject(record("2020-01-01T00:00:00Z", bad)).reason()).as(bad).isEqualTo(Reason.BAD_VALUE);
        }
        for (String bad : new String[] {"null", "true", "{}", "[1]"}) {
            assertThat(reject(record("2020-01-01T00:00:00Z", bad)).reason()).as(bad).isEqualTo(Reason.BAD_SCHEMA);
        }
    }

    @Test
    void rfc3339TimestampsWithFractionsAndOffsets() throws PayloadException {
        Object[][] cases = {
            {"2020-01-01T00:00:00.123456789Z", JAN_2020_MS + 123}, {"2020-01-01T01:00:00+01:00", JAN_2020_MS},
            {"2019-12-31T18:30:00.5-05:30", JAN_2020_MS + 500}, {"1969-12-31T23:59:59.999Z", -1L},
            {"1970-01-01T00:00:00Z", 0L}, {"2024-02-29T12:00:00z", 1_709_208_000_000L}, {"0000-01-01T00:00:00Z", -62_167_219_200_000L},
            {"9999-12-31t23:59:59.999Z", 253_402_300_799_999L}, {"2000-03-01T00:00:00Z", 951_868_800_000L},
        };
        for (Object[] c : cases) {
            assertThat(decode(record((String) c[0], "\"1\""))).as((String) c[0])
                    .isEqualTo(sample(new String[] {"__name__", "up"}, (Long) c[1], bits(1)));
        }
        String[] bad = {"2023-02-29T00:00:00Z", "2020-13-01T00:00:00Z", "2020-01-01T24:00:00Z", "2020-01-01T00:60:00Z",
            "2020-01-01T00:00:60Z", "2020-01-01 00:00:00Z", "2020-01-01T00:00:00", "2020-01-01T00:00:00.Z",
            "2020-01-01T00:00:00.1234567891Z", "2020-01-01T00:00:00+0100", "2020-01-01T00:00:00+24:00", "20-01-01T00:00:00Z",
            "2020-1-01T00:00:00Z", "1577836800000", "2020-01-01T00:00:00ZZ", "２020-01-01T00:00:00Z"};
        for (String timestamp : bad) {
            assertThat(reject(record(timestamp, "\"1\"")).reason()).as(timestamp).isEqualTo(Reason.BAD_VALUE);
        }
        assertThat(reject("{\"timestamp\":1577836800,\"value\":\"1\",\"name\":\"up\"}").reason()).isEqualTo(Reason.BAD_SCHEMA);
    }

    @Test
    void escapesAndUtf8AreDecodedToUtf8Bytes() throws PayloadException {
        String json = "{\"labels\":{\"__name__\":\"up\",\"q\\\"uote\":\"a\\\\b\\/c\\b\\f\\n\\r\\t\","
                + "\"unicode\":\"\\u00e9\\u6807\\ud83d\\ude42 raw é标🙂\",\"empty\":\"\",\"\\u0000\":\"nul\"},"
                + "\"value\":\"1\",\"timestamp\":\"2020-01-01T00:00:00Z\"}";
        assertThat(decode(json)).isEqualTo(sample(new String[] {"__name__", "up", "q\"uote", "a\\b/c\b\f\n\r\t",
            "unicode", "é标🙂 raw é标🙂", "empty", "", "\u0000", "nul"}, JAN_2020_MS, bits(1)));
    }

    @Test
    void manyLabelsAndUnknownMembersOfEveryKind() throws PayloadException {
        StringBuilder json = new StringBuilder("{\"extra\":{\"a\":[1,-2.5e-3,true,false,null,\"s\",{\"b\":[]}]},\"labels\":{");
        List<String> labels = new ArrayList<>(List.of("__name__", "many"));
        json.append("\"__name__\":\"many\"");
        for (int i = 0; i < 200; i++) {
            json.append(",\"l").append(i).append("\":\"v").append(i).append('"');
            labels.add("l" + i);
            labels.add("v" + i);
        }
        json.append("},\"value\":\"2\",\"n\":0,\"timestamp\":\"2020-01-01T00:00:00Z\",\"z\":[]}");
        assertThat(decode(json.toString())).isEqualTo(sample(labels.toArray(String[]::new), JAN_2020_MS, bits(2)));
    }

    @Test
    void anObjectCutAtEveryByteIsRejectedWithNothingEmitted() throws PayloadException {
        byte[] whole = utf8("{\"timestamp\":\"2020-01-01T00:00:00.5Z\",\"value\":\"-1.5e3\",\"name\":\"up\","
                + "\"labels\":{\"__name__\":\"up\",\"é\":\"\\ud83d\\ude42\\n\"},\"other\":[1,{\"x\":null}]}");
        for (int cut = 0; cut < whole.length; cut++) {
            PayloadException e = reject(Arrays.copyOf(whole, cut));
            assertThat(e.reason()).as("cut %d: %s", cut, e.getMessage()).isIn(Reason.BAD_JSON, Reason.INVALID_UTF8);
        }
        assertThat(decode(whole)).hasSize(5);
    }

    @Test
    void syntaxErrorsAreBadJsonWithAPosition() {
        String ok = "\"value\":\"1\",\"timestamp\":\"2020-01-01T00:00:00Z\",\"name\":\"up\"";
        String[] bad = {"", " ", "[]", "{" + ok + ",}", "{" + ok + "}{}", "{" + ok + "} x", "{" + ok, "{,}",
            "{\"value\" \"1\"}", "{'value':'1'}", "{" + ok + ",\"x\":tru}", "{" + ok + ",\"x\":01}", "{" + ok + ",\"x\":1.}",
            "{" + ok + ",\"x\":-}", "{" + ok + ",\"x\":[1,]}", "{" + ok + ",\"x\":\"\\x\"}", "{" + ok + ",\"x\":\"\\u12G4\"}",
            "{" + ok + ",\"x\":\"a\u0001b\"}", "\uFEFF{" + ok + "}", "{" + ok + ",\"x\":" + "[".repeat(70) + "]".repeat(70) + "}",
            "{" + ok + ",\"labels\":{\"a\":\"b\",}}", "{" + ok + ",\"x\":+1}", "{" + ok + ",\"x\":NaN}"};
        for (String json : bad) {
            PayloadException e = reject(json);
            assertThat(e.reason()).as("%s: %s", json, e.getMessage()).isEqualTo(Reason.BAD_JSON);
        }
        assertThat(reject("{\"name\":\"up\",\"value\":\"1\",\"timestamp\":\"2020-01-01T00:00:00Z\",\"x\":[}").position())
                .isEqualTo(65);
    }

    @Test
    void aMessageWithoutLabelsIsMalformedAsTheAdapterAlwaysWritesThem() throws PayloadException {
        String ts = "\"timestamp\":\"2020-01-01T00:00:00Z\",\"value\":\"1\"";
        PayloadException e = reject("{" + ts + ",\"name\":\"up\"}");
        assertThat(e.reason()).isEqualTo(Reason.BAD_SCHEMA);
        assertThat(e.getMessage()).endsWith("no labels");
        assertThat(decode("{" + ts + ",\"labels\":{\"__name__\":\"up\",\"job\":\"a\"}}")).as("labels without name")
                .isEqualTo(sample(new String[] {"__name__", "up", "job", "a"}, JAN_2020_MS, bits(1)));
    }

    @Test
    void schemaErrors() {
        String ts = "\"timestamp\":\"2020-01-01T00:00:00Z\"";
        String[] bad = {"{}", "{\"value\":\"1\",\"name\":\"up\"}", "{" + ts + ",\"name\":\"up\"}", "{" + ts + ",\"value\":\"1\"}",
            "{" + ts + ",\"value\":\"1\",\"value\":\"2\",\"name\":\"up\"}", "{" + ts + "," + ts + ",\"value\":\"1\",\"name\":\"up\"}",
            "{" + ts + ",\"value\":\"1\",\"name\":\"up\",\"name\":\"up\"}", "{" + ts + ",\"value\":\"1\",\"labels\":{},\"labels\":{}}",
            "{" + ts + ",\"value\":\"1\",\"name\":1}", "{" + ts + ",\"value\":\"1\",\"labels\":[]}",
            "{" + ts + ",\"value\":\"1\",\"labels\":{\"a\":1}}", "{" + ts + ",\"value\":\"1\",\"labels\":{\"a\":null}}",
            "{" + ts + ",\"value\":\"1\",\"labels\":{\"a\":{\"b\":\"c\"}}}"};
        for (String json : bad) {
            PayloadException e = reject(json);
            assertThat(e.reason()).as("%s: %s", json, e.getMessage()).isEqualTo(Reason.BAD_SCHEMA);
        }
    }

    @Test
    void invalidUtf8AndLoneSurrogates() {
        String prefix = "{\"value\":\"1\",\"timestamp\":\"2020-01-01T00:00:00Z\",\"labels\":{\"a\":\"";
        for (String escape : new String[] {"\\ud83d", "\\ud83dx", "\\ude42", "\\ud83d\\u0041", "\\ud83d\\"}) {
            PayloadException e = reject(prefix + escape + "\"}}");
            assertThat(e.reason()).as(escape).isIn(Reason.INVALID_UTF8, Reason.BAD_JSON);
        }
        assertThat(reject(prefix + "\\ud83d\"}}").reason()).isEqualTo(Reason.INVALID_UTF8);
        byte[][] raw = {{(byte) 0xC3}, {(byte) 0xFF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xC0, (byte) 0xAF},
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}};
        for (byte[] bytes : raw) {
            byte[] head = utf8(prefix);
            byte[] tail = utf8("\"}}");
            byte[] record = Arrays.copyOf(head, head.length + bytes.length + tail.length);
            System.arraycopy(bytes, 0, record, head.length, bytes.length);
            System.arraycopy(tail, 0, record, head.length + bytes.length, tail.length);
            PayloadException e = reject(record);
            assertThat(e.reason()).isEqualTo(Reason.INVALID_UTF8);
            assertThat(e.position()).isEqualTo(head.length);
        }
    }

    @Test
    void aRecordBeyondTheLimitIsTooLarge() {
        JsonDecoder tight = new JsonDecoder(new DecoderLimits(16, 16));
        byte[] record = utf8(record("2020-01-01T00:00:00Z", "\"1\""));
        try {
            tight.decode(record, 0, record.length, 0, new RecordingSink());
            fail("accepted a record beyond maxRecordBytes");
        } catch (PayloadException e) {
            assertThat(e.reason()).isEqualTo(Reason.TOO_LARGE);
        }
    }
}
