package io.sluice.promql;

/**
 * A query that cannot be answered, with the HTTP API's {@code errorType}: {@code bad_data} (400) for
 * parse and argument errors, {@code execution} (422) for errors while evaluating (a collision, too many
 * samples), {@code timeout} (503), {@code canceled}.
 */
public class PromQLException extends RuntimeException {
    public enum ErrorType {
        BAD_DATA("bad_data"), EXECUTION("execution"), TIMEOUT("timeout"), CANCELED("canceled");

        private final String apiName;

        ErrorType(String apiName) {
            this.apiName = apiName;
        }

        public String apiName() {
            return apiName;
        }
    }

    private final ErrorType type;

    public PromQLException(ErrorType type, String message) {
        super(message, null, false, false);
        this.type = type;
    }

    public ErrorType type() {
        return type;
    }

    /** An execution error (422), e.g. "vector cannot contain metrics with the same labelset". */
    public static PromQLException execution(String message) {
        return new PromQLException(ErrorType.EXECUTION, message);
    }
}
