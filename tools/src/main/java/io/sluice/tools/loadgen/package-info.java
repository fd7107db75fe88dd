/**
 * The load generator: realistic node-exporter-like series and samples
 * ({@link io.sluice.tools.loadgen.NodeExporterModel}, pure functions of a seed), laid out into
 * records ({@link io.sluice.tools.loadgen.LoadPlan}), encoded in a payload format
 * ({@link io.sluice.tools.loadgen.PayloadWriter}) and produced to any broker at an optional rate
 * ({@link io.sluice.tools.loadgen.Loadgen#run}). Used by {@code sluice loadgen}, {@code sluice demo},
 * the benchmarks and the tests, which recompute what was produced from the same configuration.
 *
 * <p>Memory: the native writer caches each series' canonical labels (~150 bytes a series); the
 * producer buffers up to 64 MiB of records.
 */
package io.sluice.tools.loadgen;
