package io.sluice.promql.ast;

import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.parse.GoStrings;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * PromQL text of an expression, as Prometheus' {@code String()} writes it (what
 * {@code /api/v1/format_query} answers): {@code sum by (job) (rate(x[5m]))}, matchers sorted, durations
 * as {@code 1h30m} (duration literals used as numbers too), {@code @} as seconds with three decimals.
 */
public final class Printer {
    private Printer() {
    }

    public static String print(Expr e) {
        StringBuilder sb = new StringBuilder();
        write(sb, e);
        return sb.toString();
    }

    /** Prometheus' line length beyond which {@link #pretty} splits an expression. */
    public static final int MAX_CHARACTERS_PER_LINE = 100;

    /**
     * The indented multi-line form Prometheus' {@code /api/v1/format_query} answers ({@code Pretty(0)}):
     * an expression longer than {@link #MAX_CHARACTERS_PER_LINE} bytes is split, its operands, arguments
     * and aggregated expression one level (two spaces) deeper.
     */
    public static String pretty(Expr e) {
        return pretty(e, 0);
    }

    private static String pretty(Expr e, int level) {
        String ind = "  ".repeat(level);
        switch (e) {
            case Expr.Aggregate a -> {
                if (!needsSplit(a)) {
                    return ind + print(a);
                }
                StringBuilder sb = new StringBuilder(ind);
                writeAggregateHead(sb, a);
                sb.append("(\n");
                if (a.param() != null) {
                    sb.append(pretty(a.param(), level + 1)).append(",\n");
                }
                return sb.append(pretty(a.expr(), level + 1)).append('\n').append(ind).append(')').toString();
            }
            case Expr.Binary b -> {
                if (!needsSplit(b)) {
                    return ind + print(b);
                }
                StringBuilder sb = new StringBuilder(pretty(b.lhs(), level + 1)).append('\n').append(ind).append(b.op().symbol());
                if (b.returnBool()) {
                    sb.append(" bool");
                }
                writeMatching(sb, b.matching());
                return sb.append('\n').append(pretty(b.rhs(), level + 1)).toString();
            }
            case Expr.Call c -> {
                if (!needsSplit(c)) {
                    return ind + print(c);
                }
                StringBuilder sb = new StringBuilder(ind).append(c.function()).append("(\n");
                for (int i = 0; i < c.args().size(); i++) {
                    if (i > 0) {
                        sb.append(",\n");
                    }
                    sb.append(pretty(c.args().get(i), level + 1));
                }
                return sb.append('\n').append(ind).append(')').toString();
            }
            case Expr.Paren p -> {
                if (!needsSplit(p)) {
                    return ind + print(p);
                }
                return ind + "(\n" + pretty(p.expr(), level + 1) + "\n" + ind + ")";
            }
            case Expr.Subquery s -> {
                if (!needsSplit(s)) {
                    return print(s); // as Prometheus: no indentation here
                }
                StringBuilder sb = new StringBuilder(pretty(s.expr(), level));
                writeSubquerySuffix(sb, s);
                return sb.toString();
            }
            case Expr.Unary u -> {
                return ind + (u.negate() ? "-" : "+") + pretty(u.expr(), level).strip();
            }
            default -> {
                return ind + print(e);
            }
        }
    }

    private static boolean needsSplit(Expr e) {
        return GoStrings.utf8Length(print(e)) > MAX_CHARACTERS_PER_LINE;
    }

    private static void write(StringBuilder sb, Expr e) {
        switch (e) {
            case Expr.NumberLiteral n -> {
                if (n.duration()) {
                    // As Prometheus: the seconds as nanoseconds (truncated), printed as a duration.
                    double v = n.value();
                    sb.append(v < 0 ? "-" + formatDuration((long) (-v * 1e9) / 1_000_000L)
                            : formatDuration((long) (v * 1e9) / 1_000_000L));
                } else {
                    sb.append(formatNumber(n.value()));
                }
            }
            case Expr.StringLiteral s -> sb.append(GoStrings.quote(s.value()));
            case Expr.VectorSelector vs -> {
                writeSelector(sb, vs);
                writeAt(sb, vs.atKind(), vs.atMs());
                writeOffset(sb, vs.offsetMs());
            }
            case Expr.MatrixSelector m -> {
                writeSelector(sb, m.selector());
                sb.append('[').append(formatDuration(m.rangeMs())).append(']');
                writeAt(sb, m.selector().atKind(), m.selector().atMs());
                writeOffset(sb, m.selector().offsetMs());
            }
            case Expr.Subquery s -> {
                write(sb, s.expr());
                writeSubquerySuffix(sb, s);
            }
            case Expr.Call c -> {
                sb.append(c.function()).append('(');
                for (int i = 0; i < c.args().size(); i++) {
                    if (i > 0) {
                        sb.append(", ");
                    }
                    write(sb, c.args().get(i));
                }
                sb.append(')');
            }
            case Expr.Aggregate a -> {
                writeAggregateHead(sb, a);
                sb.append('(');
                if (a.param() != null) {
                    write(sb, a.param());
                    sb.append(", ");
                }
                write(sb, a.expr());
                sb.append(')');
            }
            case Expr.Binary b -> {
                write(sb, b.lhs());
                sb.append(' ').append(b.op().symbol());
                if (b.returnBool()) {
                    sb.append(" bool");
                }
                writeMatching(sb, b.matching());
                sb.append(' ');
                write(sb, b.rhs());
            }
            case Expr.Unary u -> {
                sb.append(u.negate() ? '-' : '+');
                write(sb, u.expr());
            }
            case Expr.Paren p -> {
                sb.append('(');
                write(sb, p.expr());
                sb.append(')');
            }
        }
    }

    private static void writeSubquerySuffix(StringBuilder sb, Expr.Subquery s) {
        sb.append('[').append(formatDuration(s.rangeMs())).append(':');
        if (s.stepMs() != 0) {
            sb.append(formatDuration(s.stepMs()));
        }
        sb.append(']');
        writeAt(sb, s.atKind(), s.atMs());
        writeOffset(sb, s.offsetMs());
    }

    private static void writeMatching(StringBuilder sb, Expr.VectorMatching vm) {
        if (vm == null) {
            return;
        }
        boolean grouped = vm.card() == Expr.Cardinality.MANY_TO_ONE || vm.card() == Expr.Cardinality.ONE_TO_MANY;
        if (!vm.labels().isEmpty() || vm.on() || grouped) {
            sb.append(vm.on() ? " on (" : " ignoring (");
            writeLabels(sb, vm.labels());
            sb.append(')');
        }
        if (grouped) {
            sb.append(vm.card() == Expr.Cardinality.MANY_TO_ONE ? " group_left (" : " group_right (");
            writeLabels(sb, vm.include());
            sb.append(')');
        }
    }

    private static void writeSelector(StringBuilder sb, Expr.VectorSelector vs) {
        List<String> parts = new ArrayList<>(vs.matchers().size());
        for (LabelMatcher m : vs.matchers()) {
            if (vs.name() != null && !vs.name().isEmpty() && m.name().equals(Labels.METRIC_NAME)
                    && m.type() == LabelMatcher.Type.EQUAL && m.value().equals(vs.name())) {
                continue;
            }
            parts.add(matcherString(m));
        }
        if (vs.name() != null) {
            sb.append(vs.name());
        }
        if (!parts.isEmpty()) {
            Collections.sort(parts);
            sb.append('{').append(String.join(",", parts)).append('}');
        }
    }

    /** A matcher as Prometheus prints it: the name quoted unless a plain identifier, the value Go-quoted. */
    public static String matcherString(LabelMatcher m) {
        String name = isPlainName(m.name()) ? m.name() : GoStrings.quote(m.name());
        return name + m.type().symbol() + GoStrings.quote(m.value());
    }

    private static boolean isPlainName(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9'))) {
                return false;
            }
        }
        return true;
    }

    /** {@code sum by (a, b) } or {@code sum without (a) } or {@code sum}: an aggregation up to its parenthesis. */
    private static void writeAggregateHead(StringBuilder sb, Expr.Aggregate a) {
        sb.append(a.op().keyword());
        if (a.without()) {
            sb.append(" without (");
            writeLabels(sb, a.grouping());
            sb.append(") ");
        } else if (!a.grouping().isEmpty()) {
            sb.append(" by (");
            writeLabels(sb, a.grouping());
            sb.append(") ");
        }
    }

    private static void writeLabels(StringBuilder sb, List<String> labels) {
        for (int i = 0; i < labels.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            String l = labels.get(i);
            sb.append(isPlainName(l) ? l : GoStrings.quote(l));
        }
    }

    private static void writeAt(StringBuilder sb, Expr.AtKind kind, long atMs) {
        switch (kind) {
            case TIMESTAMP -> {
                sb.append(" @ ");
                long abs = Math.abs(atMs);
                if (atMs < 0) {
                    sb.append('-');
                }
                String frac = Long.toString(abs % 1000);
                sb.append(abs / 1000).append('.').append("0".repeat(3 - frac.length())).append(frac);
            }
            case START -> sb.append(" @ start()");
            case END -> sb.append(" @ end()");
            case NONE -> {
            }
        }
    }

    private static void writeOffset(StringBuilder sb, long offsetMs) {
        if (offsetMs > 0) {
            sb.append(" offset ").append(formatDuration(offsetMs));
        } else if (offsetMs < 0) {
            sb.append(" offset -").append(formatDuration(-offsetMs));
        }
    }

    /** Prometheus' duration text of milliseconds ({@code model.Duration.String}): {@code 1h30m}, {@code 0s}. */
    public static String formatDuration(long ms) {
        if (ms == 0) {
            return "0s";
        }
        StringBuilder sb = new StringBuilder();
        if (ms < 0) {
            sb.append('-');
            ms = -ms;
        }
        String[] units = {"y", "w", "d", "h", "m", "s", "ms"};
        long[] mult = {365L * 86_400_000L, 7L * 86_400_000L, 86_400_000L, 3_600_000L, 60_000L, 1000L, 1L};
        for (int i = 0; i < mult.length; i++) {
            if (i < 2 && ms % mult[i] != 0) {
                continue;
            }
            long v = ms / mult[i];
            if (v > 0) {
                sb.append(v).append(units[i]);
                ms -= v * mult[i];
            }
        }
        return sb.toString();
    }

    /** Go's {@code strconv.FormatFloat(v, 'f', -1, 64)}: shortest exact digits, never an exponent. */
    public static String formatNumber(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == 0) {
            return (Double.doubleToRawLongBits(v) < 0) ? "-0" : "0";
        }
        return new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
    }
}
