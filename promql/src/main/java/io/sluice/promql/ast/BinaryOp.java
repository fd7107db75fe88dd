package io.sluice.promql.ast;

/**
 * Binary operators with Prometheus' precedence (higher binds tighter) and associativity: {@code ^} is
 * right-associative, every other operator left-associative.
 */
public enum BinaryOp {
    OR("or", 1), AND("and", 2), UNLESS("unless", 2),
    EQL("==", 3), NEQ("!=", 3), LTE("<=", 3), LSS("<", 3), GTE(">=", 3), GTR(">", 3),
    ADD("+", 4), SUB("-", 4),
    MUL("*", 5), DIV("/", 5), MOD("%", 5), ATAN2("atan2", 5),
    POW("^", 6);

    private final String symbol;
    private final int precedence;

    BinaryOp(String symbol, int precedence) {
        this.symbol = symbol;
        this.precedence = precedence;
    }

    public String symbol() {
        return symbol;
    }

    public int precedence() {
        return precedence;
    }

    public boolean rightAssociative() {
        return this == POW;
    }

    public boolean isComparison() {
        return precedence == 3;
    }

    public boolean isSetOperator() {
        return this == AND || this == OR || this == UNLESS;
    }
}
