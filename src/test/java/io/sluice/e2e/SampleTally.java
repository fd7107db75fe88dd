package io.sluice.e2e;

/**
 * What was stored against what was produced: per series and round how often the sample is stored
 * (with the right value), and what was stored that was never produced. Filled by one thread.
 */
final class SampleTally {
    /** Which samples rounds {@code 0..rounds-1} produced: sample {@code k} of series {@code s}. */
    interface Produced {
        boolean test(int s, int k);
    }

    private final int series;
    private final int rounds;
    private final Produced produced;
    private final int[][] counts;   // [series][round]: times stored
    private long stored;
    private long unexpected;        // unknown series, off-grid or unproduced timestamp, wrong value
    private String firstUnexpected;

    /** Every sample {@code 0..rounds-1} of every series produced. */
    SampleTally(int series, int rounds) {
        this(series, rounds, (s, k) -> true);
    }

    /** Samples {@code k < rounds} of series {@code s} for which {@code produced} holds were produced. */
    SampleTally(int series, int rounds, Produced produced) {
        this.series = series;
        this.rounds = rounds;
        this.produced = produced;
        this.counts = new int[series][rounds];
    }

    /** One stored sample of the series named {@code seriesLabel} ({@code sNNNN}, null if absent). */
    void add(String seriesLabel, long timestampMs, double value) {
        stored++;
        int s = parseSeries(seriesLabel);
        long k = (timestampMs - KnownSamples.START_MS) / KnownSamples.STEP_MS;
        boolean onGrid = (timestampMs - KnownSamples.START_MS) % KnownSamples.STEP_MS == 0;
        if (s < 0 || s >= series || !onGrid || k < 0 || k >= rounds || !produced.test(s, (int) k)
                || Double.doubleToRawLongBits(value) != Double.doubleToRawLongBits(KnownSamples.value(s, (int) k))) {
            unexpected++;
            if (firstUnexpected == null) {
                firstUnexpected = seriesLabel + " @" + timestampMs + " = " + value;
            }
            return;
        }
        counts[s][(int) k]++;
    }

    private static int parseSeries(String label) {
        if (label == null || label.length() < 2 || label.charAt(0) != 's') {
            return -1;
        }
        try {
            return Integer.parseInt(label.substring(1));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    long expected() {
        long expected = 0;
        for (int s = 0; s < series; s++) {
            for (int k = 0; k < rounds; k++) {
                expected += produced.test(s, k) ? 1 : 0;
            }
        }
        return expected;
    }

    long stored() {
        return stored;
    }

    /** Produced samples not stored. */
    long lost() {
        long lost = 0;
        for (int s = 0; s < series; s++) {
            for (int k = 0; k < rounds; k++) {
                lost += counts[s][k] == 0 && produced.test(s, k) ? 1 : 0;
            }
        }
        return lost;
    }

    /** Extra copies of produced samples (a sample stored three times counts 2). */
    long twice() {
        long twice = 0;
        for (int[] row : counts) {
            for (int c : row) {
                twice += Math.max(0, c - 1);
            }
        }
        return twice;
    }

    long unexpected() {
        return unexpected;
    }

    /** The first few lost samples, to start an investigation from. */
    String lostExamples() {
        StringBuilder out = new StringBuilder();
        int n = 0;
        for (int s = 0; s < series && n < 5; s++) {
            for (int k = 0; k < rounds && n < 5; k++) {
                if (counts[s][k] == 0 && produced.test(s, k)) {
                    out.append(n++ == 0 ? "" : ", ").append(KnownSamples.seriesName(s)).append(" round ").append(k);
                }
            }
        }
        return out.toString();
    }

    /** Exact multiset equality: every produced sample stored once, nothing else. */
    boolean isExact() {
        return lost() == 0 && twice() == 0 && unexpected == 0;
    }

    String summary() {
        return "samples=" + expected() + " stored=" + stored + " lost=" + lost() + " twice=" + twice()
                + " unexpected=" + unexpected + (lost() > 0 ? " (lost e.g. " + lostExamples() + ")" : "")
                + (firstUnexpected != null ? " (unexpected e.g. " + firstUnexpected + ")" : "");
    }
}
