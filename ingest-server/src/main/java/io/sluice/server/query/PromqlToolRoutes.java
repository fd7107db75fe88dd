package io.sluice.server.query;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.promql.PromQLException;
import io.sluice.promql.ast.AstJson;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Printer;
import io.sluice.promql.parse.Parser;
import io.sluice.server.http.Reply;
import io.sluice.server.http.RequestParams;
import java.nio.charset.StandardCharsets;

/**
 * The rest of what Grafana's Prometheus data source and PromQL editors ask a Prometheus, answered with
 * Prometheus' JSON: {@code /api/v1/status/buildinfo}, {@code /api/v1/metadata} (Sluice keeps no metric
 * metadata: always empty), {@code /api/v1/query_exemplars} (no exemplars: always empty, after checking
 * the query and times as Prometheus does), {@code /api/v1/format_query} (the query re-printed in
 * Prometheus' {@code Pretty(0)} form) and {@code /api/v1/parse_query} (the syntax tree as Prometheus'
 * JSON). A query that does not parse answers 400 {@code bad_data} with the parse position, as Prometheus
 * does.
 */
final class PromqlToolRoutes {
    static final String BUILDINFO_PATH = "/api/v1/status/buildinfo";
    static final String METADATA_PATH = "/api/v1/metadata";
    static final String EXEMPLARS_PATH = "/api/v1/query_exemplars";
    static final String FORMAT_PATH = "/api/v1/format_query";
    static final String PARSE_PATH = "/api/v1/parse_query";

    /**
     * The Prometheus version Sluice's query API answers as. Grafana's Prometheus data source reads
     * {@code version} as semver to decide which API features to use (it enables them with
     * {@code >=} comparisons; a response with an {@code application} field would be taken for Mimir or
     * Cortex, so there is none). {@code 3.0.0} is the smallest claim that is still Prometheus 3: the
     * PromQL dialect Sluice implements (quoted UTF-8 names, Prometheus 3's range and lookback
     * semantics), checked against Prometheus v3 (Go module v0.314.0).
     */
    static final String PROMETHEUS_VERSION = "3.0.0";

    private final byte[] buildInfo;

    PromqlToolRoutes() {
        String sluice = PromqlToolRoutes.class.getPackage().getImplementationVersion();
        JsonBuffer json = new JsonBuffer(256).raw("{\"status\":\"success\",\"data\":{\"version\":")
                .string(PROMETHEUS_VERSION)
                .raw(",\"revision\":").string(sluice == null ? "" : "sluice-" + sluice)
                .raw(",\"branch\":\"\",\"buildUser\":\"\",\"buildDate\":\"\",\"goVersion\":\"\"}}");
        this.buildInfo = json.toByteArray();
    }

    Reply buildInfo(FullHttpRequest request) {
        return new Reply(HttpResponseStatus.OK, ApiError.JSON, buildInfo);
    }

    /** No metric metadata is kept (Kafka carries samples only): {@code {}} for numbers as limits. */
    Reply metadata(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        for (String name : new String[] {"limit", "limit_per_metric"}) {
            String text = params.first(name);
            if (text != null && !text.isEmpty()) {
                try {
                    QueryRequests.atoi(text, name);
                } catch (ApiError e) {
                    throw ApiError.badData(name + " must be a number");
                }
            }
        }
        return MetadataRoutes.ok(new JsonBuffer(48).raw("{\"status\":\"success\",\"data\":{}}"));
    }

    /** No exemplars are kept: {@code []} for a query that parses and valid times. */
    Reply exemplars(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        long startMs = QueryRequests.time(params, "start", QueryRequests.MIN_TIME_MS);
        long endMs = QueryRequests.time(params, "end", QueryRequests.MAX_TIME_MS);
        QueryRequests.checkOrder(startMs, endMs, "end timestamp must not be before start timestamp");
        parse(params.first("query"), "");
        return MetadataRoutes.ok(new JsonBuffer(48).raw("{\"status\":\"success\",\"data\":[]}"));
    }

    Reply format(FullHttpRequest request) throws ApiError {
        Expr expr = parse(RequestParams.of(request).first("query"), "invalid parameter \"query\": ");
        return MetadataRoutes.ok(new JsonBuffer(256).raw("{\"status\":\"success\",\"data\":").string(Printer.pretty(expr)).raw('}'));
    }

    Reply parse(FullHttpRequest request) throws ApiError {
        Expr expr = parse(RequestParams.of(request).first("query"), "invalid parameter \"query\": ");
        String json = "{\"status\":\"success\",\"data\":" + AstJson.toJson(expr) + "}";
        return new Reply(HttpResponseStatus.OK, ApiError.JSON, json.getBytes(StandardCharsets.UTF_8));
    }

    /** Parses {@code query} ("" when absent, which Prometheus reports as "no expression found in input"). */
    private static Expr parse(String query, String prefix) throws ApiError {
        try {
            return Parser.parse(query == null ? "" : query);
        } catch (PromQLException e) {
            throw ApiError.badData(prefix + e.getMessage());
        }
    }
}
