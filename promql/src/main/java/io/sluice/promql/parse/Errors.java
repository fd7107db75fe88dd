package io.sluice.promql.parse;

import io.sluice.promql.ParseException;
import io.sluice.promql.ast.PosRange;

/** Builds parse errors with Prometheus' {@code line:col} prefix (column counted in UTF-8 bytes, 1-based). */
public final class Errors {
    private Errors() {
    }

    static ParseException at(String query, int start, int end, String detail) {
        return new ParseException(position(query, start), new PosRange(start, end), detail);
    }

    public static String position(String query, int pos) {
        if (query.isEmpty()) {
            return "unknown position";
        }
        if (pos < 0 || pos > query.length()) {
            return "invalid position";
        }
        int line = 1;
        int lastBreak = -1;
        for (int i = 0; i < pos; i++) {
            if (query.charAt(i) == '\n') {
                line++;
                lastBreak = i;
            }
        }
        int col = GoStrings.utf8Length(query.subSequence(lastBreak + 1, pos)) + 1;
        return line + ":" + col;
    }
}
