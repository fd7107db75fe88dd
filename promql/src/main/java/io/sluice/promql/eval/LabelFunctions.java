package io.sluice.promql.eval;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.labels.Labels;
import java.util.ArrayList;
import java.util.List;

/** label_replace and label_join: relabel rows, then merge rows that became equal (their steps must not overlap). */
final class LabelFunctions {
    private LabelFunctions() {
    }

    static String str(Expr e) {
        return ((Expr.StringLiteral) Functions.unparen(e)).value();
    }

    static Evaluator.Val labelReplace(Evaluator ev, Expr.Call c, Grid g) {
        List<Expr> args = c.args();
        String dst = str(args.get(1));
        String repl = str(args.get(2));
        String src = str(args.get(3));
        String regex = str(args.get(4));
        Pattern p;
        try {
            p = Pattern.compile("^(?s:" + regex + ")$");
        } catch (PatternSyntaxException e) {
            throw Evaluator.execError("invalid regular expression in label_replace(): " + regex);
        }
        if (!validLabelName(dst)) {
            throw Evaluator.execError("invalid destination label name in label_replace(): " + dst);
        }
        List<Row> rows = ev.materialize(ev.evalVector(args.get(0), g));
        for (Row r : rows) {
            String sv = r.labels.get(src);
            Matcher m = p.matcher(sv);
            if (m.matches()) {
                String res = expand(repl, m);
                r.labels = r.labels.toBuilder().set(dst, res).build();
                if (dst.equals(Labels.METRIC_NAME)) {
                    r.dropName = false;
                }
            }
        }
        return new Evaluator.VecVal(RowSource.of(BinaryOps.mergeByLabels(rows, g.n())));
    }

    static Evaluator.Val labelJoin(Evaluator ev, Expr.Call c, Grid g) {
        List<Expr> args = c.args();
        String dst = str(args.get(1));
        String sep = str(args.get(2));
        List<String> srcs = new ArrayList<>();
        for (int i = 3; i < args.size(); i++) {
            String s = str(args.get(i));
            if (!validLabelName(s)) {
                throw Evaluator.execError("invalid source label name in label_join(): " + s);
            }
            srcs.add(s);
        }
        if (!validLabelName(dst)) {
            throw Evaluator.execError("invalid destination label name in label_join(): " + dst);
        }
        List<Row> rows = ev.materialize(ev.evalVector(args.get(0), g));
        for (Row r : rows) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < srcs.size(); i++) {
                if (i > 0) {
                    sb.append(sep);
                }
                sb.append(r.labels.get(srcs.get(i)));
            }
            r.labels = r.labels.toBuilder().set(dst, sb.toString()).build();
            if (dst.equals(Labels.METRIC_NAME)) {
                r.dropName = false;
            }
        }
        return new Evaluator.VecVal(RowSource.of(BinaryOps.mergeByLabels(rows, g.n())));
    }

    static boolean validLabelName(String s) {
        return !s.isEmpty() && s.codePoints().allMatch(cp -> cp != 0xFFFD) && java.nio.charset.StandardCharsets.UTF_8.newEncoder().canEncode(s);
    }

    /** Go's Regexp.Expand template: $1, ${1}, $name, ${name}, $$. */
    static String expand(String template, Matcher m) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char ch = template.charAt(i);
            if (ch != '$' || i + 1 >= template.length()) {
                sb.append(ch);
                i++;
                continue;
            }
            char nx = template.charAt(i + 1);
            if (nx == '$') {
                sb.append('$');
                i += 2;
                continue;
            }
            String name;
            int end;
            if (nx == '{') {
                int close = template.indexOf('}', i + 2);
                if (close < 0) {
                    sb.append(ch);
                    i++;
                    continue;
                }
                name = template.substring(i + 2, close);
                end = close + 1;
                if (name.isEmpty() || !name.chars().allMatch(x -> Character.isLetterOrDigit(x) || x == '_')) {
                    sb.append(ch);
                    i++;
                    continue;
                }
            } else {
                int j = i + 1;
                while (j < template.length() && (Character.isLetterOrDigit(template.charAt(j)) || template.charAt(j) == '_')) {
                    j++;
                }
                if (j == i + 1) {
                    sb.append(ch);
                    i++;
                    continue;
                }
                name = template.substring(i + 1, j);
                end = j;
            }
            sb.append(group(m, name));
            i = end;
        }
        return sb.toString();
    }

    private static String group(Matcher m, String name) {
        String v = null;
        if (name.chars().allMatch(Character::isDigit)) {
            try {
                int k = Integer.parseInt(name);
                if (k <= m.groupCount()) {
                    v = m.group(k);
                }
            } catch (NumberFormatException e) {
                v = null;
            }
        } else {
            try {
                v = m.group(name);
            } catch (IllegalArgumentException e) {
                v = null;
            }
        }
        return v == null ? "" : v;
    }
}
