package io.sluice.core.head.shard;

/**
 * A breakdown of a shard's memory; {@link #overheadBytesPerSeries()} is the figure to watch.
 * {@code outOfOrderBytes}: the heap bytes of late samples ({@code OutOfOrderStore}), 0 while every
 * series received its samples in order.
 */
public record MemoryReport(int series, long structBytes, long registryBytes, long postingsBytes, long symbolOverheadBytes,
                           long labelTextBytes, long symbolTextBytes, long chunkBytes, long outOfOrderBytes) {
    public double overheadBytesPerSeries() {
        return series == 0 ? 0 : (double) (structBytes + registryBytes + postingsBytes + symbolOverheadBytes) / series;
    }
}
