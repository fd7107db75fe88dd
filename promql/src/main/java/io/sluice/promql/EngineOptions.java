package io.sluice.promql;

/**
 * Engine-wide settings. {@code lookbackDeltaMs}: how far back an instant selector looks for a sample
 * (Prometheus' {@code --query.lookback-delta}, 5m). {@code maxPointsPerSeries}: a range query with more
 * steps than this is refused (Prometheus: 11,000, "exceeded maximum resolution of 11,000 points per
 * timeseries. Try decreasing the query resolution (?step=XX)"). {@code delayedNameRemoval}: the metric
 * name that a function or operator drops is removed when the query ends, so later operations still see
 * it (Prometheus' {@code promql-delayed-name-removal} feature: off in its server by default, on in its
 * test engine); off, it is removed at once and series that then share their labels are an error there.
 */
public record EngineOptions(long lookbackDeltaMs, int maxPointsPerSeries, boolean delayedNameRemoval) {
    public static final EngineOptions DEFAULTS = new EngineOptions(5 * 60_000L, 11_000, false);

    public EngineOptions withDelayedNameRemoval(boolean on) {
        return new EngineOptions(lookbackDeltaMs, maxPointsPerSeries, on);
    }
}
