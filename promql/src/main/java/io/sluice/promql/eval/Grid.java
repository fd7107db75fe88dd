package io.sluice.promql.eval;

/** The evaluation steps: {@code start, start+step, ... <= end}; an instant evaluation has one step. */
record Grid(long start, long end, long step, int n) {
    static Grid of(long start, long end, long step) {
        if (end < start) {
            return new Grid(start, end, step, 0);
        }
        int n = step <= 0 ? 1 : (int) ((end - start) / step) + 1;
        return new Grid(start, end, step <= 0 ? 1 : step, n);
    }

    long t(int i) {
        return start + i * step;
    }

    long lastT() {
        return t(n - 1);
    }
}
