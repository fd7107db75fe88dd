package io.sluice.promql.parse;

/**
 * One token: its type, where it starts (char offset), its text as written and, for strings, the
 * unquoted value.
 */
record Token(TokenType type, int pos, String text, String value) {
    int end() {
        return pos + text.length();
    }

    /** How Prometheus names this token in "unexpected ..." errors. */
    String describe() {
        return switch (type) {
            case EOF -> "end of input";
            case IDENTIFIER -> "identifier " + GoStrings.quote(text);
            case METRIC_IDENTIFIER -> "metric identifier " + GoStrings.quote(text);
            case STRING -> "string " + shortQuote();
            case NUMBER -> "number " + shortQuote();
            case DURATION -> "duration " + shortQuote();
            case COMMENT -> "comment " + shortQuote();
            default -> switch (type.kind) {
                case KEYWORD -> "<" + text + ">";
                case OPERATOR -> "<op:" + text + ">";
                case AGGREGATOR -> "<aggr:" + text + ">";
                default -> shortQuote();
            };
        };
    }

    private String shortQuote() {
        if (GoStrings.utf8Length(text) > 10) {
            int cut = text.offsetByCodePoints(0, Math.min(10, text.codePointCount(0, text.length())));
            return GoStrings.quote(text.substring(0, cut)) + "...";
        }
        return GoStrings.quote(text);
    }
}
