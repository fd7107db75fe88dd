package io.sluice.core.head.shard;

/** A breakdown of a shard's memory; {@link #overheadBytesPerSeries()} is the figure to watch. */
public record MemoryReport(int series, long structBytes, long registryBytes, long postingsBytes, long symbolOverheadBytes,
                           long labelTextBytes, long symbolTextBytes, long chunkBytes) {
    public double overheadBytesPerSeries() {
        return series == 0 ? 0 : (double) (structBytes + registryBytes + postingsBytes + symbolOverheadBytes) / series;
    }
}
