package io.sluice.promql;

import io.sluice.promql.ast.PosRange;

/**
 * A query that does not parse or type-check. {@link #getMessage()} is Prometheus' wording with the
 * position, {@code 1:15: parse error: unexpected ...} (line:column of the error, 1-based, column in
 * characters from the line's start).
 */
public final class ParseException extends PromQLException {
    private final PosRange pos;
    private final String detail;

    public ParseException(String positionPrefix, PosRange pos, String detail) {
        super(ErrorType.BAD_DATA, positionPrefix + ": parse error: " + detail);
        this.pos = pos;
        this.detail = detail;
    }

    public PosRange pos() {
        return pos;
    }

    /** The message without position and "parse error: ". */
    public String detail() {
        return detail;
    }
}
