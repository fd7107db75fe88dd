package io.sluice.promql.ast;

/** Where a node stands in the query text: character offsets, start inclusive, end exclusive. */
public record PosRange(int start, int end) {
    public static final PosRange NONE = new PosRange(0, 0);
}
