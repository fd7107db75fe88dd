package io.sluice.core.head.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Runs keep every series' own order, lose nothing, and respect the budget (down to passing straight through). */
class ReplayRunsTest {
    private static Map<Integer, List<Long>> feed(long budgetBytes, long seed, List<int[]> appendOrder) {
        Map<Integer, List<Long>> received = new HashMap<>();
        ReplayRuns.RunSink sink = (id, ts, vs, from, to) -> {
            assertThat(to).isGreaterThan(from);
            for (int i = from; i < to; i++) {
                received.computeIfAbsent(id, k -> new ArrayList<>()).add(ts[i]);
                assertThat(vs[i]).isEqualTo(ts[i] * 31);
                appendOrder.add(new int[] {id});
            }
        };
        ReplayRuns runs = new ReplayRuns(budgetBytes, sink, (id, t, v) -> sink.appendRun(id, new long[] {t}, new long[] {v}, 0, 1));
        SplittableRandom random = new SplittableRandom(seed);
        long[] next = new long[5_000];
        int series = 1;
        for (int i = 0; i < 200_000; i++) {
            if (series < next.length && random.nextInt(40) == 0) {
                series++; // series appear during replay, so the layout grows
            }
            int id = random.nextInt(series);
            long t = next[id]++;
            runs.add(id, t, t * 31);
        }
        runs.flushAll();
        for (int id = 0; id < series; id++) {
            if (next[id] > 0) {
                assertThat(received.get(id)).as("series %d", id).hasSize((int) next[id]);
            }
        }
        return received;
    }

    @Test
    void everySeriesGetsAllItsSamplesInOrder() {
        for (long budget : new long[] {16L << 20, 1 << 16, 16}) { // long runs, short runs, straight through
            List<int[]> order = new ArrayList<>();
            Map<Integer, List<Long>> received = feed(budget, 42, order);
            for (Map.Entry<Integer, List<Long>> e : received.entrySet()) {
                List<Long> ts = e.getValue();
                for (int i = 0; i < ts.size(); i++) {
                    assertThat(ts.get(i)).as("budget %d series %d sample %d", budget, e.getKey(), i).isEqualTo(i);
                }
            }
            assertThat(order).hasSize(200_000);
        }
    }

    @Test
    void singleSamplesGoToTheOneSinkOnlyWhenNothingIsBuffered() {
        for (long budget : new long[] {16, 16L << 20}) { // straight through, then buffered
            long[] viaRuns = new long[1];
            long[] viaOne = new long[1];
            ReplayRuns runs = new ReplayRuns(budget, (id, ts, vs, from, to) -> viaRuns[0] += to - from,
                    (id, t, v) -> viaOne[0]++);
            for (int i = 0; i < 10_000; i++) {
                runs.add(i % 100, i, i);
            }
            runs.flushAll();
            assertThat(viaRuns[0] + viaOne[0]).as("budget %d", budget).isEqualTo(10_000);
            assertThat(budget == 16 ? viaRuns[0] : viaOne[0]).as("budget %d", budget).isZero();
        }
    }

    @Test
    void aBigBudgetAppendsInRunsOfOneSeries() {
        List<int[]> order = new ArrayList<>();
        feed(16L << 20, 7, order);
        int switches = 0;
        for (int i = 1; i < order.size(); i++) {
            switches += order.get(i)[0] != order.get(i - 1)[0] ? 1 : 0;
        }
        // Interleaved input switches series on nearly every sample; runs switch far less often.
        assertThat(switches).isLessThan(order.size() / 4);
    }

    @Test
    void growingKeepsTheBufferedSamplesUntilTheRunLengthMustShrink() {
        List<int[]> runs = new ArrayList<>(); // [id, length]
        ReplayRuns buffer = new ReplayRuns(16L << 20, (id, ts, vs, from, to) -> runs.add(new int[] {id, to - from}),
                (id, t, v) -> runs.add(new int[] {id, 1}));
        for (int id = 0; id < 100; id++) {
            buffer.add(id, 1, 1);
            buffer.add(id, 2, 2);
        }
        buffer.add(5_000, 1, 1); // capacity 1,024 -> 5,001: runs of 128 still fit the budget
        assertThat(buffer.run()).isEqualTo(ReplayRuns.MAX_RUN);
        assertThat(runs).as("nothing handed on by a growth that keeps the layout").isEmpty();
        assertThat(buffer.timestampsMs()).as("past the first size: the whole budget at once").hasSize((16 << 20) / 16);
        buffer.add(20_000, 1, 1); // 20,001 series: runs of 52
        assertThat(buffer.run()).isEqualTo((16 << 20) / (16 * 20_001));
        assertThat(runs).as("a shorter run length re-lays out: everything buffered is handed on first")
                .extracting(r -> r[1]).containsOnly(2, 1).hasSize(101);
        buffer.flushAll();
        assertThat(runs).hasSize(102);
        assertThat(buffer.flushIfFull(-1) || buffer.flushIfFull(7) || buffer.flushIfFull(1 << 30)).isFalse();
    }

    @Test
    void nothingIsFullWhenNothingIsBuffered() {
        ReplayRuns unbuffered = new ReplayRuns(16, (id, ts, vs, from, to) -> { }, (id, t, v) -> { });
        unbuffered.add(3, 1, 1);
        assertThat(unbuffered.run()).isEqualTo(1);
        assertThat(unbuffered.flushIfFull(3) || unbuffered.flushIfFull(-1) || unbuffered.flushIfFull(5_000)).isFalse();
    }
}
