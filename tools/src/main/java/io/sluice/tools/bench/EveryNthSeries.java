package io.sluice.tools.bench;

/**
 * Part {@code part} of {@code parts} of a workload: its series {@code part}, {@code part + parts},
 * {@code part + 2 * parts}, ... — one Sluice instance's share when the same data is split over several
 * (benchmarks/query-vs-prometheus.sh --thanos). Samples, times and labels are the whole workload's.
 */
public final class EveryNthSeries implements RoundWorkload {
    private final RoundWorkload all;
    private final int part;
    private final int parts;

    public EveryNthSeries(RoundWorkload all, int part, int parts) {
        if (parts < 1 || part < 0 || part >= parts) {
            throw new IllegalArgumentException("part " + part + " of " + parts);
        }
        this.all = all;
        this.part = part;
        this.parts = parts;
    }

    private int of(int i) {
        return i * parts + part;
    }

    @Override
    public int seriesCount() {
        return (all.seriesCount() - part + parts - 1) / parts;
    }

    @Override
    public byte[] labels(int i) {
        return all.labels(of(i));
    }

    @Override
    public long hash(int i) {
        return all.hash(of(i));
    }

    @Override
    public int maxLabelsLength() {
        return all.maxLabelsLength();
    }

    @Override
    public long scrapeTimeMs(long round) {
        return all.scrapeTimeMs(round);
    }

    @Override
    public double value(int i, long round) {
        return all.value(of(i), round);
    }
}
