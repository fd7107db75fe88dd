/**
 * The promqltest scripting language of Prometheus ({@code promql/promqltest} in the Prometheus
 * repository) and a runner of its scripts against Sluice's engine.
 *
 * <ul>
 * <li>{@link io.sluice.promql.script.Script} parses a script: {@code load <interval>} (and
 *     {@code load_with_nhcb}) with series lines in promtool's expanding notation
 *     ({@link io.sluice.promql.script.SeriesDescription}), {@code clear}, {@code eval instant at <t>} and
 *     {@code eval range from <t> to <t> step <d>} with their {@code expect} lines and the older
 *     {@code eval_fail}/{@code eval_warn}/{@code eval_info}/{@code eval_ordered} forms.
 * <li>{@link io.sluice.promql.script.ScriptRunner} runs it against a
 *     {@link io.sluice.promql.script.ScriptEngine} over an in-memory store, checking each eval as
 *     Prometheus' runner does (values within a relative 1e-6, annotations, errors, order, the instant
 *     query repeated as a range query and with {@code @} pinned at other times).
 * <li>{@link io.sluice.promql.script.EngineScriptEngine} adapts {@link io.sluice.promql.Engine};
 *     {@link io.sluice.promql.script.PromqlTestMain} is the command line ({@code N passed, N failed, N
 *     unsupported}).
 * </ul>
 *
 * The project's scripts are {@code promql/src/test/resources/promql/*.test}, one dynamic JUnit test per
 * eval ({@code PromqlScriptsTest}). Every expected value in them comes from Prometheus' engine: a new
 * eval is written without expectations, its results are taken from Prometheus v0.314.0 (its
 * {@code promqltest} package, engine options as {@code promqltest.NewTestEngine}), and the finished file
 * must pass {@code promqltest.RunTest} there before it is committed.
 */
package io.sluice.promql.script;
