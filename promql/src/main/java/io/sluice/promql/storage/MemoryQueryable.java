package io.sluice.promql.storage;

import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * Series held in primitive arrays on the heap: the storage of the promqltest script runner and of
 * tests. Append samples in time order per series ({@link #add}); an append at or before a series'
 * last timestamp replaces nothing and is rejected. Not thread-safe while written; safe to read from
 * many threads once loading is done.
 */
public final class MemoryQueryable implements Queryable {
    private final TreeMap<Labels, Series> series = new TreeMap<>();

    private static final class Series {
        long[] ts = new long[8];
        double[] vs = new double[8];
        int n;
    }

    /** Appends one sample; false (and nothing stored) when {@code timeMs} is not after the series' last. */
    public boolean add(Labels labels, long timeMs, double value) {
        Series s = series.computeIfAbsent(labels, l -> new Series());
        if (s.n > 0 && s.ts[s.n - 1] >= timeMs) {
            return false;
        }
        if (s.n == s.ts.length) {
            s.ts = Arrays.copyOf(s.ts, s.n * 2);
            s.vs = Arrays.copyOf(s.vs, s.n * 2);
        }
        s.ts[s.n] = timeMs;
        s.vs[s.n] = value;
        s.n++;
        return true;
    }

    /** Drops every series. */
    public void clear() {
        series.clear();
    }

    public int seriesCount() {
        return series.size();
    }

    @Override
    public SeriesSet select(long minTimeMs, long maxTimeMs, List<LabelMatcher> matchers) {
        List<Labels> keys = new ArrayList<>();
        List<Series> values = new ArrayList<>();
        for (var e : series.entrySet()) {
            Series s = e.getValue();
            if (s.n == 0 || s.ts[0] > maxTimeMs || s.ts[s.n - 1] < minTimeMs || !matchesAll(e.getKey(), matchers)) {
                continue;
            }
            keys.add(e.getKey());
            values.add(s);
        }
        return new SeriesSet() {
            int i = -1;

            @Override
            public boolean next() {
                return ++i < keys.size();
            }

            @Override
            public Labels labels() {
                return keys.get(i);
            }

            @Override
            public SampleIterator iterator(SampleIterator reuse) {
                ArrayIterator it = reuse instanceof ArrayIterator a ? a : new ArrayIterator();
                Series s = values.get(i);
                it.reset(s.ts, s.vs, s.n);
                return it;
            }
        };
    }

    private static boolean matchesAll(Labels l, List<LabelMatcher> matchers) {
        for (LabelMatcher m : matchers) {
            if (!m.matches(l.get(m.name()))) {
                return false;
            }
        }
        return true;
    }

    /** Iterates parallel arrays of timestamps and values. */
    public static final class ArrayIterator implements SampleIterator {
        private long[] ts;
        private double[] vs;
        private int n;
        private int i;

        public void reset(long[] timestamps, double[] values, int count) {
            this.ts = timestamps;
            this.vs = values;
            this.n = count;
            this.i = -1;
        }

        @Override
        public boolean next() {
            return ++i < n;
        }

        @Override
        public boolean seek(long timeMs) {
            if (i < 0) {
                i = 0;
            }
            if (i < n && ts[i] >= timeMs) {
                return true;
            }
            int lo = i;
            int hi = n;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (ts[mid] < timeMs) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            i = lo;
            return i < n;
        }

        @Override
        public boolean latest(long fromMs, long toMs) {
            int lo = 0;
            int hi = n;
            while (lo < hi) { // the first sample after toMs
                int mid = (lo + hi) >>> 1;
                if (ts[mid] <= toMs) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            i = lo - 1;
            n = lo; // the iteration ends here
            return i >= 0 && ts[i] >= fromMs;
        }

        @Override
        public long timestamp() {
            return ts[i];
        }

        @Override
        public double value() {
            return vs[i];
        }
    }
}
