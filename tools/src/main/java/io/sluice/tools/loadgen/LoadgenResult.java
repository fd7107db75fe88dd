package io.sluice.tools.loadgen;

/**
 * What {@link Loadgen#run} produced (acknowledged by the broker).
 *
 * @param interrupted the calling thread was interrupted, so fewer samples than configured were produced
 */
public record LoadgenResult(long records, long samples, long series, long valueBytes, long elapsedNanos, boolean interrupted) {
    public double samplesPerSecond() {
        return elapsedNanos == 0 ? 0 : samples * 1e9 / elapsedNanos;
    }

    /** One line for the command line. */
    public String summary() {
        return String.format("produced %,d samples of %,d series in %,d records (%,d value bytes, %.1f B/sample) in %.2f s: %,.0f samples/s%s",
                samples, series, records, valueBytes, samples == 0 ? 0.0 : (double) valueBytes / samples, elapsedNanos / 1e9,
                samplesPerSecond(), interrupted ? " (interrupted)" : "");
    }
}
