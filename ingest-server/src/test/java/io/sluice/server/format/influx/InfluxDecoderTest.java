package io.sluice.server.format.influx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.RecordingSink;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Line protocol as Telegraf writes it, escaping, values, timestamps, and bad lines that cost only themselves. */
class InfluxDecoderTest {
    private static final long RECORD_MS = 1_763_800_000_123L;

    private final InfluxDecoder decoder = new InfluxDecoder(DecoderLimits.DEFAULTS);

    private List<String> decode(String text) throws PayloadException {
        return decode(text, RECORD_MS);
    }

    private List<String> decode(String text, long recordTimestampMs) throws PayloadException {
        byte[] record = text.getBytes(StandardCharsets.UTF_8);
        RecordingSink sink = new RecordingSink();
        decoder.decode(record, 0, record.length, recordTimestampMs, sink);
        return sink.events();
    }

    /** The events of one series: its name, its tags as name/value pairs, then one sample. */
    static List<String> series(String name, String[] tags, long timestampMs, double value) {
        List<String> events = new ArrayList<>();
        events.add(RecordingSink.begin());
        events.add(RecordingSink.label(utf8("__name__"), utf8(name)));
        for (int i = 0; i < tags.length; i += 2) {
            events.add(RecordingSink.label(utf8(tags[i]), utf8(tags[i + 1])));
        }
        events.add(RecordingSink.endLabelsEvent());
        events.add(RecordingSink.sample(timestampMs, Double.doubleToRawLongBits(value)));
        return events;
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> part : parts) {
            all.addAll(part);
        }
        return all;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aTelegrafBatchBecomesOneSeriesPerNumericField() throws PayloadException {
        String batch = """
                cpu,cpu=cpu0,host=web-1 usage_idle=97.38955823293173,usage_user=1.5,usage_nice=0 1763800000123456789
                mem,host=web-1 available=8202838016i,used_percent=48.1,active=true,kernel="6.1" 1763800000987654321
                disk,host=web-1,path=/ free=18446744073709551615u 1763800001000000000
                """;
        String[] cpuTags = {"cpu", "cpu0", "host", "web-1"};
        String[] memTags = {"host", "web-1"};
        assertThat(decode(batch)).isEqualTo(concat(
                series("cpu_usage_idle", cpuTags, 1_763_800_000_123L, 97.38955823293173),
                series("cpu_usage_user", cpuTags, 1_763_800_000_123L, 1.5),
                series("cpu_usage_nice", cpuTags, 1_763_800_000_123L, 0),
                series("mem_available", memTags, 1_763_800_000_987L, 8202838016.0),
                series("mem_used_percent", memTags, 1_763_800_000_987L, 48.1),
                series("mem_active", memTags, 1_763_800_000_987L, 1),
                series("disk_free", new String[] {"host", "web-1", "path", "/"}, 1_763_800_001_000L, 0x1p64)));
        assertThat(decoder.pointsDecodedTotal()).isEqualTo(3);
        assertThat(decoder.stringFieldsSkippedTotal()).isEqualTo(1);
        assertThat(decoder.linesRejectedTotal()).isZero();
        assertThat(decoder.lastRejection()).isNull();
    }

    @Test
    void escapesAreUndoneAsTheGrammarSays() throws PayloadException {
        String line = "we\\ ird\\,m\\=x,ta\\ g\\=k\\,=v\\ a\\=l\\,ue,back\\\\slash=a\\b"
                + " f\\ i\\=e\\,ld=1,s=\"say \\\"hi\\\" \\\\ \n next line\",g=2 1000000\r\n";
        assertThat(decode(line)).isEqualTo(concat(
                series("we ird,m\\=x_f i=e,ld", new String[] {"ta g=k,", "v a=l,ue", "back\\\\slash", "a\\b"}, 1, 1),
                series("we ird,m\\=x_g", new String[] {"ta g=k,", "v a=l,ue", "back\\\\slash", "a\\b"}, 1, 2)));
        assertThat(decoder.stringFieldsSkippedTotal()).isEqualTo(1);
    }

    @Test
    void commentsBlankLinesLeadingAndTrailingSpacesAndLineEndings() throws PayloadException {
        String text = "# a comment with\ttab\n\n   \r\n  m v=1 5000000  \r\n#\n m v=2\rm\n";
        assertThat(decode(text)).isEqualTo(series("m_v", new String[0], 5, 1));
        assertThat(decoder.linesRejectedTotal(InfluxLineRejection.SYNTAX))
                .as("a lone \\r ends nothing: that line is bad").isEqualTo(1);
        assertThat(decode("m v=3\r")).as("\\r at the end of the record").isEqualTo(series("m_v", new String[0], RECORD_MS, 3));
    }

    @Test
    void floatNotationsIntegersBooleansAndSpecialFloats() throws PayloadException {
        String text = """
                m a=1e+06,b=1E-5,c=-0,d=-0.0,e=.5,f=5.,g=4.9e-324,h=2.2250738585072009e-308,i=1.7976931348623157e308
                m j=-9223372036854775808i,k=9223372036854775807i,l=0u,n=t,o=T,p=true,q=True,r=TRUE,s=f,t=F,u=false,v=False,w=FALSE
                """;
        double[] expected = {1e6, 1e-5, -0.0, -0.0, 0.5, 5, Double.MIN_VALUE, Double.longBitsToDouble(0x000fffffffffffffL),
            Double.MAX_VALUE, -0x1p63, 0x1p63, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0};
        List<String> events = decode(text);
        assertThat(events).hasSize(expected.length * 4);
        for (int i = 0; i < expected.length; i++) {
            assertThat(events.get(4 * i + 3)).as("field %d", i)
                    .isEqualTo(RecordingSink.sample(RECORD_MS, Double.doubleToRawLongBits(expected[i])));
        }
    }

    @Test
    void nonFiniteAndOutOfRangeValuesRejectTheirLineAsTheReferenceParserDoes() throws PayloadException {
        String[] syntax = {"m v=NaN", "m v=Inf", "m v=+1", "m v=-Inf", "m v=1.2.3", "m v=0x10", "m v=1_0", "m v=tru",
            "m v=1i2", "m v=-u", "m v=.i", "m v=\"open"};
        for (String line : syntax) {
            assertThat(decode(line + "\nm ok=1 1000000\n")).as(line).isEqualTo(series("m_ok", new String[0], 1, 1));
        }
        assertThat(decoder.linesRejectedTotal(InfluxLineRejection.SYNTAX)).isEqualTo(syntax.length);
        String[] outOfRange = {"m v=1e309", "m v=-1e400", "m v=9223372036854775808i", "m v=-9223372036854775809i",
            "m v=18446744073709551616u", "m v=1 99999999999999999999"};
        for (String line : outOfRange) {
            assertThat(decode(line)).as(line).isEmpty();
        }
        assertThat(decoder.linesRejectedTotal(InfluxLineRejection.OUT_OF_RANGE)).isEqualTo(outOfRange.length);
    }

    @Test
    void timestampsAreNanosecondsRoundedDownAndDefaultToTheRecordTimestamp() throws PayloadException {
        assertThat(decode("m v=1 -1\nm v=2 999999\nm v=3\n")).isEqualTo(concat(
                series("m_v", new String[0], -1, 1),
                series("m_v", new String[0], 0, 2),
                series("m_v", new String[0], RECORD_MS, 3)));
        assertThat(decode("m v=4", InfluxDecoder.NO_RECORD_TIMESTAMP)).isEmpty();
        assertThat(decoder.linesRejectedTotal(InfluxLineRejection.NO_TIMESTAMP)).isEqualTo(1);
        assertThat(decode("m v=5 " + Long.MIN_VALUE)).isEqualTo(series("m_v", new String[0], Math.floorDiv(Long.MIN_VALUE, 1_000_000L), 5));
    }

    @Test
    void otherPrecisions() throws PayloadException {
        byte[] line = utf8("m v=1 1700000000\n");
        InfluxDecoder seconds = new InfluxDecoder(DecoderLimits.DEFAULTS, InfluxPrecision.SECONDS);
        RecordingSink sink = new RecordingSink();
        seconds.decode(line, 0, line.length, RECORD_MS, sink);
        assertThat(sink.events()).isEqualTo(series("m_v", new String[0], 1_700_000_000_000L, 1));
        byte[] tooFar = utf8("m v=1 9223372036854776\n");
        seconds.decode(tooFar, 0, tooFar.length, RECORD_MS, sink);
        assertThat(seconds.linesRejectedTotal(InfluxLineRejection.OUT_OF_RANGE)).isEqualTo(1);
        InfluxDecoder micros = new InfluxDecoder(DecoderLimits.DEFAULTS, InfluxPrecision.MICROSECONDS);
        RecordingSink microsSink = new RecordingSink();
        byte[] microLine = utf8("m v=1 -1500\n");
        micros.decode(microLine, 0, microLine.length, RECORD_MS, microsSink);
        assertThat(microsSink.events()).isEqualTo(series("m_v", new String[0], -2, 1));
        assertThat(InfluxPrecision.MILLISECONDS.toMillis(-7)).isEqualTo(-7);
    }

    @Test
    void duplicateAndOutOfOrderTimestampsPassThroughInOrder() throws PayloadException {
        assertThat(decode("m v=1 3000000\nm v=2 1000000\nm v=3 1000000\nm v=3 1000000\n")).isEqualTo(concat(
                series("m_v", new String[0], 3, 1),
                series("m_v", new String[0], 1, 2),
                series("m_v", new String[0], 1, 3),
                series("m_v", new String[0], 1, 3)));
    }

    @Test
    void utf8NamesManyTagsAndDuplicateFieldsAreHandedOver() throws PayloadException {
        StringBuilder line = new StringBuilder("温度,ort=Zürich");
        String[] tags = new String[2 + 2 * 120];
        tags[0] = "ort";
        tags[1] = "Zürich";
        for (int i = 0; i < 120; i++) {
            line.append(",t").append(i).append("=🙂").append(i);
            tags[2 + 2 * i] = "t" + i;
            tags[3 + 2 * i] = "🙂" + i;
        }
        line.append(" wert=21.5,wert=22 1000000");
        assertThat(decode(line.toString())).isEqualTo(concat(
                series("温度_wert", tags, 1, 21.5), series("温度_wert", tags, 1, 22)));
    }

    @Test
    void badLinesAreSkippedAndCountedWhileTheirNeighboursAreKept() throws PayloadException {
        String[][] cases = {
            {"m", "no fields"}, {"m ", "no field after the space"}, {",t=1 v=1", "no measurement"},
            {"m,t v=1", "tag without ="}, {"m,t= v=1", "empty tag value"}, {"m,=v v=1", "empty tag key"},
            {"m, v=1", "space after the comma"}, {"m v", "field without ="}, {"m =1", "empty field key"},
            {"m v=", "empty field value"}, {"m v=1 x", "text instead of a timestamp"}, {"m v=1 1 2", "text after the timestamp"},
            {"m v=1x", "unexpected character after a value"}, {"m\tv=1", "tab is a control character"},
            {"m v=1,", "trailing comma"}, {"m v=1 12-3", "bad timestamp"}, {"#\u0001", "control character in a comment"},
        };
        String good = "ok v=7 7000000";
        for (String[] c : cases) {
            String text = good + "\n" + c[0] + "\n" + good + "\n";
            long before = decoder.linesRejectedTotal(InfluxLineRejection.SYNTAX);
            assertThat(decode(text)).as(c[1]).isEqualTo(concat(
                    series("ok_v", new String[0], 7, 7), series("ok_v", new String[0], 7, 7)));
            assertThat(decoder.linesRejectedTotal(InfluxLineRejection.SYNTAX)).as(c[1]).isEqualTo(before + 1);
            assertThat(decoder.lastRejection()).as(c[1]).startsWith("line 2 (byte ").contains("): syntax: ");
        }
    }

    @Test
    void duplicateTagsAndInvalidUtf8RejectTheirLineWithTheirOwnReason() throws PayloadException {
        assertThat(decode("m,a=1,b=2,a=3 v=1\nm,__name__=x v=1\n")).isEmpty();
        assertThat(decoder.linesRejectedTotal(InfluxLineRejection.DUPLICATE_LABEL)).isEqualTo(2);
        byte[] bad = {'m', ',', 't', '=', (byte) 0xC3, ' ', 'v', '=', '1', '\n', 'm', ' ', 'v', '=', '"', (byte) 0xFF, '"', '\n',
            'o', 'k', ' ', 'v', '=', '1', ' ', '1', '0', '0', '0', '0', '0', '0', '\n'};
        RecordingSink sink = new RecordingSink();
        decoder.decode(bad, 0, bad.length, RECORD_MS, sink);
        assertThat(sink.events()).isEqualTo(series("ok_v", new String[0], 1, 1));
        assertThat(decoder.linesRejectedTotal(InfluxLineRejection.INVALID_UTF8)).isEqualTo(2);
    }

    @Test
    void aLineWithMoreTagsThanAnyHeadKeepsIsRejectedWithoutAQuadraticCheck() throws PayloadException {
        StringBuilder line = new StringBuilder("m");
        for (int i = InfluxLineParser.MAX_TAGS; i >= 0; i--) {
            line.append(",t").append(i).append("=v"); // descending: the pairwise check would run
        }
        assertThat(decode(line + " v=1\nok v=1 1000000\n")).isEqualTo(series("ok_v", new String[0], 1, 1));
        assertThat(decoder.linesRejectedTotal(InfluxLineRejection.TOO_MANY_TAGS)).isEqualTo(1);
    }

    @Test
    void aRecordBeyondTheLimitIsRejectedWhole() {
        InfluxDecoder tight = new InfluxDecoder(new DecoderLimits(10, 10));
        byte[] record = utf8("m v=1 1000000\n");
        assertThatThrownBy(() -> tight.decode(record, 0, record.length, RECORD_MS, new RecordingSink()))
                .isInstanceOfSatisfying(PayloadException.class,
                        e -> assertThat(e.reason()).isEqualTo(PayloadException.Reason.TOO_LARGE));
    }

    @Test
    void aRecordInsideALargerArrayDecodes() throws PayloadException {
        byte[] line = utf8("xxm v=1 1000000\nyy");
        RecordingSink sink = new RecordingSink();
        decoder.decode(line, 2, line.length - 4, RECORD_MS, sink);
        assertThat(sink.events()).isEqualTo(series("m_v", new String[0], 1, 1));
    }
}
