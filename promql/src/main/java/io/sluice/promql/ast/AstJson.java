package io.sluice.promql.ast;

import io.sluice.promql.labels.LabelMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The JSON tree Prometheus' {@code /api/v1/parse_query} answers for an expression (its
 * {@code translateAST}): objects with a {@code type} ({@code vectorSelector}, {@code binaryExpr}, ...),
 * keys in sorted order and strings escaped as Go's {@code encoding/json} writes them, so the bytes match.
 */
public final class AstJson {
    private AstJson() {
    }

    public static String toJson(Expr e) {
        StringBuilder sb = new StringBuilder();
        write(sb, translate(e));
        return sb.toString();
    }

    private static Object translate(Expr node) {
        if (node == null) {
            return null;
        }
        Map<String, Object> m = new TreeMap<>();
        switch (node) {
            case Expr.Aggregate a -> {
                m.put("type", "aggregation");
                m.put("op", a.op().keyword());
                m.put("expr", translate(a.expr()));
                m.put("param", translate(a.param()));
                m.put("grouping", a.grouping());
                m.put("without", a.without());
            }
            case Expr.Binary b -> {
                Object matching = null;
                Expr.VectorMatching vm = b.matching();
                if (vm != null) {
                    Map<String, Object> mm = new TreeMap<>();
                    mm.put("card", switch (vm.card()) {
                        case ONE_TO_ONE -> "one-to-one";
                        case MANY_TO_ONE -> "many-to-one";
                        case ONE_TO_MANY -> "one-to-many";
                        case MANY_TO_MANY -> "many-to-many";
                    });
                    mm.put("labels", vm.labels());
                    mm.put("on", vm.on());
                    mm.put("include", vm.include());
                    Map<String, Object> fill = new TreeMap<>();
                    fill.put("lhs", null);
                    fill.put("rhs", null);
                    mm.put("fillValues", fill);
                    matching = mm;
                }
                m.put("type", "binaryExpr");
                m.put("op", b.op().symbol());
                m.put("lhs", translate(b.lhs()));
                m.put("rhs", translate(b.rhs()));
                m.put("matching", matching);
                m.put("bool", b.returnBool());
            }
            case Expr.Call c -> {
                Functions.Function fn = Functions.get(c.function());
                Map<String, Object> f = new TreeMap<>();
                f.put("name", c.function());
                List<Object> types = new ArrayList<>();
                if (fn != null) {
                    fn.argTypes().forEach(t -> types.add(t.apiName()));
                }
                f.put("argTypes", types);
                f.put("variadic", fn == null ? 0L : (long) fn.variadic());
                f.put("returnType", c.returnType().apiName());
                List<Object> args = new ArrayList<>();
                c.args().forEach(a -> args.add(translate(a)));
                m.put("type", "call");
                m.put("func", f);
                m.put("args", args);
            }
            case Expr.MatrixSelector ms -> {
                selector(m, ms.selector());
                m.put("type", "matrixSelector");
                m.put("range", ms.rangeMs());
                m.put("rangeExpr", null);
            }
            case Expr.Subquery s -> {
                m.put("type", "subquery");
                m.put("expr", translate(s.expr()));
                m.put("range", s.rangeMs());
                m.put("rangeExpr", null);
                m.put("offset", s.offsetMs());
                m.put("offsetExpr", null);
                m.put("step", s.stepMs());
                m.put("stepExpr", null);
                at(m, s.atKind(), s.atMs());
            }
            case Expr.NumberLiteral n -> {
                m.put("type", "numberLiteral");
                m.put("val", Printer.formatNumber(n.value()));
            }
            case Expr.Paren p -> {
                m.put("type", "parenExpr");
                m.put("expr", translate(p.expr()));
            }
            case Expr.StringLiteral s -> {
                m.put("type", "stringLiteral");
                m.put("val", s.value());
            }
            case Expr.Unary u -> {
                m.put("type", "unaryExpr");
                m.put("op", u.negate() ? "-" : "+");
                m.put("expr", translate(u.expr()));
            }
            case Expr.VectorSelector vs -> {
                selector(m, vs);
                m.put("type", "vectorSelector");
            }
        }
        return m;
    }

    private static void selector(Map<String, Object> m, Expr.VectorSelector vs) {
        m.put("name", vs.name() == null ? "" : vs.name());
        m.put("offset", vs.offsetMs());
        m.put("offsetExpr", null);
        List<Object> matchers = new ArrayList<>();
        for (LabelMatcher lm : vs.matchers()) {
            Map<String, Object> x = new TreeMap<>();
            x.put("name", lm.name());
            x.put("value", lm.value());
            x.put("type", lm.type().symbol());
            matchers.add(x);
        }
        m.put("matchers", matchers);
        at(m, vs.atKind(), vs.atMs());
        m.put("anchored", false);
        m.put("smoothed", false);
    }

    private static void at(Map<String, Object> m, Expr.AtKind kind, long atMs) {
        m.put("timestamp", kind == Expr.AtKind.TIMESTAMP ? (Object) atMs : null);
        m.put("startOrEnd", switch (kind) {
            case START -> "start";
            case END -> "end";
            default -> null;
        });
    }

    private static void write(StringBuilder sb, Object v) {
        switch (v) {
            case null -> sb.append("null");
            case String s -> quote(sb, s);
            case Boolean b -> sb.append(b);
            case Long l -> sb.append(l);
            case Map<?, ?> map -> {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> en : map.entrySet()) {
                    if (!first) {
                        sb.append(',');
                    }
                    first = false;
                    quote(sb, (String) en.getKey());
                    sb.append(':');
                    write(sb, en.getValue());
                }
                sb.append('}');
            }
            case List<?> list -> {
                sb.append('[');
                for (int i = 0; i < list.size(); i++) {
                    if (i > 0) {
                        sb.append(',');
                    }
                    write(sb, list.get(i));
                }
                sb.append(']');
            }
            default -> throw new IllegalStateException("unexpected JSON value " + v.getClass());
        }
    }

    /** A JSON string as Go's encoder writes it (HTML-safe: {@code < > &} escaped, U+2028/2029 too). */
    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '<', '>', '&', '\u2028', '\u2029' -> sb.append(String.format("\\u%04x", (int) c));
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else if (Character.isSurrogate(c) && !(Character.isHighSurrogate(c) && i + 1 < s.length()
                            && Character.isLowSurrogate(s.charAt(i + 1)))
                            && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)))) {
                        sb.append("\\ufffd");
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}
