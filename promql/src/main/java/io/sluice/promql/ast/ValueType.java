package io.sluice.promql.ast;

/** The four PromQL value types, named as the HTTP API names them ({@code resultType}). */
public enum ValueType {
    SCALAR("scalar"), VECTOR("vector"), MATRIX("matrix"), STRING("string");

    private final String apiName;

    ValueType(String apiName) {
        this.apiName = apiName;
    }

    /** The name in the HTTP API and in error messages ("instant vector" is {@link #documentedName()}). */
    public String apiName() {
        return apiName;
    }

    /** The name Prometheus' parse errors use: "scalar", "instant vector", "range vector", "string". */
    public String documentedName() {
        return switch (this) {
            case SCALAR -> "scalar";
            case VECTOR -> "instant vector";
            case MATRIX -> "range vector";
            case STRING -> "string";
        };
    }
}
