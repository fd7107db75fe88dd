package io.sluice.promql.eval;

/**
 * Series one at a time. The returned row may be reused by the next call (a consumer that keeps it
 * copies it), so a pipeline selector → function → aggregation holds one row per stage, not one per series.
 */
interface RowSource {
    /** The next row, or null at the end. */
    Row next();

    static RowSource of(java.util.List<Row> rows) {
        java.util.Iterator<Row> it = rows.iterator();
        return () -> it.hasNext() ? it.next() : null;
    }
}
