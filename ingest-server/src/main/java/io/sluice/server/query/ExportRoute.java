package io.sluice.server.query;

import io.netty.handler.codec.http.FullHttpRequest;
import io.sluice.core.head.Head;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.index.Matcher;
import io.sluice.server.http.Reply;
import io.sluice.server.http.RequestParams;
import io.sluice.server.http.Route;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/export?match[]=&start=&end=}: every stored sample of the selected series, as
 * JSON lines (docs/format/export.md), one series a line in label order:
 * <pre>{@code {"metric":{"__name__":"x","a":"b"},"values":[1,"NaN",0.5],"timestamps":[1000,2000,3000]}}</pre>
 * Finite values are JSON numbers in Prometheus' shortest form, NaN (stale markers included) and
 * the infinities are the strings {@code "NaN"}, {@code "+Inf"}, {@code "-Inf"}.
 *
 * <p>Streamed: the series are read one at a time from the head and written in 64 KiB HTTP chunks,
 * so memory stays at one series snapshot per {@code match[]} plus one chunk, whatever the answer's
 * size. Runs on a worker thread (a blocking route). Limits: the series upper bound (series with
 * chunks in range, summed over {@code match[]}) is checked before anything is sent; samples are
 * counted as they are written, and a query that passes {@code query.max-samples} after its first
 * 64 KiB ends with a broken chunked transfer (the client sees an error, never a silently short
 * answer).
 */
final class ExportRoute implements Route {
    static final String PATH = "/api/v1/export";
    static final String CONTENT_TYPE = "application/stream+json";
    private static final int FLUSH_BYTES = 32 << 10;

    private final Head head;
    private final QueryContext context;

    ExportRoute(QueryContext context) {
        this.head = context.head();
        this.context = context;
    }

    @Override
    public Reply handle(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        List<Matcher[]> sets = QueryRequests.matchers(params, true);
        long startMs = QueryRequests.time(params, "start", QueryRequests.MIN_TIME_MS);
        long endMs = QueryRequests.time(params, "end", QueryRequests.MAX_TIME_MS);
        QueryRequests.checkOrder(startMs, endMs, "end timestamp must not be before start time");
        SeriesUnion union = QueryRequests.select(head, sets, startMs, endMs);
        QueryBudget budget = context.budget();
        if (union.sizeUpperBound() > context.options().maxSeries()) {
            context.metrics().rejected(QueryMetrics.REASON_MAX_SERIES);
            throw ApiError.execution("query selects " + union.sizeUpperBound() + " series, more than " + context.options().maxSeries()
                    + " (query.max-series); select fewer series with more label matchers or a shorter time range");
        }
        return Reply.streamed(CONTENT_TYPE, Map.of(), out -> write(union, budget, out));
    }

    private static void write(SeriesUnion union, QueryBudget budget, OutputStream out) throws IOException, ApiError {
        JsonBuffer json = new JsonBuffer(64 << 10);
        while (union.next()) {
            SeriesSnapshot snapshot = union.snapshot();
            if (!snapshot.samples().next()) {
                continue; // chunks overlap the range, samples do not
            }
            budget.addSeries();
            json.raw("{\"metric\":").labels(snapshot.labels(), snapshot.labelsArray(), true).raw(",\"values\":[");
            long n = 0;
            for (SeriesSnapshot.Samples s = snapshot.samples(); s.next(); n++) {
                if (n > 0) {
                    json.raw(',');
                }
                double v = s.value();
                if (PromFloat.isSpecial(v)) {
                    json.raw('"').value(v).raw('"');
                } else {
                    json.value(v);
                }
                flushIfFull(json, out);
            }
            budget.addSamples(n);
            json.raw("],\"timestamps\":[");
            boolean first = true;
            for (SeriesSnapshot.Samples s = snapshot.samples(); s.next(); first = false) {
                if (!first) {
                    json.raw(',');
                }
                json.number(s.timestampMs());
                flushIfFull(json, out);
            }
            json.raw("]}\n");
            flushIfFull(json, out);
        }
        json.writeTo(out);
    }

    private static void flushIfFull(JsonBuffer json, OutputStream out) throws IOException {
        if (json.length() >= FLUSH_BYTES) {
            json.writeTo(out);
            json.reset();
        }
    }
}
