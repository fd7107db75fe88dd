package io.sluice.promql.parse;

/** The lexer's token types, grouped as Prometheus groups them (which decides how an error names them). */
enum TokenType {
    EOF(Kind.SPECIAL, null), COMMENT(Kind.SPECIAL, null),
    IDENTIFIER(Kind.SPECIAL, null), METRIC_IDENTIFIER(Kind.SPECIAL, null),
    STRING(Kind.SPECIAL, null), NUMBER(Kind.SPECIAL, null), DURATION(Kind.SPECIAL, null),

    LEFT_PAREN(Kind.PUNCT, "("), RIGHT_PAREN(Kind.PUNCT, ")"), LEFT_BRACE(Kind.PUNCT, "{"),
    RIGHT_BRACE(Kind.PUNCT, "}"), LEFT_BRACKET(Kind.PUNCT, "["), RIGHT_BRACKET(Kind.PUNCT, "]"),
    COMMA(Kind.PUNCT, ","), EQL(Kind.PUNCT, "="), COLON(Kind.PUNCT, ":"),

    ADD(Kind.OPERATOR, "+"), SUB(Kind.OPERATOR, "-"), MUL(Kind.OPERATOR, "*"), DIV(Kind.OPERATOR, "/"),
    MOD(Kind.OPERATOR, "%"), POW(Kind.OPERATOR, "^"), EQLC(Kind.OPERATOR, "=="), NEQ(Kind.OPERATOR, "!="),
    LTE(Kind.OPERATOR, "<="), LSS(Kind.OPERATOR, "<"), GTE(Kind.OPERATOR, ">="), GTR(Kind.OPERATOR, ">"),
    TRIM_UPPER(Kind.OPERATOR, "</"), TRIM_LOWER(Kind.OPERATOR, ">/"),
    EQL_REGEX(Kind.OPERATOR, "=~"), NEQ_REGEX(Kind.OPERATOR, "!~"), AT(Kind.OPERATOR, "@"),
    LAND(Kind.OPERATOR, "and"), LOR(Kind.OPERATOR, "or"), LUNLESS(Kind.OPERATOR, "unless"),
    ATAN2(Kind.OPERATOR, "atan2"),

    AVG(Kind.AGGREGATOR, "avg"), BOTTOMK(Kind.AGGREGATOR, "bottomk"), COUNT(Kind.AGGREGATOR, "count"),
    COUNT_VALUES(Kind.AGGREGATOR, "count_values"), GROUP(Kind.AGGREGATOR, "group"), MAX(Kind.AGGREGATOR, "max"),
    MIN(Kind.AGGREGATOR, "min"), QUANTILE(Kind.AGGREGATOR, "quantile"), STDDEV(Kind.AGGREGATOR, "stddev"),
    STDVAR(Kind.AGGREGATOR, "stdvar"), SUM(Kind.AGGREGATOR, "sum"), TOPK(Kind.AGGREGATOR, "topk"),
    LIMITK(Kind.AGGREGATOR, "limitk"), LIMIT_RATIO(Kind.AGGREGATOR, "limit_ratio"),

    BOOL(Kind.KEYWORD, "bool"), BY(Kind.KEYWORD, "by"), GROUP_LEFT(Kind.KEYWORD, "group_left"),
    GROUP_RIGHT(Kind.KEYWORD, "group_right"), FILL(Kind.KEYWORD, "fill"), FILL_LEFT(Kind.KEYWORD, "fill_left"),
    FILL_RIGHT(Kind.KEYWORD, "fill_right"), IGNORING(Kind.KEYWORD, "ignoring"), OFFSET(Kind.KEYWORD, "offset"),
    SMOOTHED(Kind.KEYWORD, "smoothed"), ANCHORED(Kind.KEYWORD, "anchored"), ON(Kind.KEYWORD, "on"),
    WITHOUT(Kind.KEYWORD, "without"),

    START(Kind.PREPROCESSOR, "start"), END(Kind.PREPROCESSOR, "end"), STEP(Kind.PREPROCESSOR, "step"),
    RANGE(Kind.PREPROCESSOR, "range"), MAX_OF(Kind.PREPROCESSOR, "max_of"), MIN_OF(Kind.PREPROCESSOR, "min_of");

    enum Kind { SPECIAL, PUNCT, OPERATOR, AGGREGATOR, KEYWORD, PREPROCESSOR }

    final Kind kind;
    final String text;

    TokenType(Kind kind, String text) {
        this.kind = kind;
        this.text = text;
    }

    /** Words the lexer turns into keyword tokens outside braces (case-insensitive). */
    static TokenType keyword(String lowerWord) {
        return KEYWORDS.get(lowerWord);
    }

    private static final java.util.Map<String, TokenType> KEYWORDS = new java.util.HashMap<>();

    static {
        for (TokenType t : values()) {
            if (t.kind == Kind.OPERATOR && Character.isLetter(t.text.charAt(0)) || t.kind == Kind.AGGREGATOR
                    || t.kind == Kind.KEYWORD || t.kind == Kind.PREPROCESSOR) {
                KEYWORDS.put(t.text, t);
            }
        }
    }

    /** Whether this token may stand as a metric name (Prometheus' {@code metric_identifier}). */
    boolean isMetricIdentifier() {
        return switch (this) {
            case IDENTIFIER, METRIC_IDENTIFIER, AVG, BOTTOMK, BY, COUNT, COUNT_VALUES, FILL, FILL_LEFT, FILL_RIGHT, GROUP,
                 LAND, LOR, LUNLESS, MAX, MIN, OFFSET, QUANTILE, STDDEV, STDVAR, SUM, TOPK, WITHOUT, START, END, LIMITK,
                 LIMIT_RATIO, STEP, RANGE, ANCHORED, SMOOTHED, MAX_OF, MIN_OF -> true;
            default -> false;
        };
    }

    /** Whether this token may stand as a label in a grouping list (Prometheus' {@code maybe_label}). */
    boolean isMaybeLabel() {
        return switch (this) {
            case IDENTIFIER, METRIC_IDENTIFIER, AVG, BOOL, BOTTOMK, BY, COUNT, COUNT_VALUES, GROUP, GROUP_LEFT, GROUP_RIGHT,
                 FILL, FILL_LEFT, FILL_RIGHT, IGNORING, LAND, LOR, LUNLESS, MAX, MIN, OFFSET, ON, QUANTILE, STDDEV, STDVAR,
                 SUM, TOPK, START, END, ATAN2, LIMITK, LIMIT_RATIO, STEP, RANGE, ANCHORED, SMOOTHED, MAX_OF, MIN_OF -> true;
            default -> false;
        };
    }
}
