package io.sluice.server.format;

/**
 * Writes Kafka record values of one payload format from series of samples, for the load generator, the
 * demo and tests (the inverse of a {@link PayloadDecoder}, within what the format can carry). Reusable:
 * {@link #reset()}, then per series {@code beginSeries(), label()*, sample()+, endSeries()}, then
 * {@link #finishValues()}; the values are {@code buffer()[valueOffset(i), valueOffset(i) + valueLength(i))}.
 *
 * <p>Most formats put everything into one record value; one-sample-per-message formats (json) write
 * one value per sample. A value a format cannot carry (NaN in line protocol, a timestamp before 1970
 * in OTLP, a newline in a tag) throws {@link IllegalArgumentException} naming it. Labels with empty
 * values are absent in Prometheus' model; encoders leave them out where the format cannot write them.
 *
 * <p>Not thread-safe: one instance per producing thread.
 */
public interface RecordEncoder {
    /** Starts new record values, forgetting the previous ones. */
    void reset();

    void beginSeries();

    /** One label of the current series, {@code __name__} included, UTF-8; any order. */
    void label(byte[] name, byte[] value);

    /** A sample of the current series; the value's bits are kept where the format can carry them. */
    void sample(long timestampMs, double value);

    void endSeries();

    /** Completes the values; returns how many there are (1 for formats that batch). */
    int finishValues();

    /** The bytes of the values after {@link #finishValues()}. */
    byte[] buffer();

    /** Where value {@code i} starts; 0 for formats with one value. */
    default int valueOffset(int i) {
        return 0;
    }

    int valueLength(int i);

    /** The {@link PayloadFormat#CONTENT_TYPE_HEADER} header the values need, or null. */
    default String contentType() {
        return null;
    }
}
