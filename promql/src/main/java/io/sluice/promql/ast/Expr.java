package io.sluice.promql.ast;

import io.sluice.promql.labels.LabelMatcher;
import java.util.List;

/**
 * A parsed PromQL expression: an immutable tree of records. Times are milliseconds. The parser checks
 * types, so the evaluator may trust {@link #type()} and function arity.
 */
public sealed interface Expr {
    PosRange pos();

    ValueType type();

    /** Whether and how an {@code @} modifier pins a selector or subquery. */
    enum AtKind { NONE, TIMESTAMP, START, END }

    /** Cardinality of a vector-vector binary operation. */
    enum Cardinality { ONE_TO_ONE, MANY_TO_ONE, ONE_TO_MANY, MANY_TO_MANY }

    /**
     * A number; {@code duration} when it was written as a duration ({@code 5m} stands for 300), which
     * only changes how it prints ({@code format_query} keeps {@code 5m}).
     */
    record NumberLiteral(double value, PosRange pos, boolean duration) implements Expr {
        public NumberLiteral(double value, PosRange pos) {
            this(value, pos, false);
        }

        public ValueType type() {
            return ValueType.SCALAR;
        }
    }

    record StringLiteral(String value, PosRange pos) implements Expr {
        public ValueType type() {
            return ValueType.STRING;
        }
    }

    /**
     * An instant vector selector. {@code matchers} include the {@code __name__} matcher when a metric
     * name was written ({@code name} is then that name, else null). {@code atMs} is meaningful only
     * when {@code atKind} is {@link AtKind#TIMESTAMP}.
     */
    record VectorSelector(String name, List<LabelMatcher> matchers, long offsetMs, AtKind atKind, long atMs,
                          PosRange pos) implements Expr {
        public ValueType type() {
            return ValueType.VECTOR;
        }
    }

    /** A range vector selector {@code selector[range]}; offset and {@code @} live on the inner selector. */
    record MatrixSelector(VectorSelector selector, long rangeMs, PosRange pos) implements Expr {
        public ValueType type() {
            return ValueType.MATRIX;
        }
    }

    /** {@code expr[range:step]}; {@code stepMs} is 0 when omitted (the default evaluation interval). */
    record Subquery(Expr expr, long rangeMs, long stepMs, long offsetMs, AtKind atKind, long atMs, PosRange pos)
            implements Expr {
        public ValueType type() {
            return ValueType.MATRIX;
        }
    }

    /** A function call; {@code returnType} comes from the function's signature. */
    record Call(String function, List<Expr> args, ValueType returnType, PosRange pos) implements Expr {
        public ValueType type() {
            return returnType;
        }
    }

    /** An aggregation; {@code param} is null unless {@link AggregateOp#hasParameter()}. */
    record Aggregate(AggregateOp op, Expr expr, Expr param, List<String> grouping, boolean without, PosRange pos)
            implements Expr {
        public ValueType type() {
            return ValueType.VECTOR;
        }
    }

    /**
     * {@code on(labels)} / {@code ignoring(labels)} and {@code group_left(include)} /
     * {@code group_right(include)}. Set operators are {@link Cardinality#MANY_TO_MANY}.
     */
    record VectorMatching(Cardinality card, List<String> labels, boolean on, List<String> include) {
    }

    /** A binary operation; {@code matching} is null unless both sides are instant vectors. */
    record Binary(BinaryOp op, Expr lhs, Expr rhs, boolean returnBool, VectorMatching matching, PosRange pos)
            implements Expr {
        public ValueType type() {
            return lhs.type() == ValueType.SCALAR && rhs.type() == ValueType.SCALAR ? ValueType.SCALAR : ValueType.VECTOR;
        }
    }

    /** Unary minus (or plus, which the parser may drop). */
    record Unary(boolean negate, Expr expr, PosRange pos) implements Expr {
        public ValueType type() {
            return expr.type();
        }
    }

    record Paren(Expr expr, PosRange pos) implements Expr {
        public ValueType type() {
            return expr.type();
        }
    }
}
