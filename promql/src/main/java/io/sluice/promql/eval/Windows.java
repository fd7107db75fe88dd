package io.sluice.promql.eval;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.SampleIterator;
import io.sluice.promql.storage.SeriesSet;
import java.util.Arrays;

/** Raw points of one series at a time for a range argument (matrix selector or subquery). */
final class Windows {
    private final Evaluator ev;
    Labels labels;
    boolean dropName;
    long[] ts = new long[64];
    double[] vs = new double[64];
    int n;
    final long rangeMs;
    final long offset;
    final Expr.AtKind at;
    final long atMs;
    private final SeriesSet set;
    private SampleIterator it;
    private final RowSource rows;
    private final Grid inner;
    private final Grid grid;
    private final long minT;
    private final long maxT;

    Windows(Evaluator ev, Expr arg, Grid g) {
        this.ev = ev;
        this.grid = g;
        while (arg instanceof Expr.Paren p) {
            arg = p.expr();
        }
        if (arg instanceof Expr.MatrixSelector ms) {
            Expr.VectorSelector vs = ms.selector();
            rangeMs = ms.rangeMs();
            offset = vs.offsetMs();
            at = vs.atKind();
            atMs = vs.atMs();
            long first = ev.refTime(g, 0, offset, at, atMs);
            long last = ev.refTime(g, g.n() - 1, offset, at, atMs);
            minT = Math.min(first, last) - rangeMs;
            maxT = Math.max(first, last);
            set = ev.select(minT + 1, maxT, vs.matchers(), false);
            rows = null;
            inner = null;
        } else {
            Expr.Subquery sq = (Expr.Subquery) arg;
            rangeMs = sq.rangeMs();
            offset = sq.offsetMs();
            at = sq.atKind();
            atMs = sq.atMs();
            inner = ev.subqueryGrid(sq, g);
            minT = inner.start() - 1;
            maxT = inner.end();
            set = null;
            rows = inner.n() == 0 ? () -> null : ev.evalVector(sq.expr(), inner);
        }
    }

    long atTimeValue() {
        return ev.atTime(at, atMs);
    }

    boolean next() {
        ev.checkSometimes();
        if (set != null) {
            while (set.next()) {
                it = set.iterator(it);
                n = 0;
                // Only the samples inside some step's window: seek to each window past what was read.
                long readTo = Long.MIN_VALUE;
                boolean have = true;
                for (int i = 0; i < grid.n() && have; i++) {
                    long end = ev.refTime(grid, i, offset, at, atMs);
                    long from = Math.max(end - rangeMs, readTo);
                    if (from >= end) {
                        continue;
                    }
                    have = it.seek(from + 1);
                    while (have && it.timestamp() <= end) {
                        double v = it.value();
                        if (!SampleIterator.isStaleMarker(v)) {
                            add(it.timestamp(), v);
                        }
                        have = it.next();
                    }
                    readTo = end;
                    if (at != Expr.AtKind.NONE) {
                        break;
                    }
                }
                if (n > 0) {
                    labels = set.labels();
                    dropName = false;
                    return true;
                }
            }
            return false;
        }
        for (Row r = rows.next(); r != null; r = rows.next()) {
            n = 0;
            for (int i = 0; i < inner.n(); i++) {
                if (!Row.absent(r.v[i])) {
                    add(inner.t(i), r.v[i]);
                }
            }
            if (n > 0) {
                labels = r.labels;
                dropName = r.dropName;
                return true;
            }
        }
        return false;
    }

    private void add(long t, double v) {
        if (n == ts.length) {
            ts = Arrays.copyOf(ts, n * 2);
            vs = Arrays.copyOf(vs, n * 2);
        }
        ts[n] = t;
        vs[n++] = v;
    }
}
