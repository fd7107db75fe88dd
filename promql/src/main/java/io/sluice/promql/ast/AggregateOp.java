package io.sluice.promql.ast;

/** The aggregation operators; those with a parameter take it as their first argument. */
public enum AggregateOp {
    SUM, AVG, COUNT, MIN, MAX, GROUP, STDDEV, STDVAR,
    TOPK(true), BOTTOMK(true), COUNT_VALUES(true), QUANTILE(true), LIMITK(true), LIMIT_RATIO(true);

    private final boolean hasParameter;

    AggregateOp() {
        this(false);
    }

    AggregateOp(boolean hasParameter) {
        this.hasParameter = hasParameter;
    }

    public boolean hasParameter() {
        return hasParameter;
    }

    /** The keyword as written in PromQL ({@code count_values}). */
    public String keyword() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
