package io.sluice.promql.eval;

import io.sluice.promql.ast.Expr;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.parse.GoStrings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code info(v [, {label selectors}])} (experimental in Prometheus): each series of {@code v} gets the
 * data labels of the info series that share its identifying labels ({@code instance}, {@code job}).
 *
 * <p>Which info series: those named by the selector's {@code __name__} matchers ({@code target_info}
 * when there are none; {@code .+_info} added when there are only negative ones), restricted by its other
 * matchers, whose names also limit the data labels taken. Series of {@code v} that are themselves such
 * info series are passed through. At each step an info series is the latest sample within the lookback
 * window, as any instant selector's; where two with the same name and identifying labels are both
 * present, the one with the newer sample wins (equally new: an error). Labels the series already has
 * are kept; two info metrics giving one label different values is an error. A series with no info series
 * at a step is dropped there if a data matcher does not match the empty value, else kept as it is.
 *
 * <p>Not reproduced: Prometheus trims the info series to the time range of the first argument's
 * selector (its {@code offset} and {@code @}) before evaluating them at the query's steps; here they are
 * evaluated at the query's steps over the query's range (the same wherever the info series have samples
 * across that range).
 */
final class InfoFunction {
    private static final String TARGET_INFO = "target_info";
    private static final List<String> IDENTIFYING = List.of("instance", "job");

    private InfoFunction() {
    }

    static Evaluator.Val eval(Evaluator ev, Expr.Call c, Grid g) {
        List<Expr> args = c.args();
        List<Row> base = ev.materialize(ev.evalVector(args.get(0), g));
        Map<String, List<LabelMatcher>> data = new LinkedHashMap<>(); // by label name
        List<LabelMatcher> nameMatchers = new ArrayList<>();
        if (args.size() > 1) {
            for (LabelMatcher m : ((Expr.VectorSelector) Functions.unparen(args.get(1))).matchers()) {
                data.computeIfAbsent(m.name(), k -> new ArrayList<>()).add(m);
                if (m.name().equals(Labels.METRIC_NAME)) {
                    nameMatchers.add(m);
                }
            }
        }
        List<LabelMatcher> infoNames = effectiveNameMatchers(nameMatchers);
        boolean[] passThrough = new boolean[base.size()];
        Map<String, Set<String>> idValues = new HashMap<>();
        for (int b = 0; b < base.size(); b++) {
            Labels l = base.get(b).labels;
            passThrough[b] = matchesAll(infoNames, l.metricName());
            if (!passThrough[b]) {
                for (String id : IDENTIFYING) {
                    String v = l.get(id);
                    if (!v.isEmpty()) {
                        idValues.computeIfAbsent(id, k -> new HashSet<>()).add(v);
                    }
                }
            }
        }
        data.remove(Labels.METRIC_NAME); // the rest are data label matchers

        List<Row> infos = new ArrayList<>();
        if (!idValues.isEmpty()) {
            List<LabelMatcher> select = new ArrayList<>();
            data.values().forEach(select::addAll);
            select.addAll(infoNames);
            Expr.VectorSelector vs = new Expr.VectorSelector(null, select, 0, Expr.AtKind.NONE, 0, c.pos());
            // Each step's value: the selected sample's timestamp (seconds), to let the newest win.
            for (Row r : ev.materialize(ev.selectVector(vs, g, true))) {
                if (identifiedBy(r.labels, idValues)) {
                    infos.add(r);
                }
            }
        }
        List<String> names = new ArrayList<>();
        for (Row r : infos) {
            if (!names.contains(r.labels.metricName())) {
                names.add(r.labels.metricName());
            }
        }
        // Info series with the same name and identifying labels form a group: at each step its newest sample wins.
        Map<String, Integer> groupOf = new HashMap<>();
        List<List<Row>> groups = new ArrayList<>();
        for (Row r : infos) {
            int gid = groupOf.computeIfAbsent(signature(r.labels.metricName(), r.labels), k -> {
                groups.add(new ArrayList<>());
                return groups.size() - 1;
            });
            groups.get(gid).add(r);
        }
        int[][] baseGroups = new int[base.size()][names.size()]; // per series and info metric: its group, or -1
        for (int b = 0; b < base.size(); b++) {
            for (int k = 0; k < names.size(); k++) {
                baseGroups[b][k] = groupOf.getOrDefault(signature(names.get(k), base.get(b).labels), -1);
            }
        }
        boolean keepUnmatched = true;
        for (List<LabelMatcher> ms : data.values()) {
            for (LabelMatcher m : ms) {
                keepUnmatched &= m.matchesEmpty();
            }
        }

        int n = g.n();
        Map<Labels, Row> out = new LinkedHashMap<>();
        Row[] chosen = new Row[groups.size()];
        // Per series, the info rows its labels were last built from and the output row they gave (info
        // series rarely change from step to step, so labels are built once per change, not per step).
        Row[][] lastInfos = new Row[base.size()][];
        Row[] lastOut = new Row[base.size()];
        Row dropped = new Row(Labels.EMPTY, false, null);
        Row[] current = new Row[names.size()];
        for (int i = 0; i < n; i++) {
            ev.checkSometimes();
            for (int gid = 0; gid < chosen.length; gid++) {
                chosen[gid] = newest(groups.get(gid), i);
            }
            for (int b = 0; b < base.size(); b++) {
                Row row = base.get(b);
                if (Row.absent(row.v[i])) {
                    continue;
                }
                Row o;
                if (passThrough[b]) {
                    o = lastOut[b] != null ? lastOut[b] : out.computeIfAbsent(row.labels, l -> new Row(l, false, Row.absentArray(n)));
                } else {
                    for (int k = 0; k < current.length; k++) {
                        current[k] = baseGroups[b][k] < 0 ? null : chosen[baseGroups[b][k]];
                    }
                    if (lastOut[b] != null && Arrays.equals(lastInfos[b], current)) {
                        o = lastOut[b];
                    } else {
                        Labels result = enrich(row.labels, current, data, keepUnmatched);
                        o = result == null ? dropped : out.computeIfAbsent(result, l -> new Row(l, false, Row.absentArray(n)));
                        lastInfos[b] = current.clone();
                    }
                }
                lastOut[b] = o;
                if (o == dropped) {
                    continue;
                }
                if (!Row.absent(o.v[i])) {
                    throw Evaluator.execError("vector cannot contain metrics with the same labelset");
                }
                o.v[i] = row.v[i];
            }
        }
        return new Evaluator.VecVal(RowSource.of(new ArrayList<>(out.values())));
    }

    /** The group's info series with the newest sample at step {@code i} (values are sample times), or null. */
    private static Row newest(List<Row> group, int i) {
        Row best = null;
        for (Row info : group) {
            if (Row.absent(info.v[i])) {
                continue;
            }
            if (best == null || best.v[i] < info.v[i]) {
                best = info;
            } else if (best.v[i] == info.v[i]) {
                throw Evaluator.execError("found duplicate series for info metric: existing " + goString(best.labels)
                        + " @ " + Math.round(best.v[i] * 1000) + ", new " + goString(info.labels) + " @ "
                        + Math.round(info.v[i] * 1000));
            }
        }
        return best;
    }

    /** The series' labels with the data labels of its info series at this step; null where it is dropped. */
    private static Labels enrich(Labels series, Row[] infoRows, Map<String, List<LabelMatcher>> data, boolean keepUnmatched) {
        Labels.Builder added = new Labels.Builder();
        int matched = 0;
        for (Row info : infoRows) {
            if (info == null) {
                continue;
            }
            Labels l = info.labels;
            for (int j = 0; j < l.size(); j++) {
                String name = l.name(j);
                if (name.equals(Labels.METRIC_NAME) || (!data.isEmpty() && !data.containsKey(name))) {
                    continue;
                }
                String have = added.get(name);
                if (!have.isEmpty() && !have.equals(l.value(j))) {
                    throw Evaluator.execError("conflicting label: " + name);
                }
                if (!series.has(name)) {
                    added.set(name, l.value(j));
                }
            }
            matched++;
        }
        if (matched == 0) {
            return keepUnmatched ? series : null;
        }
        Labels extra = added.build();
        if (extra.size() == 0) {
            return series;
        }
        Labels.Builder b = series.toBuilder();
        for (int j = 0; j < extra.size(); j++) {
            b.set(extra.name(j), extra.value(j));
        }
        return b.build();
    }

    /**
     * The {@code __name__} matchers that pick info series: as given when one is positive; with
     * {@code .+_info} first when all are negative; {@code target_info} when there are none.
     */
    private static List<LabelMatcher> effectiveNameMatchers(List<LabelMatcher> matchers) {
        for (LabelMatcher m : matchers) {
            if (m.type() == LabelMatcher.Type.EQUAL || m.type() == LabelMatcher.Type.REGEX) {
                return matchers;
            }
        }
        if (!matchers.isEmpty()) {
            List<LabelMatcher> out = new ArrayList<>();
            out.add(LabelMatcher.of(LabelMatcher.Type.REGEX, Labels.METRIC_NAME, ".+_info"));
            out.addAll(matchers);
            return out;
        }
        return List.of(LabelMatcher.equal(Labels.METRIC_NAME, TARGET_INFO));
    }

    private static boolean matchesAll(List<LabelMatcher> matchers, String value) {
        for (LabelMatcher m : matchers) {
            if (!m.matches(value)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the info series' identifying labels take values some series of the argument has. */
    private static boolean identifiedBy(Labels info, Map<String, Set<String>> idValues) {
        for (Map.Entry<String, Set<String>> e : idValues.entrySet()) {
            if (!e.getValue().contains(info.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** An info metric's name with the identifying labels of {@code l} (absent ones as empty). */
    private static String signature(String infoName, Labels l) {
        StringBuilder sb = new StringBuilder(infoName);
        for (String id : IDENTIFYING) {
            sb.append('\0').append(l.get(id));
        }
        return sb.toString();
    }

    /** Go's {@code labels.Labels.String()}: {@code {__name__="x", a="b"}}. */
    private static String goString(Labels l) {
        StringBuilder sb = new StringBuilder("{");
        for (int j = 0; j < l.size(); j++) {
            if (j > 0) {
                sb.append(", ");
            }
            String name = l.name(j);
            sb.append(name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*") ? name : GoStrings.quote(name)).append('=')
                    .append(GoStrings.quote(l.value(j)));
        }
        return sb.append('}').toString();
    }
}
