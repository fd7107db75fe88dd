package io.sluice.promql.eval;

/** The evaluation steps: {@code start, start+step, ... <= end}; an instant evaluation has one step. */
record Grid(long start, long end, long step, int n) {
    static Grid of(long start, long end, long step) {
        if (end < start) {
            return new Grid(start, end, step, 0);
        }
        long steps = step <= 0 ? 1 : (end - start) / step + 1;
        if (steps > Integer.MAX_VALUE - 16) {
            throw Evaluator.execError("query processing would load too many samples into memory in query execution");
        }
        int n = (int) steps;
        return new Grid(start, end, step <= 0 ? 1 : step, n);
    }

    long t(int i) {
        return start + i * step;
    }

    long lastT() {
        return t(n - 1);
    }
}
