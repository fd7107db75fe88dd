package io.sluice.server.format.influx;

/**
 * The unit of line-protocol timestamps, as InfluxDB's {@code precision} write parameter names it.
 * Telegraf's Kafka output writes nanoseconds, the default. Conversion to milliseconds rounds toward
 * negative infinity (the millisecond the instant lies in, as Go's {@code time.UnixMilli}).
 */
public enum InfluxPrecision {
    NANOSECONDS(1_000_000),
    MICROSECONDS(1_000),
    MILLISECONDS(1),
    /** Seconds are multiplied; a timestamp beyond ±9.2e15 s does not fit in milliseconds and rejects its line. */
    SECONDS(-1000);

    /** Positive: divide by it; negative: multiply by its magnitude. */
    private final long factor;

    InfluxPrecision(long factor) {
        this.factor = factor;
    }

    /** Whether {@code timestamp} in this unit is representable in milliseconds. */
    boolean fits(long timestamp) {
        return factor > 0 || Math.abs(timestamp) <= Long.MAX_VALUE / -factor;
    }

    /** {@code timestamp} in milliseconds; {@link #fits} first. */
    long toMillis(long timestamp) {
        return factor > 0 ? Math.floorDiv(timestamp, factor) : timestamp * -factor;
    }
}
