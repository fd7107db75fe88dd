package io.sluice.server.format.remotewrite;

import io.sluice.server.format.MetricSink;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.WireReader;

/** Reads one uncompressed remote-write request (1.0 or 2.0) into a sink; owned by its decoder. */
interface RequestReader {
    /** Reads the request that fills {@code in}; {@link #skipped()} then counts what it skipped. */
    void read(WireReader in, MetricSink sink) throws PayloadException;

    /** What the last {@link #read} skipped; reset by each read. */
    SkipCounts skipped();

    /** Counts of what a request held that Sluice does not store. Mutable; owned by its reader. */
    final class SkipCounts {
        int histograms;
        int exemplars;
        int metadata;
        int seriesWithoutSamples;

        void clear() {
            histograms = 0;
            exemplars = 0;
            metadata = 0;
            seriesWithoutSamples = 0;
        }
    }
}
