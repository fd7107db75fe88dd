/**
 * The PromQL evaluator: {@link io.sluice.promql.eval.Evaluator} evaluates a type-checked expression over
 * a grid of steps (one step for an instant query), with Prometheus 3.x semantics, delayed name removal
 * included (a series keeps {@code __name__} until the query ends unless an operation removes it at once).
 *
 * <h2>Series at a time over all steps</h2>
 * An instant vector is a stream of rows ({@code RowSource}): one series' labels and a {@code double[]}
 * with its value at every step (a signalling-NaN bit pattern marks "no point"). A selector fills a row
 * from one pass of the series' iterator, seeking past gaps; a row is reused for the next series unless a
 * consumer keeps it. A range-vector function (rate, *_over_time, ...) reads one series' samples into
 * primitive buffers reused across series (only the samples inside some step's window) and slides the
 * window (t - range, t] over them with two indices. Subqueries evaluate their inner expression the same
 * way on their own grid (absolute multiples of the subquery step, default 1m) and feed its points to the
 * window. Nothing allocates per sample.
 *
 * <h2>What is held</h2>
 * sum/avg/count/min/max/group/stddev/stdvar fold each input row into per-group arrays and drop it, so the
 * input series are never all held; topk/bottomk keep per group and step a heap of at most k candidates,
 * limitk/limit_ratio the points they select. Binary operators hold the "one" side, indexed by matching
 * signature, and stream the other; and/unless hold only which signatures the right side has at each
 * step. quantile, count_values, sort, label_replace/label_join, histogram_quantile, info (its argument
 * and the info series it joins) and the final result hold the rows they need. Subtrees whose value is the same at every step (selectors
 * pinned with {@code @}, as Prometheus decides) are evaluated once and broadcast.
 *
 * <h2>Limits</h2>
 * Cancellation and the deadline are checked every 64 series and per step of the k-aggregations;
 * materialised points count against {@code maxSamples} ("query processing would load too many samples
 * into memory in query execution").
 */
package io.sluice.promql.eval;
