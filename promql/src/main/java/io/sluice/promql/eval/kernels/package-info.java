/**
 * The numeric kernels of PromQL's functions, as pure static methods on primitive arrays (no engine
 * types, no allocation per call): the evaluator hands them one window {@code [lo, hi)} of a series'
 * samples, or a group's values. Semantics follow Prometheus 3.x ({@code promql/functions.go},
 * {@code promql/quantile.go}) to the bit where it matters: rate extrapolation and counter resets,
 * Kahan-Neumaier summation, least squares, {@code histogram_quantile}'s bucket fixes, Go's {@code
 * math.Pow} special cases and Go's calendar for the date functions.
 */
package io.sluice.promql.eval.kernels;
