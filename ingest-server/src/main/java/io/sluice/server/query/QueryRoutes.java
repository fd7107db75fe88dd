package io.sluice.server.query;

import io.netty.handler.codec.http.FullHttpRequest;
import io.sluice.core.head.Head;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.read.SeriesSnapshot;
import io.sluice.server.http.Reply;
import io.sluice.server.http.RequestParams;
import java.util.function.LongSupplier;

/**
 * {@code /api/v1/query} and {@code /api/v1/query_range} for the PromQL Sluice answers (see
 * {@link SelectorParser}), evaluated as Prometheus evaluates them:
 *
 * <ul>
 * <li>Instant query of a vector selector at {@code t}: per series the latest sample in
 * {@code (t - lookback, t]}, unless that sample is a stale marker (the series ended); the point
 * carries {@code t}, not the sample's time. Result type {@code vector}.</li>
 * <li>Instant query of a range selector {@code [r]}: per series its raw samples in {@code (t - r, t]},
 * stale markers left out. Result type {@code matrix}.</li>
 * <li>Range query of a vector selector: the instant rule at each of {@code start, start + step, ...
 * <= end}; result type {@code matrix}. A range selector there is an error, as in Prometheus.</li>
 * </ul>
 * Series without any point are left out. Points and series count against the query limits.
 */
final class QueryRoutes {
    static final String QUERY_PATH = "/api/v1/query";
    static final String QUERY_RANGE_PATH = "/api/v1/query_range";
    /** Prometheus' limit on points per series of a range query. */
    static final long MAX_POINTS_PER_SERIES = 11_000;
    static final long STALE_NAN_BITS = 0x7ff0000000000002L;

    private final Head head;
    private final QueryContext context;
    private final LongSupplier clockMs;

    QueryRoutes(QueryContext context, LongSupplier clockMs) {
        this.head = context.head();
        this.context = context;
        this.clockMs = clockMs;
    }

    Reply instant(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        Selection selection = SelectorParser.parse(required(params, "query"));
        long t = QueryRequests.time(params, "time", clockMs.getAsLong());
        QueryBudget budget = context.budget();
        JsonBuffer json = new JsonBuffer(4096);
        if (selection.isRange()) {
            json.raw("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
            rawSamples(selection, t, budget, json);
        } else {
            json.raw("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[");
            latestSamples(selection, t, budget, json);
        }
        return MetadataRoutes.ok(json.raw("]}}"));
    }

    Reply range(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        String query = required(params, "query");
        long startMs = PromTime.parseTimeMs(required(params, "start"), "start");
        long endMs = PromTime.parseTimeMs(required(params, "end"), "end");
        QueryRequests.checkOrder(startMs, endMs);
        long stepMs = PromTime.parseDurationParamMs(required(params, "step"), "step");
        if (stepMs <= 0) {
            throw ApiError.badData("invalid parameter \"step\": zero or negative query resolution step widths are not "
                    + "accepted. Try a positive integer");
        }
        if ((endMs - startMs) / stepMs > MAX_POINTS_PER_SERIES) {
            throw ApiError.badData("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the "
                    + "query resolution (?step=XX)");
        }
        Selection selection = SelectorParser.parse(query);
        if (selection.isRange()) {
            throw ApiError.badData("invalid parameter \"query\": invalid expression type \"range vector\" for range "
                    + "query, must be Scalar or instant Vector");
        }
        QueryBudget budget = context.budget();
        JsonBuffer json = new JsonBuffer(4096).raw("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
        steps(selection, startMs, endMs, stepMs, budget, json);
        return MetadataRoutes.ok(json.raw("]}}"));
    }

    /** The instant vector at {@code t}: {@code {"metric":{...},"value":[t,"v"]}} per series. */
    private void latestSamples(Selection selection, long t, QueryBudget budget, JsonBuffer json) throws ApiError {
        HeadQuery query = head.query(t - context.options().lookbackDeltaMs() + 1, t, selection.matcherArray());
        boolean first = true;
        while (query.next()) {
            long bits = 0;
            boolean found = false;
            for (SeriesSnapshot.Samples s = query.samples(); s.next(); ) {
                bits = s.valueBits();
                found = true;
            }
            if (!found || bits == STALE_NAN_BITS) {
                continue;
            }
            budget.addSeries();
            budget.addSamples(1);
            SeriesSnapshot snapshot = query.snapshot();
            json.raw(first ? "{\"metric\":" : ",{\"metric\":").labels(snapshot.labels(), snapshot.labelsArray())
                    .raw(",\"value\":");
            point(json, t, Double.longBitsToDouble(bits)).raw('}');
            first = false;
        }
    }

    /** The range vector at {@code t}: raw samples in {@code (t - range, t]}, stale markers left out. */
    private void rawSamples(Selection selection, long t, QueryBudget budget, JsonBuffer json) throws ApiError {
        HeadQuery query = head.query(t - selection.rangeMs() + 1, t, selection.matcherArray());
        boolean first = true;
        while (query.next()) {
            int mark = json.length();
            json.raw(first ? "{\"metric\":" : ",{\"metric\":").labels(query.labels(), query.snapshot().labelsArray())
                    .raw(",\"values\":[");
            long n = 0;
            for (SeriesSnapshot.Samples s = query.samples(); s.next(); ) {
                if (s.valueBits() != STALE_NAN_BITS) {
                    budget.addSamples(1); // per sample: one series alone may hold more than the limit
                    point(json.raw(n++ == 0 ? "" : ","), s.timestampMs(), s.value());
                }
            }
            if (n == 0) {
                json.truncate(mark);
                continue;
            }
            budget.addSeries();
            json.raw("]}");
            first = false;
        }
    }

    /** Each step's instant value, one pass over each series' samples. */
    private void steps(Selection selection, long startMs, long endMs, long stepMs, QueryBudget budget, JsonBuffer json)
            throws ApiError {
        long lookback = context.options().lookbackDeltaMs();
        HeadQuery query = head.query(startMs - lookback + 1, endMs, selection.matcherArray());
        boolean first = true;
        while (query.next()) {
            int mark = json.length();
            json.raw(first ? "{\"metric\":" : ",{\"metric\":").labels(query.labels(), query.snapshot().labelsArray())
                    .raw(",\"values\":[");
            SeriesSnapshot.Samples s = query.samples();
            boolean hasNext = s.next();
            boolean hasLatest = false;
            long latestMs = 0;
            long latestBits = 0;
            long n = 0;
            for (long t = startMs; t <= endMs; t += stepMs) {
                while (hasNext && s.timestampMs() <= t) {
                    latestMs = s.timestampMs();
                    latestBits = s.valueBits();
                    hasLatest = true;
                    hasNext = s.next();
                }
                if (hasLatest && latestMs > t - lookback && latestBits != STALE_NAN_BITS) {
                    point(json.raw(n++ == 0 ? "" : ","), t, Double.longBitsToDouble(latestBits));
                }
            }
            if (n == 0) {
                json.truncate(mark);
                continue;
            }
            budget.addSeries();
            budget.addSamples(n);
            json.raw("]}");
            first = false;
        }
    }

    /** {@code [1700000000.123,"1.5"]}. */
    private static JsonBuffer point(JsonBuffer json, long timestampMs, double value) {
        return json.raw('[').timestamp(timestampMs).raw(",\"").value(value).raw("\"]");
    }

    private static String required(RequestParams params, String name) throws ApiError {
        String value = params.first(name);
        if (value == null || value.isEmpty()) {
            throw ApiError.badData("invalid parameter \"" + name + "\": missing");
        }
        return value;
    }
}
