package io.sluice.promql.script;

import io.sluice.promql.Annotation;
import io.sluice.promql.PromQLException;
import io.sluice.promql.QueryResult;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.Queryable;
import io.sluice.promql.storage.SampleIterator;
import io.sluice.promql.storage.SeriesSet;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * A test double of {@link ScriptEngine} for the runner's own tests: understands a bare metric name (the
 * latest sample within 5 minutes, staleness markers ending a series), {@code name[d]} as an instant
 * query, number literals, {@code "strings"}, and a few words that make it misbehave on purpose.
 */
class FakeEngine implements ScriptEngine {
    static final long LOOKBACK = 300_000;

    /** Added to every value a range query returns (to make range mode disagree with instant queries). */
    double rangeSkew;
    /** Applied to every instant vector value. */
    DoubleUnaryOperator instantMap = v -> v;
    List<Annotation> warnings = List.of();
    List<Annotation> infos = List.of();
    boolean reverseOrder;
    int instantCalls;

    @Override
    public QueryResult instant(Queryable storage, String query, long timeMs) {
        instantCalls++;
        if (query.equals("boom")) {
            throw PromQLException.execution("boom: it broke");
        }
        if (query.startsWith("\"")) {
            return new QueryResult(ValueType.STRING, List.of(), timeMs, 0, query.substring(1, query.length() - 1), warnings, infos);
        }
        Double num = Script.parseScalar(query);
        if (num != null) {
            return new QueryResult(ValueType.SCALAR, List.of(), timeMs, num, null, warnings, infos);
        }
        if (query.endsWith("]")) {
            int b = query.indexOf('[');
            long range = Durations.parse(query.substring(b + 1, query.length() - 1));
            List<QueryResult.Series> out = new ArrayList<>();
            SeriesSet ss = storage.select(timeMs - range, timeMs, List.of(LabelMatcher.equal("__name__", query.substring(0, b))));
            while (ss.next()) {
                SampleIterator it = ss.iterator(null);
                List<long[]> ts = new ArrayList<>();
                List<Double> vs = new ArrayList<>();
                while (it.next()) {
                    if (it.timestamp() > timeMs - range && it.timestamp() <= timeMs && !SampleIterator.isStaleMarker(it.value())) {
                        ts.add(new long[] {it.timestamp()});
                        vs.add(it.value());
                    }
                }
                long[] t = new long[ts.size()];
                double[] v = new double[ts.size()];
                for (int i = 0; i < t.length; i++) {
                    t[i] = ts.get(i)[0];
                    v[i] = vs.get(i);
                }
                out.add(new QueryResult.Series(ss.labels(), t, v, t.length));
            }
            return new QueryResult(ValueType.MATRIX, out, 0, 0, null, warnings, infos);
        }
        List<QueryResult.Series> out = new ArrayList<>();
        SeriesSet ss = storage.select(timeMs - LOOKBACK, timeMs, List.of(LabelMatcher.equal("__name__", query)));
        while (ss.next()) {
            SampleIterator it = ss.iterator(null);
            double last = Double.NaN;
            boolean found = false;
            while (it.next() && it.timestamp() <= timeMs) {
                if (it.timestamp() > timeMs - LOOKBACK) {
                    last = it.value();
                    found = !SampleIterator.isStaleMarker(last);
                }
            }
            if (found) {
                out.add(new QueryResult.Series(ss.labels(), new long[] {timeMs}, new double[] {instantMap.applyAsDouble(last)}, 1));
            }
        }
        if (reverseOrder) {
            out = out.reversed();
        }
        return new QueryResult(ValueType.VECTOR, out, 0, 0, null, warnings, infos);
    }

    @Override
    public QueryResult range(Queryable storage, String query, long startMs, long endMs, long stepMs) {
        if (query.equals("boom")) {
            throw PromQLException.execution("boom: it broke");
        }
        if (query.startsWith("\"") || query.endsWith("]")) {
            throw new PromQLException(PromQLException.ErrorType.BAD_DATA, "invalid expression type for range query");
        }
        java.util.TreeMap<Labels, List<double[]>> points = new java.util.TreeMap<>();
        for (long t = startMs; t <= endMs; t += stepMs) {
            QueryResult r = instant(storage, query, t);
            instantCalls--;
            if (r.type() == ValueType.SCALAR) {
                points.computeIfAbsent(Labels.EMPTY, k -> new ArrayList<>()).add(new double[] {t, r.scalarValue()});
            } else {
                for (QueryResult.Series s : r.series()) {
                    points.computeIfAbsent(s.labels(), k -> new ArrayList<>()).add(new double[] {t, s.values()[0]});
                }
            }
        }
        List<QueryResult.Series> out = new ArrayList<>();
        points.forEach((l, p) -> {
            long[] ts = new long[p.size()];
            double[] vs = new double[p.size()];
            for (int i = 0; i < ts.length; i++) {
                ts[i] = (long) p.get(i)[0];
                vs[i] = p.get(i)[1] + rangeSkew;
            }
            out.add(new QueryResult.Series(l, ts, vs, ts.length));
        });
        return new QueryResult(ValueType.MATRIX, out, 0, 0, null, warnings, infos);
    }
}
