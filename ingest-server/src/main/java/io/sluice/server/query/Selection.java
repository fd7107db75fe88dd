package io.sluice.server.query;

import io.sluice.core.index.Matcher;
import java.util.List;

/**
 * A parsed PromQL selector: a vector selector ({@code rangeMs} = -1) or a range selector
 * ({@code name{...}[5m]}, {@code rangeMs} > 0 or 0).
 *
 * @param matchers the label matchers, the metric name as a {@code __name__} equality among them
 * @param rangeMs  the range of a range selector in milliseconds, or -1 for a vector selector
 */
record Selection(List<Matcher> matchers, long rangeMs) {
    Selection {
        matchers = List.copyOf(matchers);
    }

    boolean isRange() {
        return rangeMs >= 0;
    }

    Matcher[] matcherArray() {
        return matchers.toArray(new Matcher[0]);
    }
}
