package io.sluice.promql.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.sluice.promql.ParseException;
import io.sluice.promql.PromQLException;
import io.sluice.promql.ast.AggregateOp;
import io.sluice.promql.ast.BinaryOp;
import io.sluice.promql.ast.Expr;
import io.sluice.promql.ast.Printer;
import io.sluice.promql.ast.ValueType;
import io.sluice.promql.labels.LabelMatcher;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ParserTest {

    /** Parses, or gives the error text, in the form the cases file holds. */
    static String answer(String query) {
        try {
            Expr e = Parser.parse(query);
            return "OK " + Printer.print(e) + " :: " + e.type().apiName();
        } catch (ParseException e) {
            return "ERR " + e.getMessage();
        }
    }

    static Stream<Arguments> prometheusCases() throws IOException {
        List<Arguments> cases = new ArrayList<>();
        try (InputStream in = ParserTest.class.getResourceAsStream("/promql-parse/parser-cases.tsv")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            for (String line : text.split("\n")) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int tab = line.indexOf('\t');
                cases.add(Arguments.of(line.substring(0, tab).replace("\\n", "\n"), line.substring(tab + 1).replace("\\n", "\n")));
            }
        }
        assertThat(cases).hasSizeGreaterThan(400);
        return cases.stream();
    }

    /** Each query answers exactly what Prometheus' parser answered: the printed tree and type, or the error text and position. */
    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("prometheusCases")
    void answersAsPrometheus(String query, String expected) {
        assertThat(answer(query)).isEqualTo(expected);
    }

    static Stream<Arguments> prettyCases() throws IOException {
        List<Arguments> cases = new ArrayList<>();
        try (InputStream in = ParserTest.class.getResourceAsStream("/promql-parse/pretty-cases.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int tab = line.indexOf('\t');
                cases.add(Arguments.of(line.substring(0, tab), line.substring(tab + 1 + "OK ".length()).replace("\\n", "\n")));
            }
        }
        assertThat(cases).hasSizeGreaterThan(100);
        return cases.stream();
    }

    /** The split, indented form equals Prometheus' Pretty(0), and parses back to the same tree text. */
    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("prettyCases")
    void prettyAsPrometheus(String query, String expected) {
        Expr e = Parser.parse(query);
        assertThat(Printer.pretty(e)).isEqualTo(expected);
        assertThat(Printer.print(Parser.parse(expected))).isEqualTo(Printer.print(e));
        assertThat(Printer.pretty(Parser.parse("sum(foo)"))).isEqualTo("sum(foo)");
    }

    static Stream<Arguments> astCases() throws IOException {
        List<Arguments> cases = new ArrayList<>();
        try (InputStream in = ParserTest.class.getResourceAsStream("/promql-parse/ast-cases.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int tab = line.indexOf('\t');
                cases.add(Arguments.of(line.substring(0, tab), line.substring(tab + 1 + "OK ".length())));
            }
        }
        assertThat(cases).hasSizeGreaterThan(60);
        return cases.stream();
    }

    /** The JSON tree equals, byte for byte, what Prometheus' parse_query answers. */
    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("astCases")
    void astJsonAsPrometheus(String query, String expected) {
        assertThat(io.sluice.promql.ast.AstJson.toJson(Parser.parse(query))).isEqualTo(expected);
    }

    @Test
    void printedFormParsesBackToTheSameText() throws IOException {
        for (Arguments a : prometheusCases().toList()) {
            String expected = (String) a.get()[1];
            if (!expected.startsWith("OK ")) {
                continue;
            }
            Expr e = Parser.parse((String) a.get()[0]);
            String printed = Printer.print(e);
            if (printed.matches(".*\\[0s[\\]:].*")) {
                continue; // a sub-millisecond range prints as 0s, which does not parse back (in Prometheus neither)
            }
            assertThat(Printer.print(Parser.parse(printed))).as("round trip of %s", a.get()[0]).isEqualTo(printed);
        }
    }

    // ------------------------------------------------------------------ tree shapes

    @Test
    void unaryMinusBindsLooserThanPowerButTighterThanMultiplication() {
        Expr e = Parser.parse("-2^2");
        assertThat(e).isInstanceOfSatisfying(Expr.Unary.class, u -> {
            assertThat(u.negate()).isTrue();
            assertThat(u.expr()).isInstanceOfSatisfying(Expr.Binary.class, b -> assertThat(b.op()).isEqualTo(BinaryOp.POW));
        });
        Expr m = Parser.parse("-a * b");
        assertThat(m).isInstanceOfSatisfying(Expr.Binary.class, b -> {
            assertThat(b.op()).isEqualTo(BinaryOp.MUL);
            assertThat(b.lhs()).isInstanceOf(Expr.Unary.class);
        });
        // A minus before a number literal folds into the literal.
        assertThat(Parser.parse("-5")).isEqualTo(new Expr.NumberLiteral(-5, new io.sluice.promql.ast.PosRange(0, 2)));
    }

    @Test
    void powerIsRightAssociativeOthersLeft() {
        Expr.Binary pow = (Expr.Binary) Parser.parse("2 ^ 3 ^ 2");
        assertThat(pow.lhs()).isInstanceOf(Expr.NumberLiteral.class);
        assertThat(pow.rhs()).isInstanceOf(Expr.Binary.class);
        Expr.Binary sub = (Expr.Binary) Parser.parse("1 - 2 - 3");
        assertThat(sub.lhs()).isInstanceOf(Expr.Binary.class);
        assertThat(sub.rhs()).isEqualTo(new Expr.NumberLiteral(3, new io.sluice.promql.ast.PosRange(8, 9)));
        Expr.Binary or = (Expr.Binary) Parser.parse("a or b and c unless d");
        assertThat(or.op()).isEqualTo(BinaryOp.OR);
        assertThat(((Expr.Binary) or.rhs()).op()).isEqualTo(BinaryOp.UNLESS);
    }

    @Test
    void selectorsRangesOffsetsAndAt() {
        Expr.VectorSelector vs = (Expr.VectorSelector) Parser.parse("foo{a=\"b\", c=~\"d|e\"} offset -5m @ 100.5");
        assertThat(vs.name()).isEqualTo("foo");
        assertThat(vs.matchers()).containsExactly(LabelMatcher.equal("a", "b"), LabelMatcher.of(LabelMatcher.Type.REGEX, "c", "d|e"),
                LabelMatcher.equal("__name__", "foo"));
        assertThat(vs.offsetMs()).isEqualTo(-300_000);
        assertThat(vs.atKind()).isEqualTo(Expr.AtKind.TIMESTAMP);
        assertThat(vs.atMs()).isEqualTo(100_500);

        Expr.MatrixSelector ms = (Expr.MatrixSelector) Parser.parse("foo[1h30m] @ start() offset 1.5");
        assertThat(ms.rangeMs()).isEqualTo(5_400_000);
        assertThat(ms.selector().atKind()).isEqualTo(Expr.AtKind.START);
        assertThat(ms.selector().offsetMs()).isEqualTo(1500);

        Expr.Subquery sq = (Expr.Subquery) Parser.parse("rate(foo[5m])[30m:1m] @ end()");
        assertThat(sq.rangeMs()).isEqualTo(1_800_000);
        assertThat(sq.stepMs()).isEqualTo(60_000);
        assertThat(sq.atKind()).isEqualTo(Expr.AtKind.END);
        assertThat(((Expr.Subquery) Parser.parse("foo[30m:]")).stepMs()).isZero();

        Expr.VectorSelector utf8 = (Expr.VectorSelector) Parser.parse("{\"my.metric\", \"a.b\"=\"c\"}");
        assertThat(utf8.name()).isNull();
        assertThat(utf8.matchers()).containsExactly(LabelMatcher.equal("__name__", "my.metric"), LabelMatcher.equal("a.b", "c"));
    }

    @Test
    void aggregationsAndVectorMatching() {
        Expr.Aggregate a = (Expr.Aggregate) Parser.parse("topk(3, foo) without (a, \"b.c\")");
        assertThat(a.op()).isEqualTo(AggregateOp.TOPK);
        assertThat(a.param()).isInstanceOf(Expr.NumberLiteral.class);
        assertThat(a.grouping()).containsExactly("a", "b.c");
        assertThat(a.without()).isTrue();
        Expr.Aggregate s = (Expr.Aggregate) Parser.parse("sum by (job) (x)");
        assertThat(s.grouping()).containsExactly("job");
        assertThat(s.without()).isFalse();
        assertThat(s.param()).isNull();

        Expr.Binary b = (Expr.Binary) Parser.parse("a * on (x, y) group_left (z) b");
        assertThat(b.matching()).isEqualTo(new Expr.VectorMatching(Expr.Cardinality.MANY_TO_ONE, List.of("x", "y"), true, List.of("z")));
        Expr.Binary set = (Expr.Binary) Parser.parse("a and ignoring (x) b");
        assertThat(set.matching().card()).isEqualTo(Expr.Cardinality.MANY_TO_MANY);
        assertThat(set.matching().on()).isFalse();
        Expr.Binary scalar = (Expr.Binary) Parser.parse("a > bool 1");
        assertThat(scalar.returnBool()).isTrue();
        assertThat(scalar.matching()).isNull();
        assertThat(Parser.parse("1 + 1").type()).isEqualTo(ValueType.SCALAR);
    }

    @Test
    void literals() {
        assertThat(((Expr.NumberLiteral) Parser.parse("0x1F")).value()).isEqualTo(31);
        assertThat(((Expr.NumberLiteral) Parser.parse("1e3")).value()).isEqualTo(1000);
        assertThat(((Expr.NumberLiteral) Parser.parse("iNf")).value()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(((Expr.NumberLiteral) Parser.parse("-Inf")).value()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(((Expr.NumberLiteral) Parser.parse("NaN")).value()).isNaN();
        assertThat(((Expr.NumberLiteral) Parser.parse("1h30m")).value()).isEqualTo(5400);
        assertThat(((Expr.NumberLiteral) Parser.parse("010")).value()).isEqualTo(8);
        assertThat(((Expr.StringLiteral) Parser.parse("\"a\\tb\\u00e9\\x41\\101\"")).value()).isEqualTo("a\tbéAA");
        assertThat(((Expr.StringLiteral) Parser.parse("'it\\'s'")).value()).isEqualTo("it's");
        assertThat(((Expr.StringLiteral) Parser.parse("`raw\\n`")).value()).isEqualTo("raw\\n");
        assertThat(((Expr.StringLiteral) Parser.parse("\"\\U0001F600\"")).value()).isEqualTo("😀");
    }

    @Test
    void functionsCarryTheirReturnType() {
        Expr.Call c = (Expr.Call) Parser.parse("label_join(foo, \"dst\", \",\", \"a\", \"b\", \"c\")");
        assertThat(c.args()).hasSize(6);
        assertThat(c.returnType()).isEqualTo(ValueType.VECTOR);
        assertThat(Parser.parse("scalar(foo)").type()).isEqualTo(ValueType.SCALAR);
        assertThat(Parser.parse("round(foo)").type()).isEqualTo(ValueType.VECTOR);
        assertThat(Parser.parse("time()").type()).isEqualTo(ValueType.SCALAR);
    }

    // ------------------------------------------------------------------ errors

    @Test
    void errorsCarryLineAndColumnAcrossLines() {
        ParseException e = catchThrowableOfType(ParseException.class, () -> Parser.parse("sum(\n  rate(foo)\n)"));
        assertThat(e.getMessage()).isEqualTo("2:8: parse error: expected type range vector in call to function \"rate\", got instant vector");
        assertThat(e.type()).isEqualTo(PromQLException.ErrorType.BAD_DATA);
        assertThat(e.pos().start()).isEqualTo(12);
        // Columns count UTF-8 bytes, as Prometheus counts them.
        assertThat(answer("{a=\"é\"} + $")).isEqualTo("ERR 1:12: parse error: unexpected character: '$'");
        assertThat(answer("")).isEqualTo("ERR unknown position: parse error: no expression found in input");
        assertThat(answer("   # nothing")).isEqualTo("ERR 1:1: parse error: no expression found in input");
    }

    @Test
    void deepNestingFailsWithAParseErrorNotAStackOverflow() {
        String parens = "(".repeat(100_000) + "1" + ")".repeat(100_000);
        assertThatThrownBy(() -> Parser.parse(parens)).isInstanceOf(ParseException.class).hasMessageContaining("nested too deeply");
        assertThatThrownBy(() -> Parser.parse("(".repeat(100_000))).isInstanceOf(ParseException.class);
        assertThatThrownBy(() -> Parser.parse("-".repeat(100_000) + "foo")).isInstanceOf(ParseException.class)
                .hasMessageContaining("nested too deeply");
        assertThatThrownBy(() -> Parser.parse("abs(".repeat(50_000) + "foo" + ")".repeat(50_000)))
                .isInstanceOf(ParseException.class).hasMessageContaining("nested too deeply");
        // A long flat chain nests the tree as deeply as parentheses would.
        String chain = "1" + " + 1".repeat(100_000);
        assertThatThrownBy(() -> Parser.parse(chain)).isInstanceOf(ParseException.class).hasMessageContaining("nested too deeply");
        // Within the bound, fine.
        String ok = "(".repeat(Parser.MAX_DEPTH - 2) + "1" + ")".repeat(Parser.MAX_DEPTH - 2);
        assertThat(Parser.parse(ok).type()).isEqualTo(ValueType.SCALAR);
        assertThat(Parser.parse("1" + " + 1".repeat(Parser.MAX_DEPTH - 2)).type()).isEqualTo(ValueType.SCALAR);
    }

    @Test
    void longInputParsesInLinearTime() {
        StringBuilder sb = new StringBuilder("sum(");
        for (int i = 0; i < 20_000; i++) {
            sb.append("foo{a=\"").append(i).append("\"}").append(i % 2 == 0 ? " or " : " and ");
        }
        sb.append("bar)");
        // Flat chains beyond the depth bound are refused, quickly.
        assertThatThrownBy(() -> Parser.parse(sb.toString())).isInstanceOf(ParseException.class);
        StringBuilder args = new StringBuilder("label_join(foo, \"d\", \",\"");
        for (int i = 0; i < 50_000; i++) {
            args.append(", \"l").append(i).append('"');
        }
        assertThat(((Expr.Call) Parser.parse(args.append(')').toString())).args()).hasSize(50_003);
    }

    // ------------------------------------------------------------------ series selectors, durations

    @Test
    void seriesSelectors() {
        assertThat(Parser.parseSeriesSelector("up")).containsExactly(LabelMatcher.equal("__name__", "up"));
        assertThat(Parser.parseSeriesSelector("{job=~\"a.*\"}")).containsExactly(LabelMatcher.of(LabelMatcher.Type.REGEX, "job", "a.*"));
        assertThat(Parser.parseSeriesSelector("{\"my.metric\", \"a.b\"=\"c\"}"))
                .containsExactly(LabelMatcher.equal("__name__", "my.metric"), LabelMatcher.equal("a.b", "c"));
        assertThat(Parser.parseSeriesSelector("{}")).isEmpty();
        // Texts as Prometheus' ParseMetricSelector gives them.
        assertThatThrownBy(() -> Parser.parseSeriesSelector("up[5m]")).hasMessage("1:3: parse error: unexpected \"[\"");
        assertThatThrownBy(() -> Parser.parseSeriesSelector("sum(x)")).hasMessage("1:4: parse error: unexpected \"(\"");
        assertThatThrownBy(() -> Parser.parseSeriesSelector("up{a=\"b\"} offset 5m"))
                .hasMessage("1:11: parse error: unexpected <offset>");
        assertThatThrownBy(() -> Parser.parseSeriesSelector("")).hasMessage("unknown position: parse error: unexpected end of input");
        assertThatThrownBy(() -> Parser.parseSeriesSelector("1")).hasMessage("1:1: parse error: unexpected number \"1\"");
    }

    @Test
    void durations() {
        assertThat(Parser.parseDuration("5m")).isEqualTo(300_000);
        assertThat(Parser.parseDuration("1h30m")).isEqualTo(5_400_000);
        assertThat(Parser.parseDuration("1y")).isEqualTo(365L * 86_400_000);
        assertThat(Parser.parseDuration("250ms")).isEqualTo(250);
        assertThat(Parser.parseDuration("30")).isEqualTo(30_000);
        assertThat(Parser.parseDuration("1.5")).isEqualTo(1500);
        assertThat(Parser.parseDuration("0")).isZero();
        assertThatThrownBy(() -> Parser.parseDuration("5x")).isInstanceOf(PromQLException.class)
                .hasMessage("cannot parse \"5x\" to a valid duration");
        assertThatThrownBy(() -> Parser.parseDuration("1m1h")).hasMessage("cannot parse \"1m1h\" to a valid duration");
        assertThatThrownBy(() -> Parser.parseDuration("1e30")).hasMessage("cannot parse \"1e30\" to a valid duration. It overflows int64");
        assertThatThrownBy(() -> Parser.parseDuration("")).hasMessage("cannot parse \"\" to a valid duration");
    }

    @Test
    void printerFormatsDurationsAndNumbersAsPrometheus() {
        assertThat(Printer.formatDuration(0)).isEqualTo("0s");
        assertThat(Printer.formatDuration(90 * 86_400_000L)).isEqualTo("90d");
        assertThat(Printer.formatDuration(14 * 86_400_000L)).isEqualTo("2w");
        assertThat(Printer.formatDuration(366 * 86_400_000L)).isEqualTo("366d");
        assertThat(Printer.formatDuration(3_723_004)).isEqualTo("1h2m3s4ms");
        assertThat(Printer.formatNumber(1e21)).isEqualTo("1000000000000000000000");
        assertThat(Printer.formatNumber(1e-7)).isEqualTo("0.0000001");
        assertThat(Printer.formatNumber(0.1)).isEqualTo("0.1");
        assertThat(Printer.formatNumber(-0.0)).isEqualTo("-0");
        assertThat(Printer.formatNumber(Double.NEGATIVE_INFINITY)).isEqualTo("-Inf");
    }
}
