package io.sluice.tools.loadgen;

/**
 * The order in which a {@link LoadgenConfig} produces its samples, record by record (see the record
 * shape there). Walked by {@link Loadgen} to produce and by tests to know what was produced.
 */
public final class LoadPlan {
    /** Receives the plan: records of series of samples, identified by series and scrape numbers. */
    public interface Visitor {
        void beginRecord(int block, long firstScrape);

        void beginSeries(int series);

        void sample(int series, long scrape);

        void endSeries();

        /** Ends a record; false stops the walk. */
        boolean endRecord();
    }

    private LoadPlan() {
    }

    /** Walks every record of {@code config} in production order. Returns the samples visited. */
    public static long walk(LoadgenConfig config, Visitor visitor) {
        int perRecord = config.seriesPerRecord();
        int perSeries = config.samplesPerSeries();
        int blocks = (config.series() + perRecord - 1) / perRecord;
        long remaining = config.samples();
        for (long window = 0; remaining > 0; window++) {
            long firstScrape = window * perSeries;
            for (int block = 0; block < blocks && remaining > 0; block++) {
                visitor.beginRecord(block, firstScrape);
                int last = (int) Math.min(config.series(), (long) (block + 1) * perRecord);
                for (int s = block * perRecord; s < last && remaining > 0; s++) {
                    visitor.beginSeries(s);
                    long n = Math.min(perSeries, remaining);
                    for (int j = 0; j < n; j++) {
                        visitor.sample(s, firstScrape + j);
                    }
                    remaining -= n;
                    visitor.endSeries();
                }
                if (!visitor.endRecord()) {
                    return config.samples() - remaining;
                }
            }
        }
        return config.samples();
    }

    /** How many records the walk produces: full windows of every block, then the blocks of the rest. */
    public static long records(LoadgenConfig config) {
        long[] records = new long[1];
        walk(config, new Visitor() {
            @Override
            public void beginRecord(int block, long firstScrape) {
                records[0]++;
            }

            @Override
            public void beginSeries(int series) {
            }

            @Override
            public void sample(int series, long scrape) {
            }

            @Override
            public void endSeries() {
            }

            @Override
            public boolean endRecord() {
                return true;
            }
        });
        return records[0];
    }
}
