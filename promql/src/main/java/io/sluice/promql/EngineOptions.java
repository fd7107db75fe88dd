package io.sluice.promql;

/**
 * Engine-wide settings. {@code lookbackDeltaMs}: how far back an instant selector looks for a sample
 * (Prometheus' {@code --query.lookback-delta}, 5m). {@code maxPointsPerSeries}: a range query with more
 * steps than this is refused (Prometheus: 11,000, "exceeded maximum resolution of 11,000 points per
 * timeseries. Try decreasing the query resolution (?step=XX)").
 */
public record EngineOptions(long lookbackDeltaMs, int maxPointsPerSeries) {
    public static final EngineOptions DEFAULTS = new EngineOptions(5 * 60_000L, 11_000);
}
