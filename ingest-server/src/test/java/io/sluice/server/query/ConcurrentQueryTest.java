package io.sluice.server.query;

import static io.sluice.server.query.QueryFixture.enc;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query API while the shards append: three reader threads query over real HTTP (export, range
 * selectors, query_range) while a writer feeds the head round after round. Every answer must show,
 * per series, samples strictly increasing in time that are exactly a prefix of what was appended
 * (no invented, torn or skipped samples); and at the end everything.
 */
class ConcurrentQueryTest {
    private static final int SERIES = 24;
    private static final int ROUNDS = 400;
    private static final long STEP_MS = 1_000;
    private static final Pattern EXPORT_LINE = Pattern.compile(
            "\\{\"metric\":\\{\"__name__\":\"c\",\"s\":\"(\\d+)\"},\"values\":\\[(.*)],\"timestamps\":\\[(.*)]}");
    private static final Pattern MATRIX_SERIES = Pattern.compile("\"s\":\"(\\d+)\"},\"values\":\\[((?:\\[[^]]*],?)*)]");
    private static final Pattern POINT = Pattern.compile("\\[([0-9.]+),\"([^\"]+)\"]");

    @TempDir
    Path dir;

    /** The value of series {@code s} in round {@code r}: distinct per sample, so a wrong pairing shows. */
    private static double value(int s, long r) {
        return s * 1_000_000.0 + r + 0.25;
    }

    @Test
    void readersSeeOnlyAppendedPrefixesWhileShardsAppend() throws Exception {
        try (QueryFixture fx = new QueryFixture(dir)) {
            List<Map<String, String>> series = new ArrayList<>();
            for (int s = 0; s < SERIES; s++) {
                series.add(Map.of("__name__", "c", "s", Integer.toString(s)));
            }
            AtomicBoolean done = new AtomicBoolean();
            AtomicLong checks = new AtomicLong();
            ExecutorService pool = Executors.newFixedThreadPool(3);
            List<Future<?>> readers = new ArrayList<>();
            for (int reader = 0; reader < 3; reader++) {
                Random random = new Random(100 + reader);
                readers.add(pool.submit(() -> {
                    while (!done.get()) {
                        check(fx, random.nextInt(3));
                        checks.incrementAndGet();
                    }
                    return null;
                }));
            }
            double[] values = new double[SERIES];
            for (int r = 0; r < ROUNDS; r++) {
                for (int s = 0; s < SERIES; s++) {
                    values[s] = value(s, r);
                }
                fx.submitRound(series, (r + 1) * STEP_MS, values);
            }
            fx.awaitApplied();
            done.set(true);
            for (Future<?> f : readers) {
                f.get();
            }
            pool.shutdown();
            assertThat(checks.get()).isPositive();
            assertThat(check(fx, 0)).as("every sample at the end").isEqualTo((long) SERIES * ROUNDS);
        }
    }

    /** One query and its checks; returns the samples seen. */
    private static long check(QueryFixture fx, int kind) throws Exception {
        return switch (kind) {
            case 0 -> checkExport(fx.get("/api/v1/export?match[]=c").body());
            case 1 -> checkMatrix(fx.get("/api/v1/query?query=" + enc("c[1h]") + "&time=" + (ROUNDS + 1)).body(), true);
            default -> checkMatrix(fx.get("/api/v1/query_range?query=c&start=1&end=" + ROUNDS + "&step=1").body(), false);
        };
    }

    private static long checkExport(String body) {
        long total = 0;
        for (String line : body.lines().toList()) {
            Matcher m = EXPORT_LINE.matcher(line);
            assertThat(m.matches()).as(line).isTrue();
            int s = Integer.parseInt(m.group(1));
            String[] vs = m.group(2).split(",");
            String[] ts = m.group(3).split(",");
            assertThat(vs).hasSameSizeAs(ts);
            for (int i = 0; i < ts.length; i++) {
                assertThat(Long.parseLong(ts[i])).as("series %d sample %d", s, i).isEqualTo((i + 1) * STEP_MS);
                assertThat(Double.parseDouble(vs[i])).isEqualTo(value(s, i));
            }
            total += ts.length;
        }
        return total;
    }

    /**
     * A matrix: raw samples of a range selector (a prefix of the rounds), or query_range points (the
     * latest sample at each step: a prefix of the steps, each with its own round's value while the
     * series has samples up to it, then held by the lookback).
     */
    private static long checkMatrix(String body, boolean raw) {
        assertThat(body).startsWith("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\"");
        Matcher series = MATRIX_SERIES.matcher(body);
        long total = 0;
        while (series.find()) {
            int s = Integer.parseInt(series.group(1));
            Matcher point = POINT.matcher(series.group(2));
            long previousMs = Long.MIN_VALUE;
            long latestRound = -1;
            int i = 0;
            while (point.find()) {
                long t = Math.round(Double.parseDouble(point.group(1)) * 1000);
                double v = Double.parseDouble(point.group(2));
                assertThat(t).isGreaterThan(previousMs);
                previousMs = t;
                long round = Math.round(v - s * 1_000_000.0 - 0.25);
                assertThat(v).as("series %d at %d", s, t).isEqualTo(value(s, round));
                if (raw) {
                    assertThat(t).isEqualTo((i + 1) * STEP_MS);
                    assertThat(round).isEqualTo(i);
                } else {
                    assertThat(t).isEqualTo((i + 1) * STEP_MS); // no gap: every step from the first has a point
                    assertThat(round).isBetween(latestRound, (long) i); // latest sample at or before the step
                    latestRound = round;
                }
                i++;
                total++;
            }
        }
        return total;
    }
}
