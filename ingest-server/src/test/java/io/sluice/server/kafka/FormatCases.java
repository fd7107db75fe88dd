package io.sluice.server.kafka;

import io.sluice.core.head.Head;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.index.Matcher;
import io.sluice.server.format.DecimalParser;
import io.sluice.server.format.EncodedSeries;
import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.SeriesTextSink;
import io.sluice.tools.loadgen.PayloadWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The series every input format is tested with end to end, within what each format carries: special
 * values (NaN with and without payload, the stale marker, ±Inf, -0.0, subnormals, the largest double),
 * UTF-8 and text that needs escaping, 30 labels, an empty label value (absent, as in Prometheus), and
 * duplicate and out-of-order timestamps. Each series carries {@code fmt=<case>} so a test can select
 * one case's series. {@link #expected} is what Prometheus would keep of them.
 */
final class FormatCases {
    static final long T = 1_763_800_000_000L;
    static final long STALE = 0x7ff0000000000002L;
    private static final long[] SPECIAL_BITS = {
        Double.doubleToRawLongBits(Double.NaN), STALE, 0x7ff8000000000001L, 0xfff8000000000000L,
        Double.doubleToRawLongBits(Double.POSITIVE_INFINITY), Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY),
        Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(Double.MIN_VALUE), 0x000fffffffffffffL, 0x800fffffffffffffL,
        Double.doubleToRawLongBits(Double.MAX_VALUE), Double.doubleToRawLongBits(1.5),
    };
    /** The order series: in order, older (stored: inside the out-of-order window), duplicate (dropped), same time other value (dropped), newer. */
    private static final long[] ORDER_TS = {T + 2, T + 1, T + 2, T + 2, T + 3};
    private static final double[] ORDER_VALUES = {1, 2, 1, 9, 3};

    private FormatCases() {
    }

    /** The series of case {@code fmt} in {@code format}. */
    static List<EncodedSeries> series(PayloadFormat format, String fmt) {
        List<EncodedSeries> out = new ArrayList<>();
        boolean otlp = format == PayloadFormat.OTLP;
        List<Long> special = new ArrayList<>();
        for (long bits : SPECIAL_BITS) {
            if (format != PayloadFormat.INFLUX || Double.isFinite(Double.longBitsToDouble(bits))) {
                special.add(bits);
            }
        }
        long[] specialTs = new long[special.size()];
        for (int i = 0; i < specialTs.length; i++) {
            specialTs[i] = T + i;
        }
        out.add(new EncodedSeries(labels("e2e_special", fmt, "kind", "values"), specialTs,
                special.stream().mapToLong(Long::longValue).toArray()));
        Map<String, String> utf8 = labels(otlp ? "e2e_utf8" : "e2e_utf8_ünï", fmt, "text", "🙂 a,b=c \"q\" \\x ünï 标签");
        if (!otlp) {
            utf8.put("ключ", "значение");
        }
        out.add(new EncodedSeries(utf8, new long[] {T, T + 15_000}, new long[] {bits(1), bits(2)}));
        Map<String, String> many = labels("e2e_many", fmt);
        for (int i = 0; i < 30; i++) {
            many.put(String.format("l%02d", i), "v" + i);
        }
        out.add(new EncodedSeries(many, new long[] {T}, new long[] {bits(7)}));
        Map<String, String> empty = labels("e2e_empty", fmt, "empty", "", "kept", "x");
        out.add(new EncodedSeries(empty, new long[] {T}, new long[] {bits(8)}));
        long[] orderBits = Arrays.stream(ORDER_VALUES).mapToLong(Double::doubleToRawLongBits).toArray();
        out.add(new EncodedSeries(labels(otlp ? "e2e_order_total" : "e2e_order", fmt), ORDER_TS, orderBits));
        return out;
    }

    /** Record values of {@code series} in {@code format} (json: one per sample). */
    static List<byte[]> encode(PayloadFormat format, List<EncodedSeries> series) {
        return EncodedSeries.values(PayloadWriter.encoder(format), series);
    }

    /**
     * What the head keeps of {@code series} written in {@code format}, as {@link SeriesTextSink} lines in
     * time order per series: the first sample of a timestamp; an older sample if inside the out-of-order
     * window of the newest sample so far (all cases' samples lie within minutes of {@link #T}, so the
     * newest of all series stands in for the shard's); NaN without its payload where the format writes
     * text (json). {@code dropped} counts the rest: too_old, duplicate (same time and value bits),
     * duplicate_timestamp (same time, other value).
     */
    static List<String> expected(PayloadFormat format, List<EncodedSeries> series, Map<String, Long> dropped) {
        List<String> kept = new ArrayList<>();
        long newest = Long.MIN_VALUE;
        for (EncodedSeries s : series) {
            String text = SeriesTextSink.text(s.labels());
            java.util.TreeMap<Long, Long> stored = new java.util.TreeMap<>();
            for (int i = 0; i < s.timestampsMs().length; i++) {
                long ts = s.timestampsMs()[i];
                long bits = s.valueBits()[i];
                if (format == PayloadFormat.JSON && Double.isNaN(Double.longBitsToDouble(bits))) {
                    bits = DecimalParser.NAN_BITS;
                }
                Long existing = stored.get(ts);
                if (existing != null) {
                    dropped.merge(bits == existing ? "duplicate" : "duplicate_timestamp", 1L, Long::sum);
                } else if (!stored.isEmpty() && ts < stored.lastKey()
                        && ts < newest - io.sluice.core.head.shard.ShardOptions.DEFAULT_OUT_OF_ORDER_WINDOW_MS) {
                    dropped.merge("too_old", 1L, Long::sum);
                } else {
                    stored.put(ts, bits);
                    newest = Math.max(newest, ts);
                }
            }
            stored.forEach((ts, bits) -> kept.add(SeriesTextSink.line(text, ts, bits)));
        }
        return kept;
    }

    /** Every sample the head stores of case {@code fmt}, as {@link SeriesTextSink} lines, in label then time order. */
    static List<String> stored(Head head, String fmt) {
        List<String> out = new ArrayList<>();
        HeadQuery q = head.query(Long.MIN_VALUE, Long.MAX_VALUE, Matcher.eq("fmt", fmt));
        while (q.next()) {
            String labels = SeriesTextSink.text(q.labels().toMap());
            for (SeriesSnapshot.Samples s = q.samples(); s.next(); ) {
                out.add(SeriesTextSink.line(labels, s.timestampMs(), s.valueBits()));
            }
        }
        return out;
    }

    private static Map<String, String> labels(String name, String fmt, String... more) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("fmt", fmt); // before the name: the encoders take labels in any order
        labels.put("__name__", name);
        for (int i = 0; i < more.length; i += 2) {
            labels.put(more[i], more[i + 1]);
        }
        return labels;
    }

    private static long bits(double v) {
        return Double.doubleToRawLongBits(v);
    }
}
