package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.format.AllocationMeter;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Allocation budget of the per-sample loops of the answers (after warm-up, buffers grown): reading a
 * snapshot's samples and writing them as export JSON (integers, fractions in Java's plain and
 * exponent ranges, specials) and as remote-read protobuf allocates nothing per sample.
 */
class QueryAllocationTest {
    private static final int SAMPLES = 10_000;

    @TempDir
    Path dir;

    @Test
    void writingSamplesAllocatesNothingPerSample() throws Exception {
        try (QueryFixture fx = new QueryFixture(dir, 1, QueryOptions.DEFAULTS)) {
            long[] ts = new long[SAMPLES];
            double[] vs = new double[SAMPLES];
            for (int i = 0; i < SAMPLES; i++) {
                ts[i] = 1_000L * (i + 1);
                vs[i] = i % 100 == 7 ? Double.NaN : i % 100 == 8 ? Double.NEGATIVE_INFINITY
                        : i % 2 == 0 ? i * 3 - 5_000 : (i - 5_000) * 0.3701 * Math.pow(10, i % 40 - 20); // fractions, both notations
            }
            fx.append(Map.of("__name__", "alloc"), ts, vs);
            HeadQuery query = fx.head.query(Long.MIN_VALUE, Long.MAX_VALUE, io.sluice.core.index.Matcher.eq("__name__", "alloc"));
            assertThat(query.next()).isTrue();
            SeriesSnapshot snapshot = query.snapshot();
            JsonBuffer json = new JsonBuffer(16);
            ReadResponseWriter protobuf = new ReadResponseWriter();
            for (int warm = 0; warm < 5; warm++) {
                assertThat(writeAll(snapshot, json, protobuf)).isEqualTo(SAMPLES);
            }
            int rounds = 10;
            long before = AllocationMeter.allocatedBytes();
            long written = 0;
            for (int r = 0; r < rounds; r++) {
                written += writeAll(snapshot, json, protobuf);
            }
            long perSample = (AllocationMeter.allocatedBytes() - before) / written;
            assertThat(perSample).as("bytes allocated per sample").isLessThan(1);
        }
    }

    private static long writeAll(SeriesSnapshot snapshot, JsonBuffer json, ReadResponseWriter protobuf) {
        json.reset();
        protobuf.beginResult();
        protobuf.beginSeries(snapshot);
        long n = 0;
        for (SeriesSnapshot.Samples s = snapshot.samples(); s.next(); n++) {
            double v = s.value();
            if (PromFloat.isSpecial(v)) {
                json.raw('"').value(v).raw('"');
            } else {
                json.value(v);
            }
            json.raw(',').number(s.timestampMs()).raw(',').timestamp(s.timestampMs());
            protobuf.sample(s.timestampMs(), s.valueBits());
        }
        protobuf.endSeries();
        return n;
    }
}
