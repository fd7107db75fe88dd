package io.sluice.server.query;

import io.netty.handler.codec.http.FullHttpRequest;
import io.sluice.promql.Annotation;
import io.sluice.promql.Engine;
import io.sluice.promql.EngineOptions;
import io.sluice.promql.PromQLException;
import io.sluice.promql.QueryLimits;
import io.sluice.promql.QueryResult;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.Labels;
import io.sluice.server.http.ClientConnection;
import io.sluice.server.http.Reply;
import io.sluice.server.http.RequestParams;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * {@code /api/v1/query} and {@code /api/v1/query_range}: PromQL evaluated by Sluice's own engine
 * ({@code promql/}) over the head ({@link HeadQueryable}), answered as Prometheus' HTTP API answers:
 * the same parameters ({@code query, time, start, end, step, timeout, lookback_delta, limit}), result types
 * and JSON, warnings and infos beside {@code data}, and the same error types: {@code bad_data} (400, with
 * the parse position), {@code execution} (422, e.g. over {@code query.max-samples}), {@code timeout} (503).
 * Runs on the HTTP worker threads (blocking routes), so {@code http.threads} bounds concurrent queries.
 * A query stops at its deadline and as soon as its client disconnects ({@link ClientConnection}), freeing
 * the worker.
 */
final class PromqlRoutes {
    static final String QUERY_PATH = "/api/v1/query";
    /** Prometheus' API answers at most this many warnings and as many infos. */
    static final int MAX_ANNOTATIONS = 10;
    static final String QUERY_RANGE_PATH = "/api/v1/query_range";

    private final QueryContext context;
    private final LongSupplier clockMs;
    private final HeadQueryable storage;
    private final Engine engine;

    PromqlRoutes(QueryContext context, LongSupplier clockMs) {
        this.context = context;
        this.clockMs = clockMs;
        this.storage = new HeadQueryable(context.head());
        this.engine = new Engine(new EngineOptions(context.options().lookbackDeltaMs(),
                EngineOptions.DEFAULTS.maxPointsPerSeries(), context.options().delayedNameRemoval()));
    }

    // Parameters are read in Prometheus' order (the first bad one is the error) and refused in its words.

    Reply instant(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        int limit = QueryRequests.limit(params);
        long t = QueryRequests.time(params, "time", clockMs.getAsLong());
        QueryLimits limits = limits(params);
        long lookback = lookback(params);
        String query = query(params);
        QueryResult result = run(() -> engine.instant(storage, query, t, lookback, limits));
        return answer(result, limit, query);
    }

    Reply range(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        int limit = QueryRequests.limit(params);
        long startMs = PromTime.parseTimeMs(orEmpty(params.first("start")), "start");
        long endMs = PromTime.parseTimeMs(orEmpty(params.first("end")), "end");
        QueryRequests.checkOrder(startMs, endMs, "invalid parameter \"end\": end timestamp must not be before start time");
        long stepMs = PromTime.parseDurationParamMs(orEmpty(params.first("step")), "invalid parameter \"step\": ");
        if (stepMs <= 0) {
            throw ApiError.badData("invalid parameter \"step\": zero or negative query resolution step widths are not "
                    + "accepted. Try a positive integer");
        }
        if ((endMs - startMs) / stepMs > EngineOptions.DEFAULTS.maxPointsPerSeries()) {
            throw ApiError.badData("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the "
                    + "query resolution (?step=XX)");
        }
        QueryLimits limits = limits(params);
        long lookback = lookback(params);
        String query = query(params);
        QueryResult result = run(() -> engine.range(storage, query, startMs, endMs, stepMs, lookback, limits));
        return answer(result, limit, query);
    }

    private static String orEmpty(String text) {
        return text == null ? "" : text;
    }

    /** The query text; "" when absent, which the parser refuses as Prometheus does ("no expression found in input"). */
    private static String query(RequestParams params) {
        return orEmpty(params.first("query"));
    }

    private interface Evaluation {
        QueryResult run();
    }

    /** Evaluates, turning the engine's errors into the API's. */
    private QueryResult run(Evaluation evaluation) throws ApiError {
        try {
            return evaluation.run();
        } catch (StackOverflowError e) {
            // Deep recursion outside the parser's bounds: RE2J's matcher recurses once per nested empty-width
            // loop, so a regex like (a*)* repeated thousands of times exhausts the worker's stack while matching.
            throw ApiError.execution("query too complex to evaluate: the worker thread's stack was exhausted "
                    + "(a deeply nested regular expression?)");
        } catch (PromQLException e) {
            throw switch (e.type()) {
                case BAD_DATA -> ApiError.badData("invalid parameter \"query\": " + e.getMessage()); // parse and type errors
                case EXECUTION -> {
                    context.metrics().rejected(e.getMessage().contains("too many samples") ? QueryMetrics.REASON_MAX_SAMPLES
                            : QueryMetrics.REASON_EXECUTION);
                    yield ApiError.execution(e.getMessage());
                }
                case TIMEOUT -> {
                    context.metrics().rejected(QueryMetrics.REASON_TIMEOUT);
                    yield ApiError.timeout(e.getMessage());
                }
                case CANCELED -> {
                    context.metrics().rejected(QueryMetrics.REASON_CANCELED);
                    yield ApiError.canceled(e.getMessage());
                }
            };
        }
    }

    /** The deadline ({@code timeout}, capped by {@code query.timeout}) and {@code query.max-samples}. */
    private QueryLimits limits(RequestParams params) throws ApiError {
        long timeoutMs = context.options().timeoutMs();
        String text = params.first("timeout");
        if (text != null && !text.isEmpty()) {
            timeoutMs = Math.min(timeoutMs, PromTime.parseDurationParamMs(text, "invalid parameter \"timeout\": "));
        }
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        BooleanSupplier clientGone = ClientConnection.current();
        return new QueryLimits(deadline, context.options().maxSamples(),
                () -> clientGone.getAsBoolean() || Thread.currentThread().isInterrupted());
    }

    private static long lookback(RequestParams params) throws ApiError {
        String text = params.first("lookback_delta");
        return text == null || text.isEmpty() ? 0 : PromTime.parseDurationParamMs(text, "error parsing lookback delta duration: ");
    }

    /**
     * The result as Prometheus' JSON. An answer of up to {@value #WHOLE_POINTS} points (about 2 MB of
     * JSON) is built whole and sent in one write; a larger one streams to the client in HTTP chunks
     * ({@link Reply#streamed}) through a buffer of about {@value #FLUSH_BYTES} bytes, so a large matrix
     * costs its evaluated result, never also its whole JSON text.
     */
    private static Reply answer(QueryResult result, int limit, String query) throws ApiError {
        long points = 0;
        for (QueryResult.Series s : result.series()) {
            points += s.count();
        }
        if (points <= WHOLE_POINTS) {
            JsonBuffer json = new JsonBuffer(4096);
            try {
                write(result, limit, query, json, null);
            } catch (IOException impossible) {
                throw new java.io.UncheckedIOException(impossible); // nothing is written to a stream
            }
            return MetadataRoutes.ok(json);
        }
        return Reply.streamed(ApiError.JSON, java.util.Map.of(), out -> {
            JsonBuffer json = new JsonBuffer(FLUSH_BYTES + (FLUSH_BYTES >> 2));
            write(result, limit, query, json, out);
            json.writeTo(out);
        });
    }

    /** Answers with at most this many points are sent whole, larger ones streamed. */
    static final int WHOLE_POINTS = 50_000;
    /** Bytes gathered before they go to the output stream. */
    static final int FLUSH_BYTES = 32 << 10;

    /**
     * Prometheus' JSON for a result; {@code limit} > 0 keeps that many series and warns when it cut;
     * annotations carry their position in {@code query}, at most {@link #MAX_ANNOTATIONS} of each kind. With
     * {@code out}, what is written goes there whenever the buffer holds {@link #FLUSH_BYTES} (the rest stays
     * in {@code json} for the caller); without, the whole answer stays in {@code json}.
     */
    private static void write(QueryResult result, int limit, String query, JsonBuffer json, OutputStream out) throws IOException {
        json.raw("{\"status\":\"success\",\"data\":{\"resultType\":\"").raw(result.type().apiName()).raw("\",\"result\":");
        boolean truncated = false;
        switch (result.type()) {
            // Prometheus writes these two with encoding/json (Scalar/String.MarshalJSON), not its sample codec
            case SCALAR -> json.raw('[').goJsonSeconds(result.scalarTimeMs()).raw(",\"").fixedValue(result.scalarValue()).raw("\"]");
            case STRING -> json.raw('[').goJsonSeconds(result.scalarTimeMs()).raw(',').string(result.stringValue()).raw(']');
            case VECTOR, MATRIX -> {
                List<QueryResult.Series> series = result.series();
                int n = series.size();
                if (limit > 0 && n > limit) {
                    n = limit;
                    truncated = true;
                }
                json.raw('[');
                for (int i = 0; i < n; i++) {
                    json.raw(i == 0 ? "{\"metric\":" : ",{\"metric\":");
                    series(json, series.get(i), result.type() == ValueType.VECTOR, out);
                }
                json.raw(']');
            }
        }
        json.raw('}');
        List<Annotation> warnings = result.warnings();
        if (truncated) {
            warnings = new java.util.ArrayList<>(warnings);
            warnings.add(Annotation.unpositioned("results truncated due to limit"));
        }
        strings(json, "warnings", annotations(warnings, query, "warning"));
        strings(json, "infos", annotations(result.infos(), query, "info"));
        json.raw('}');
    }

    /**
     * One series' labels and point(s), then its closing brace. A method of its own, called per series: the
     * JIT compiles it apart from the answer's loop.
     */
    private static void series(JsonBuffer json, QueryResult.Series s, boolean vector, OutputStream out) throws IOException {
        labels(json, s.labels());
        if (vector) {
            json.raw(",\"value\":");
            point(json, s.timestamps()[0], s.values()[0]);
        } else {
            json.raw(",\"values\":[");
            for (int p = 0; p < s.count(); p++) {
                point(p == 0 ? json : json.raw(','), s.timestamps()[p], s.values()[p]);
                if ((p & 63) == 63) {
                    flushIfFull(json, out);
                }
            }
            json.raw(']');
        }
        json.raw('}');
        flushIfFull(json, out);
    }

    private static void flushIfFull(JsonBuffer json, OutputStream out) throws IOException {
        if (out != null && json.length() >= FLUSH_BYTES) {
            json.writeTo(out);
            json.reset();
        }
    }

    /** As Prometheus' API lists annotations: positioned, the first ten, then "N more ... omitted". */
    static List<String> annotations(List<Annotation> all, String query, String kind) {
        List<String> out = new java.util.ArrayList<>(Math.min(all.size(), MAX_ANNOTATIONS + 1));
        for (int i = 0; i < all.size() && i < MAX_ANNOTATIONS; i++) {
            out.add(all.get(i).positioned(query));
        }
        if (all.size() > MAX_ANNOTATIONS) {
            out.add((all.size() - MAX_ANNOTATIONS) + " more " + kind + " annotations omitted");
        }
        return out;
    }

    private static void strings(JsonBuffer json, String field, List<String> values) {
        if (values.isEmpty()) {
            return;
        }
        json.raw(",\"").raw(field).raw("\":[");
        for (int i = 0; i < values.size(); i++) {
            (i == 0 ? json : json.raw(',')).string(values.get(i));
        }
        json.raw(']');
    }

    private static void labels(JsonBuffer json, Labels labels) {
        json.raw('{');
        for (int i = 0; i < labels.size(); i++) {
            (i == 0 ? json : json.raw(',')).labelString(labels.name(i)).raw(':').labelString(labels.value(i));
        }
        json.raw('}');
    }

    /** {@code [1700000000.123,"1.5"]}. */
    private static void point(JsonBuffer json, long timestampMs, double value) {
        json.raw('[').timestamp(timestampMs).raw(",\"").value(value).raw("\"]");
    }
}
