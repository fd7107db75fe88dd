package io.sluice.promql.script;

/** A test script that does not parse (a bad command, series line, duration or expectation). */
public final class ScriptException extends RuntimeException {
    public ScriptException(String message) {
        super(message, null, false, false);
    }
}
