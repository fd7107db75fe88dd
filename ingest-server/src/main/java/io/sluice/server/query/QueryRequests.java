package io.sluice.server.query;

import io.sluice.core.head.Head;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.index.Matcher;
import io.sluice.promql.PromQLException;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.parse.Parser;
import io.sluice.server.http.RequestParams;
import java.util.ArrayList;
import java.util.List;

/** Parameter rules shared by the query endpoints, with Prometheus' error wording. */
final class QueryRequests {
    /** No start: all time (as Prometheus' API, which defaults to its minimum time). */
    static final long MIN_TIME_MS = Long.MIN_VALUE / 2;
    static final long MAX_TIME_MS = Long.MAX_VALUE / 2;

    private QueryRequests() {
    }

    /** The {@code match[]} selectors, each a vector selector; at least one when {@code required}. */
    static List<Matcher[]> matchers(RequestParams params, boolean required) throws ApiError {
        List<String> texts = params.all("match[]");
        if (texts.isEmpty() && required) {
            throw ApiError.badData("no match[] parameter provided");
        }
        List<Matcher[]> sets = new ArrayList<>(texts.size());
        for (String text : texts) {
            sets.add(seriesSelector(text));
        }
        return sets;
    }

    /** One {@code match[]} selector, parsed by the PromQL parser, as the head's matchers. */
    static Matcher[] seriesSelector(String text) throws ApiError {
        List<LabelMatcher> parsed;
        try {
            parsed = Parser.parseSeriesSelector(text);
        } catch (PromQLException e) {
            throw ApiError.badData("invalid parameter \"match[]\": " + e.getMessage());
        }
        if (parsed.stream().allMatch(LabelMatcher::matchesEmpty)) {
            throw ApiError.badData("match[] must contain at least one non-empty matcher");
        }
        Matcher[] matchers = new Matcher[parsed.size()];
        for (int i = 0; i < matchers.length; i++) {
            matchers[i] = HeadQueryable.toCore(parsed.get(i));
        }
        return matchers;
    }

    /** {@code start} in ms, or {@code defaultMs} when absent. */
    static long time(RequestParams params, String name, long defaultMs) throws ApiError {
        String text = params.first(name);
        return text == null || text.isEmpty() ? defaultMs : PromTime.parseTimeMs(text, name);
    }

    /** Checks {@code end >= start}. */
    static void checkOrder(long startMs, long endMs) throws ApiError {
        if (endMs < startMs) {
            throw ApiError.badData("end timestamp must not be before start time");
        }
    }

    /** One head query per selector, merged. */
    static SeriesUnion select(Head head, List<Matcher[]> sets, long startMs, long endMs) {
        HeadQuery[] queries = new HeadQuery[sets.size()];
        for (int i = 0; i < queries.length; i++) {
            queries[i] = head.query(startMs, endMs, sets.get(i));
        }
        return new SeriesUnion(queries);
    }

    /** {@code limit}: 0 or absent = none. */
    static int limit(RequestParams params) throws ApiError {
        String text = params.first("limit");
        if (text == null || text.isEmpty()) {
            return 0;
        }
        try {
            int limit = Integer.parseInt(text);
            if (limit >= 0) {
                return limit;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw ApiError.badData("invalid parameter \"limit\": cannot parse \"" + text + "\" to a non-negative integer");
    }
}
