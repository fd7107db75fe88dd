package io.sluice.server.query;

import io.sluice.core.head.Head;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.index.Matcher;
import io.sluice.promql.PromQLException;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.parse.GoStrings;
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

    /**
     * The {@code match[]} selectors, each a vector selector. {@code series}: as {@code /api/v1/series} and
     * export read them (at least one, errors prefixed {@code invalid parameter "match[]": }); else as the
     * label endpoints (none is fine, errors as they are), each as Prometheus words it.
     */
    static List<Matcher[]> matchers(RequestParams params, boolean series) throws ApiError {
        List<String> texts = params.all("match[]");
        if (texts.isEmpty() && series) {
            throw ApiError.badData("no match[] parameter provided");
        }
        List<Matcher[]> sets = new ArrayList<>(texts.size());
        for (String text : texts) {
            sets.add(seriesSelector(text, series ? "invalid parameter \"match[]\": " : ""));
        }
        return sets;
    }

    /** One {@code match[]} selector, parsed by the PromQL parser, as the head's matchers. */
    static Matcher[] seriesSelector(String text, String errorPrefix) throws ApiError {
        List<LabelMatcher> parsed;
        try {
            parsed = Parser.parseSeriesSelector(text);
        } catch (PromQLException e) {
            throw ApiError.badData(errorPrefix + e.getMessage());
        }
        if (parsed.stream().allMatch(LabelMatcher::matchesEmpty)) {
            throw ApiError.badData(errorPrefix + "match[] must contain at least one non-empty matcher");
        }
        Matcher[] matchers = new Matcher[parsed.size()];
        for (int i = 0; i < matchers.length; i++) {
            matchers[i] = HeadQueryable.toCore(parsed.get(i));
        }
        return matchers;
    }

    /** An optional time parameter in ms, {@code defaultMs} when absent (Prometheus' {@code parseTimeParam}). */
    static long time(RequestParams params, String name, long defaultMs) throws ApiError {
        return PromTime.parseTimeParamMs(params.first(name), name, defaultMs);
    }

    /** {@code end >= start}, else 400 with {@code message} (each endpoint words it its own way). */
    static void checkOrder(long startMs, long endMs, String message) throws ApiError {
        if (endMs < startMs) {
            throw ApiError.badData(message);
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

    /** {@code limit}: 0 or absent = none; Go's {@code strconv.Atoi} errors, as Prometheus answers them. */
    static int limit(RequestParams params) throws ApiError {
        String text = params.first("limit");
        if (text == null || text.isEmpty()) {
            return 0;
        }
        long limit = atoi(text, "limit");
        if (limit < 0) {
            throw ApiError.badData("invalid parameter \"limit\": limit must be non-negative");
        }
        return (int) Math.min(limit, Integer.MAX_VALUE);
    }

    /** Go's {@code strconv.Atoi} of a 64-bit int; its error, as {@code invalid parameter "name": ...}. */
    static long atoi(String text, String name) throws ApiError {
        String digits = text.startsWith("+") || text.startsWith("-") ? text.substring(1) : text;
        boolean syntax = !digits.isEmpty() && digits.chars().allMatch(c -> c >= '0' && c <= '9');
        if (syntax) {
            try {
                return Long.parseLong(text.startsWith("+") ? digits : text);
            } catch (NumberFormatException e) {
                throw ApiError.badData("invalid parameter \"" + name + "\": strconv.Atoi: parsing " + GoStrings.quote(text)
                        + ": value out of range");
            }
        }
        throw ApiError.badData("invalid parameter \"" + name + "\": strconv.Atoi: parsing " + GoStrings.quote(text) + ": invalid syntax");
    }

    /** Truncated to {@code limit}: Prometheus' warning. */
    static final String TRUNCATED = "results truncated due to limit";
}
