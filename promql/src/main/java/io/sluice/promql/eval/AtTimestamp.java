package io.sluice.promql.eval;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.storage.SampleIterator;
import io.sluice.promql.storage.SeriesSet;
import java.util.Arrays;

/**
 * {@code timestamp()} of a vector selector with {@code @}, as Prometheus evaluates it: at the {@code @} time
 * without the offset (so that every step has a point), over the samples the selector's offset selected.
 * Prometheus selects {@code [at - offset - lookback, at - offset]} and then looks for the latest sample at
 * or before {@code at} within the lookback, so {@code timestamp(x @ t offset 5m)} finds nothing with the
 * default 5m lookback, and {@code timestamp(x @ t offset 1m)} the latest sample up to {@code t - 1m}.
 */
final class AtTimestamp {
    private AtTimestamp() {
    }

    static RowSource select(Evaluator ev, Expr.VectorSelector vs, Grid g) {
        long at = ev.atTime(vs.atKind(), vs.atMs());
        long offset = vs.offsetMs();
        long to = Math.min(at, at - offset);
        long from = Math.max(at - ev.lookback + 1, at - offset - ev.lookback);
        if (g.n() == 0 || from > to) {
            return () -> null;
        }
        SeriesSet set = ev.select(from, to, vs.matchers(), true);
        double[] buf = new double[g.n()];
        Row row = new Row(null, false, buf);
        return new RowSource() {
            SampleIterator it;

            @Override
            public Row next() {
                while (set.next()) {
                    ev.checkSometimes();
                    it = set.iterator(it);
                    if (it.latest(from, to) && !SampleIterator.isStaleMarker(it.value())) {
                        Arrays.fill(buf, it.timestamp() / 1000.0);
                        row.labels = set.labels();
                        row.dropName = false;
                        row.v = buf;
                        return row;
                    }
                }
                return null;
            }
        };
    }
}
