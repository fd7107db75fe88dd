package io.sluice.server.query;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.core.head.Head;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelsView;
import io.sluice.promql.labels.Labels;
import io.sluice.server.http.Reply;
import io.sluice.server.http.RequestParams;
import io.sluice.server.http.Router;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * {@code /api/v1/labels}, {@code /api/v1/label/{name}/values} and {@code /api/v1/series}, with
 * Prometheus' JSON shape {@code {"status":"success","data":[...]}}.
 *
 * <p>Without {@code match[]}, {@code start} or {@code end}, labels and label values come from the
 * shards' postings (every series in the head, no series is read). With {@code match[]}, or with
 * {@code start}/{@code end} alone, they come from the (matching) series that have a sample in
 * [start, end], like Prometheus; that reads every selected series (a cheap first/last-time check, then
 * a snapshot of those that may be in range), and only {@code match[]} counts against
 * {@code query.max-series} (Prometheus' labels endpoints have no series limit). Series answers list
 * each matching series with a sample in range once, in label order. Parameters are read, checked and
 * refused in Prometheus' order and words; an end before the start selects nothing; an answer cut at
 * {@code limit} carries Prometheus' warning {@code results truncated due to limit}.
 */
final class MetadataRoutes {
    static final String LABELS_PATH = "/api/v1/labels";
    static final String LABEL_VALUES_PATH = "/api/v1/label/{name}/values";
    static final String SERIES_PATH = "/api/v1/series";

    /** Every series: a matcher that matches "" selects all series (Selector), those without a name too. */
    private static final List<Matcher[]> ALL_SERIES = List.<Matcher[]>of(new Matcher[] {Matcher.re("__name__", ".*")});

    private final Head head;
    private final QueryContext context;

    MetadataRoutes(QueryContext context) {
        this.head = context.head();
        this.context = context;
    }

    Reply labels(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        int limit = QueryRequests.limit(params);
        long startMs = QueryRequests.time(params, "start", QueryRequests.MIN_TIME_MS);
        long endMs = QueryRequests.time(params, "end", QueryRequests.MAX_TIME_MS);
        List<Matcher[]> sets = QueryRequests.matchers(params, false);
        Collection<String> names = sets.isEmpty() && !hasRange(params) ? goOrder(head.labelNames()) : fromSeries(sets, startMs, endMs, null);
        return strings(names, limit);
    }

    Reply labelValues(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        String name = Router.pathSegment(params.path(), 4);
        if (name == null || name.isEmpty()) {
            throw ApiError.badData("invalid label name: \"\"");
        }
        int limit = QueryRequests.limit(params);
        long startMs = QueryRequests.time(params, "start", QueryRequests.MIN_TIME_MS);
        long endMs = QueryRequests.time(params, "end", QueryRequests.MAX_TIME_MS);
        List<Matcher[]> sets = QueryRequests.matchers(params, false);
        Collection<String> values = sets.isEmpty() && !hasRange(params) ? goOrder(head.labelValues(name)) : fromSeries(sets, startMs, endMs, name);
        return strings(values, limit);
    }

    Reply series(FullHttpRequest request) throws ApiError {
        RequestParams params = RequestParams.of(request);
        if (params.all("match[]").isEmpty()) {
            throw ApiError.badData("no match[] parameter provided");
        }
        int limit = QueryRequests.limit(params);
        long startMs = QueryRequests.time(params, "start", QueryRequests.MIN_TIME_MS);
        long endMs = QueryRequests.time(params, "end", QueryRequests.MAX_TIME_MS);
        SeriesUnion union = QueryRequests.select(head, QueryRequests.matchers(params, true), startMs, endMs);
        QueryBudget budget = context.budget();
        JsonBuffer json = new JsonBuffer(4096).raw("{\"status\":\"success\",\"data\":[");
        int n = 0;
        boolean truncated = false;
        while (union.next()) {
            SeriesSnapshot snapshot = union.snapshot();
            if (snapshot.samples().next()) {
                if (limit > 0 && n == limit) {
                    truncated = true; // one series more than the limit: Prometheus' warning
                    break;
                }
                budget.addSeries();
                json.raw(n++ == 0 ? "" : ",").labels(snapshot.labels(), snapshot.labelsArray(), false);
            }
        }
        return ok(truncated(json.raw(']'), truncated).raw('}'));
    }

    /** True if {@code start} or {@code end} is given. */
    private static boolean hasRange(RequestParams params) {
        return !isEmpty(params.first("start")) || !isEmpty(params.first("end"));
    }

    private static boolean isEmpty(String text) {
        return text == null || text.isEmpty();
    }

    /**
     * Label names ({@code name} null) or the values of {@code name} over the series selected by
     * {@code sets} (all series if empty) with a sample in range.
     */
    private Collection<String> fromSeries(List<Matcher[]> sets, long startMs, long endMs, String name) throws ApiError {
        SeriesUnion union = QueryRequests.select(head, sets.isEmpty() ? ALL_SERIES : sets, startMs, endMs);
        QueryBudget budget = sets.isEmpty() ? null : context.budget();
        TreeSet<String> found = new TreeSet<>(Labels::compareUtf8);
        while (union.next()) {
            SeriesSnapshot snapshot = union.snapshot();
            if (!snapshot.samples().next()) {
                continue;
            }
            if (budget != null) {
                budget.addSeries();
            }
            LabelsView labels = snapshot.labels();
            if (name == null) {
                for (labels.rewind(); labels.next(); ) {
                    found.add(labels.name());
                }
                labels.rewind();
            } else {
                String value = labels.get(name);
                if (value != null) {
                    found.add(value);
                }
            }
        }
        return found;
    }

    /** Sorted as Prometheus returns names and values: as Go compares strings, by their UTF-8 bytes. */
    private static List<String> goOrder(List<String> strings) {
        strings.sort(Labels::compareUtf8);
        return strings;
    }

    private static Reply strings(Collection<String> values, int limit) {
        JsonBuffer json = new JsonBuffer(4096).raw("{\"status\":\"success\",\"data\":[");
        int n = 0;
        for (String v : values) {
            if (limit > 0 && n == limit) {
                break;
            }
            json.raw(n++ == 0 ? "" : ",").string(v);
        }
        return ok(truncated(json.raw(']'), limit > 0 && values.size() > limit).raw('}'));
    }

    /** Prometheus' warning for an answer cut at its {@code limit}. */
    private static JsonBuffer truncated(JsonBuffer json, boolean truncated) {
        return truncated ? json.raw(",\"warnings\":[").string(QueryRequests.TRUNCATED).raw(']') : json;
    }

    static Reply ok(JsonBuffer json) {
        return new Reply(HttpResponseStatus.OK, ApiError.JSON, json.toByteArray());
    }
}
