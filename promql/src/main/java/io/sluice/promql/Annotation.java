package io.sluice.promql;

import io.sluice.promql.eval.FloatOps;
import io.sluice.promql.parse.Errors;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * A warning or info of a query, as Prometheus keeps it: its text ({@link #text()}, what the test
 * language's {@code expect warn msg:} compares), the offset in the query of the node it is about
 * (the HTTP API appends that node's {@code line:col}, {@link #positioned(String)}), and for
 * histogram_quantile's forced-monotonicity info the buckets and times it was seen at, merged over the
 * query. Two annotations with the same text are one. Prometheus keeps the position of the one it met
 * last; as it evaluates operands left to right, that is the one further right in the query, which is
 * what is kept here (Sluice's own order of evaluation differs, e.g. a binary operator's right side first).
 */
public final class Annotation {
    private static final DateTimeFormatter RFC3339 = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private final String text;
    private final int start;
    /** Forced-monotonicity details; {@code occurrences} 0 for every other annotation. */
    private long minTs;
    private long maxTs;
    private double minBucket;
    private double maxBucket;
    private double maxDiff;
    private int occurrences;

    public Annotation(String text, int start) {
        this.text = text;
        this.start = start;
    }

    /** histogram_quantile's "input ... needed to be fixed for monotonicity" at {@code tsMs}. */
    public static Annotation forcedMonotonicity(String text, int start, long tsMs, double minBucket, double maxBucket,
                                                double maxDiff) {
        Annotation a = new Annotation(text, start);
        a.minTs = tsMs;
        a.maxTs = tsMs;
        a.minBucket = minBucket;
        a.maxBucket = maxBucket;
        a.maxDiff = maxDiff;
        a.occurrences = 1;
        return a;
    }

    /** Plain text without a position (e.g. "results truncated due to limit"). */
    public static Annotation unpositioned(String text) {
        return new Annotation(text, -1);
    }

    public String text() {
        return text;
    }

    /** The offset (characters) into the query of the node it is about; -1 when none. */
    public int start() {
        return start;
    }

    /** The same annotation met again: the position further right, monotonicity ranges combined. */
    public Annotation merge(Annotation other) {
        Annotation later = other.start >= start ? other : this;
        if (occurrences == 0 || other.occurrences == 0) {
            return later;
        }
        Annotation m = forcedMonotonicity(text, later.start, Math.min(minTs, other.minTs), Math.min(minBucket, other.minBucket),
                Math.max(maxBucket, other.maxBucket), Math.max(maxDiff, other.maxDiff));
        m.maxTs = Math.max(maxTs, other.maxTs);
        m.occurrences = occurrences + other.occurrences;
        return m;
    }

    /** As Prometheus' HTTP API writes it: the text, details if any, and {@code (line:col)} in {@code query}. */
    public String positioned(String query) {
        if (start < 0) {
            return text;
        }
        String pos = Errors.position(query, start);
        if (occurrences == 0) {
            return text + " (" + pos + ")";
        }
        return text + ", from buckets " + FloatOps.formatG(minBucket) + " to " + FloatOps.formatG(maxBucket)
                + ", with a max diff of " + FloatOps.formatG2(maxDiff)
                + ", over " + occurrences + " samples from " + RFC3339.format(Instant.ofEpochSecond(Math.floorDiv(minTs, 1000)))
                + " to " + RFC3339.format(Instant.ofEpochSecond(Math.floorDiv(maxTs, 1000))) + " (" + pos + ")";
    }

    @Override
    public String toString() {
        return text;
    }
}
