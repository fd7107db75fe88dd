package io.sluice.promql.script;

import io.sluice.promql.Annotation;
import io.sluice.promql.QueryResult;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.eval.kernels.Quantiles;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.MemoryQueryable;
import io.sluice.promql.storage.SampleIterator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Runs a {@link Script} against a {@link ScriptEngine} over a {@link MemoryQueryable}, as Prometheus'
 * promqltest runner does: each {@code eval} passes or fails on its own (a failure does not stop the
 * script), with the same checks:
 * <ul>
 * <li>an instant eval is also run as a range query from t-1m to t+1m every 1m and the step at t must give
 *     the same result (not for {@code expect ordered}, {@code expect string}, {@code expect range vector} or
 *     queries using {@code start()}, {@code end()}, {@code range()}, {@code step()}); and, when the engine can
 *     rewrite queries ({@link ScriptEngine#withAtModifier}), with {@code @ t} on every selector at other
 *     evaluation times;
 * <li>values compare as Prometheus' {@code almost.Equal} with relative epsilon 1e-6 (NaN equals NaN, a
 *     staleness marker only equals a staleness marker);
 * <li>annotations and errors as the {@code expect} lines (and the old {@code eval_fail}/{@code _warn}/
 *     {@code _info}/{@code _ordered} forms) say.
 * </ul>
 * Native histograms are not supported (their samples are not loaded; the float samples of the same loads
 * are): an eval expecting {@code {{...}}} values is reported {@link Status#UNSUPPORTED} and not run, and an
 * eval that fails while one of its selectors matches a series loaded with histogram samples (or made by
 * {@code load_with_nhcb}) is reported {@link Status#UNSUPPORTED} rather than failed. Start timestamps
 * ({@code metric@st} lines) are not loaded either: a failing eval after such a load is unsupported too.
 */
public final class ScriptRunner {
    /** Relative error allowed between an expected and a computed value (Prometheus' test epsilon). */
    public static final double EPSILON = 0.000001;
    private static final long MINUTE = 60_000;
    private static final Pattern QUERY_CONTEXT_FUNCS = Pattern.compile("(start|end|range|step)\\(\\)");

    public enum Status { PASSED, FAILED, UNSUPPORTED }

    /** The outcome of one command ({@code eval}, or a {@code load} that failed). */
    public record Outcome(String file, int line, String query, Status status, String message) {
        @Override
        public String toString() {
            return file + ":" + line + ": " + status + " " + (query == null ? "" : query) + (message == null ? "" : "\n    " + message);
        }
    }

    private final ScriptEngine engine;

    public ScriptRunner(ScriptEngine engine) {
        this.engine = engine;
    }

    /** Runs every command of {@code script} in order against fresh storage; one outcome per eval. */
    public List<Outcome> run(Script script) {
        MemoryQueryable storage = new MemoryQueryable();
        Set<Labels> histogramSeries = new HashSet<>();
        boolean startTimestamps = false;
        List<Outcome> out = new ArrayList<>();
        for (Script.Command cmd : script.commands()) {
            switch (cmd) {
                case Script.Clear c -> {
                    storage.clear();
                    histogramSeries.clear();
                    startTimestamps = false;
                }
                case Script.Load l -> {
                    String err = load(storage, l, histogramSeries);
                    startTimestamps |= l.hasStartTimestamps();
                    if (err != null) {
                        out.add(new Outcome(script.name(), l.line(), "load", Status.FAILED, err));
                    }
                }
                case Script.Eval e -> out.add(runEval(script.name(), storage, e, histogramSeries, startTimestamps));
            }
        }
        return out;
    }

    private static String load(MemoryQueryable storage, Script.Load l, Set<Labels> histogramSeries) {
        String err = null;
        for (SeriesDescription sd : l.series()) {
            if (sd.hasHistogram()) {
                histogramSeries.add(sd.labels());
            }
            if (l.withNhcb()) {
                // the native histogram load_with_nhcb makes: the classic series' base name, without le
                String name = sd.labels().metricName();
                for (String suffix : new String[] {"_bucket", "_count", "_sum"}) {
                    if (name.endsWith(suffix)) {
                        histogramSeries.add(sd.labels().toBuilder().delete("le")
                                .set(Labels.METRIC_NAME, name.substring(0, name.length() - suffix.length())).build());
                    }
                }
            }
            for (int i = 0; i < sd.size(); i++) {
                if (sd.kinds()[i] != SeriesDescription.FLOAT) {
                    continue;
                }
                long t = i * l.intervalMs();
                if (!storage.add(sd.labels(), t, sd.values()[i]) && err == null) {
                    err = "sample of " + sd.labels() + " at " + t + " is not after the series' last sample (out of order or duplicate)";
                }
            }
        }
        return err;
    }

    private Outcome runEval(String file, MemoryQueryable storage, Script.Eval e, Set<Labels> histogramSeries,
                            boolean startTimestamps) {
        if (e.expectsHistogram()) {
            return new Outcome(file, e.line(), e.query(), Status.UNSUPPORTED, "native histogram in the expected result");
        }
        String err;
        try {
            String parseError = engine.parseError(e.query());
            if (parseError != null) {
                err = "the query does not parse (Prometheus rejects the whole script): " + parseError;
            } else {
                err = e.range() ? execRange(storage, e) : execInstant(storage, e);
            }
        } catch (RuntimeException ex) {
            err = "runner error: " + ex;
        }
        if (err == null) {
            return new Outcome(file, e.line(), e.query(), Status.PASSED, null);
        }
        Labels h = readsHistogram(e.query(), histogramSeries);
        if (h != null) {
            return new Outcome(file, e.line(), e.query(), Status.UNSUPPORTED, "reads native histogram series " + h + ": " + err);
        }
        if (startTimestamps) {
            return new Outcome(file, e.line(), e.query(), Status.UNSUPPORTED, "start timestamps (@st lines) are not loaded: " + err);
        }
        return new Outcome(file, e.line(), e.query(), Status.FAILED, err);
    }

    /** A loaded native histogram series {@code query} may read, or null. */
    private Labels readsHistogram(String query, Set<Labels> histogramSeries) {
        if (histogramSeries.isEmpty()) {
            return null;
        }
        List<List<LabelMatcher>> selectors = engine.selectors(query);
        for (Labels h : histogramSeries) {
            if (selectors == null) {
                if (mentions(query, h.metricName())) {
                    return h;
                }
                continue;
            }
            for (List<LabelMatcher> sel : selectors) {
                if (sel.stream().allMatch(m -> m.matches(h.get(m.name())))) {
                    return h;
                }
            }
        }
        return null;
    }

    /** Whether {@code name} occurs in {@code query} as a whole identifier. */
    static boolean mentions(String query, String name) {
        if (name.isEmpty()) {
            return false;
        }
        int from = 0;
        while (true) {
            int i = query.indexOf(name, from);
            if (i < 0) {
                return false;
            }
            int end = i + name.length();
            boolean startOk = i == 0 || !isNameChar(query.charAt(i - 1));
            boolean endOk = end == query.length() || !isNameChar(query.charAt(end));
            if (startOk && endOk) {
                return true;
            }
            from = i + 1;
        }
    }

    private static boolean isNameChar(char c) {
        return SeriesDescription.isAlphaNumeric(c) || c == ':';
    }

    private String execRange(MemoryQueryable storage, Script.Eval e) {
        QueryResult res;
        try {
            res = engine.range(storage, e.query(), e.startMs(), e.endMs(), e.stepMs());
        } catch (RuntimeException ex) {
            if (e.isFail()) {
                return checkExpectedFailure(e, ex);
            }
            return "error evaluating query: " + message(ex);
        }
        if (e.isFail()) {
            return "expected error evaluating query but got none";
        }
        String err = checkAnnotations(e, res);
        if (err != null) {
            return err;
        }
        return compareResult(e, res);
    }

    private String execInstant(MemoryQueryable storage, Script.Eval e) {
        String err = runInstantQuery(storage, e, e.query(), e.evalMs());
        if (err != null) {
            return err;
        }
        String at = engine.withAtModifier(e.query(), e.evalMs());
        if (at != null) {
            long ts = e.evalMs();
            long[] times = ts == 0 ? new long[] {-1000, 0, 1000} : new long[] {-10 * ts, 0, ts / 5, ts, 10 * ts};
            for (long t : times) {
                err = runInstantQuery(storage, e, at, t);
                if (err != null) {
                    return "with @ modifier, as " + at + " at " + t + ": " + err;
                }
            }
        }
        return null;
    }

    private String runInstantQuery(MemoryQueryable storage, Script.Eval e, String query, long timeMs) {
        QueryResult res;
        try {
            res = engine.instant(storage, query, timeMs);
        } catch (RuntimeException ex) {
            if (e.isFail()) {
                return checkExpectedFailure(e, ex);
            }
            return "error evaluating query: " + message(ex);
        }
        if (e.isFail()) {
            return "expected error evaluating query but got none";
        }
        String err = checkAnnotations(e, res);
        if (err == null) {
            err = compareResult(e, res);
        }
        if (err != null || e.excludeFromRangeQuery() || QUERY_CONTEXT_FUNCS.matcher(query).find()) {
            return err;
        }
        QueryResult rangeRes;
        try {
            rangeRes = engine.range(storage, query, timeMs - MINUTE, timeMs + MINUTE, MINUTE);
        } catch (RuntimeException ex) {
            return "error evaluating query in range mode: " + message(ex);
        }
        if (e.isOrdered()) {
            return null;
        }
        if (rangeRes.type() != ValueType.MATRIX) {
            return "range mode: a range query returned a " + rangeRes.type().apiName() + ", not a matrix";
        }
        err = assertSorted(rangeRes.series());
        if (err != null) {
            return "range mode: " + err;
        }
        List<QueryResult.Series> vec = new ArrayList<>();
        for (QueryResult.Series s : rangeRes.series()) {
            for (int i = 0; i < s.count(); i++) {
                if (s.timestamps()[i] == timeMs) {
                    vec.add(new QueryResult.Series(s.labels(), new long[] {timeMs}, new double[] {s.values()[i]}, 1));
                    break;
                }
            }
        }
        QueryResult asInstant;
        if (res.type() == ValueType.SCALAR) {
            if (vec.isEmpty()) {
                return "range mode: expected a scalar at " + timeMs + " but the range query has no point there";
            }
            asInstant = new QueryResult(ValueType.SCALAR, List.of(), timeMs, vec.getFirst().values()[0], null, List.of(), List.of());
        } else {
            asInstant = new QueryResult(ValueType.VECTOR, vec, 0, 0, null, List.of(), List.of());
        }
        err = compareResult(e, asInstant);
        return err == null ? null : "range mode: " + err;
    }

    private static String message(RuntimeException ex) {
        return ex.getMessage() == null ? ex.toString() : ex.getMessage();
    }

    private static String checkExpectedFailure(Script.Eval e, RuntimeException ex) {
        String actual = message(ex);
        if (e.oldFailMessage() != null && !e.oldFailMessage().isEmpty() && !e.oldFailMessage().equals(actual)) {
            return "expected error \"" + e.oldFailMessage() + "\" but got: " + actual;
        }
        if (e.oldFailRegex() != null && !e.oldFailRegex().matcher(actual).find()) {
            return "expected error matching pattern \"" + e.oldFailRegex().pattern() + "\" but got: " + actual;
        }
        List<Script.Expect> fail = e.expects(Script.ExpectType.FAIL);
        if (!fail.isEmpty() && !fail.getFirst().matches(actual)) {
            return "expected error matching " + fail.getFirst().describe() + " but got: " + actual;
        }
        return null;
    }

    static String checkAnnotations(Script.Eval e, QueryResult res) {
        List<String> warnings = res.warnings() == null ? List.of() : res.warnings().stream().map(Annotation::text).toList();
        List<String> infos = res.infos() == null ? List.of() : res.infos().stream().map(Annotation::text).toList();
        if (e.oldWarn() && warnings.isEmpty()) {
            return "expected warnings but got none";
        }
        if (e.oldInfo() && infos.isEmpty()) {
            return "expected info annotations but got none";
        }
        String err = checkAnnotationsOfType(e.expects(Script.ExpectType.WARN), warnings, "warn", warnings, infos);
        if (err == null) {
            err = checkAnnotationsOfType(e.expects(Script.ExpectType.INFO), infos, "info", warnings, infos);
        }
        if (err != null) {
            return err;
        }
        if (!e.expects(Script.ExpectType.NO_WARN).isEmpty() && !warnings.isEmpty()) {
            return "unexpected warning annotations: " + warnings;
        }
        if (!e.expects(Script.ExpectType.NO_INFO).isEmpty() && !infos.isEmpty()) {
            return "unexpected info annotations: " + infos;
        }
        return null;
    }

    private static String checkAnnotationsOfType(List<Script.Expect> expected, List<String> actual, String type,
                                                 List<String> warnings, List<String> infos) {
        if (expected.isEmpty()) {
            return null;
        }
        if (actual.isEmpty()) {
            return "expected " + type + " annotations but none were found";
        }
        for (Script.Expect x : expected) {
            if (actual.stream().noneMatch(x::matches)) {
                return "expected " + type + " annotation matching " + x.describe() + " but no matching annotation was found, found: warnings " + warnings + ", infos " + infos;
            }
        }
        for (String a : actual) {
            if (expected.stream().noneMatch(x -> x.matches(a))) {
                return "unexpected " + type + " annotation \"" + a + "\"";
            }
        }
        return null;
    }

    static String compareResult(Script.Eval e, QueryResult res) {
        Map<Labels, Script.ExpectedSeries> expected = new HashMap<>();
        for (Script.ExpectedSeries x : e.expected()) {
            expected.put(x.series().labels(), x);
        }
        switch (res.type()) {
            case MATRIX -> {
                if (e.isOrdered()) {
                    return "expected ordered result, but query returned a matrix";
                }
                if (e.expectScalar()) {
                    return "expected scalar result, but got matrix " + formatSeries(res.series());
                }
                String err = assertSorted(res.series());
                if (err != null) {
                    return err;
                }
                boolean hasRange = e.range() || e.expectRangeVector();
                long end = hasRange ? e.endMs() : Long.MIN_VALUE;
                Set<Labels> seen = new HashSet<>();
                for (QueryResult.Series s : res.series()) {
                    Script.ExpectedSeries x = expected.get(s.labels());
                    if (x == null) {
                        return "unexpected metric " + s.labels() + " in result, has " + formatPoints(s);
                    }
                    seen.add(s.labels());
                    SeriesDescription sd = x.series();
                    List<long[]> expT = new ArrayList<>();
                    List<Double> expV = new ArrayList<>();
                    for (int i = 0; i < sd.size(); i++) {
                        long t = e.startMs() + i * e.stepMs();
                        if (t > end) {
                            return "expected " + sd.size() + " points for " + s.labels() + ", but query time range cannot return this many points";
                        }
                        if (sd.kinds()[i] == SeriesDescription.FLOAT) {
                            expT.add(new long[] {t});
                            expV.add(sd.values()[i]);
                        }
                    }
                    if (expT.size() != s.count()) {
                        return "expected " + expT.size() + " float points for " + s.labels() + ", but got " + formatPoints(s);
                    }
                    for (int i = 0; i < expT.size(); i++) {
                        if (expT.get(i)[0] != s.timestamps()[i]) {
                            return "expected float value at index " + i + " for " + s.labels() + " to have timestamp " + expT.get(i)[0]
                                    + ", but it had timestamp " + s.timestamps()[i] + " (result has " + formatPoints(s) + ")";
                        }
                        if (!almostEqual(s.values()[i], expV.get(i))) {
                            return "expected float value at index " + i + " (t=" + s.timestamps()[i] + ") for " + s.labels() + " to be "
                                    + fmt(expV.get(i)) + ", but got " + fmt(s.values()[i]) + " (result has " + formatPoints(s) + ")";
                        }
                    }
                }
                for (Labels l : expected.keySet()) {
                    if (!seen.contains(l)) {
                        return "expected metric " + l + " not found";
                    }
                }
                return null;
            }
            case VECTOR -> {
                if (e.expectScalar()) {
                    return "expected scalar result, but got vector " + formatSeries(res.series());
                }
                Set<Labels> seen = new HashSet<>();
                int pos = 0;
                for (QueryResult.Series s : res.series()) {
                    pos++;
                    double v = s.count() > 0 ? s.values()[0] : Double.NaN;
                    Script.ExpectedSeries x = expected.get(s.labels());
                    if (x == null) {
                        return "unexpected metric " + s.labels() + " in result, has value " + fmt(v);
                    }
                    if (e.isOrdered() && x.position() != pos) {
                        return "expected metric " + s.labels() + " with " + fmt(x.series().values()[0]) + " at position " + x.position() + " but was at " + pos;
                    }
                    if (x.series().size() == 0) {
                        return "expected no value for " + s.labels() + " but got " + fmt(v);
                    }
                    // an omitted value ("_") compares as 0, as in Prometheus' runner
                    double want = x.series().values()[0];
                    if (!almostEqual(want, v)) {
                        return "expected " + fmt(want) + " for " + s.labels() + " but got " + fmt(v);
                    }
                    seen.add(s.labels());
                }
                for (Map.Entry<Labels, Script.ExpectedSeries> x : expected.entrySet()) {
                    if (!seen.contains(x.getKey())) {
                        return "expected metric " + x.getKey() + " with " + formatExpected(x.getValue().series()) + " not found";
                    }
                }
                return null;
            }
            case SCALAR -> {
                if (!e.expectScalar()) {
                    return "expected vector or matrix result, but got scalar " + fmt(res.scalarValue());
                }
                if (!almostEqual(e.scalar(), res.scalarValue())) {
                    return "expected scalar " + fmt(e.scalar()) + " but got " + fmt(res.scalarValue());
                }
                return null;
            }
            case STRING -> {
                String want = e.expectedString() == null ? "" : e.expectedString();
                if (!want.equals(res.stringValue())) {
                    return "expected string \"" + want + "\" but got \"" + res.stringValue() + "\"";
                }
                return null;
            }
        }
        return "unexpected result type " + res.type();
    }

    private static String assertSorted(List<QueryResult.Series> m) {
        for (int i = 0; i + 1 < m.size(); i++) {
            if (m.get(i).labels().compareTo(m.get(i + 1).labels()) > 0) {
                return "matrix results should always be sorted by labels, but matrix is not sorted: series at index " + (i + 1)
                        + " with labels " + m.get(i + 1).labels() + " sorts before series at index " + i + " with labels " + m.get(i).labels();
            }
        }
        return null;
    }

    /** Prometheus' {@code almost.Equal} with {@link #EPSILON}. */
    public static boolean almostEqual(double a, double b) {
        boolean staleA = Double.doubleToRawLongBits(a) == SampleIterator.STALE_NAN_BITS;
        boolean staleB = Double.doubleToRawLongBits(b) == SampleIterator.STALE_NAN_BITS;
        if (staleA || staleB) {
            return staleA && staleB;
        }
        return Quantiles.almostEqual(a, b, EPSILON);
    }

    /** A value as Go's {@code %v} prints a float64 (close enough for messages). */
    static String fmt(double v) {
        if (Double.doubleToRawLongBits(v) == SampleIterator.STALE_NAN_BITS) {
            return "stale";
        }
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e21) {
            return Long.toString((long) v);
        }
        return Double.toString(v);
    }

    private static String formatPoints(QueryResult.Series s) {
        StringBuilder sb = new StringBuilder().append(s.count()).append(s.count() == 1 ? " float point [" : " float points [");
        for (int i = 0; i < s.count(); i++) {
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(fmt(s.values()[i])).append(" @[").append(s.timestamps()[i]).append(']');
        }
        return sb.append(']').toString();
    }

    private static String formatSeries(List<QueryResult.Series> series) {
        StringBuilder sb = new StringBuilder();
        for (QueryResult.Series s : series) {
            sb.append(s.labels()).append(" => ").append(formatPoints(s)).append("; ");
        }
        return sb.toString();
    }

    private static String formatExpected(SeriesDescription sd) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < sd.size(); i++) {
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(sd.kinds()[i] == SeriesDescription.OMITTED ? "_" : sd.kinds()[i] == SeriesDescription.HISTOGRAM ? "{{...}}" : fmt(sd.values()[i]));
        }
        return sb.append(']').toString();
    }
}
