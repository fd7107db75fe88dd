package io.sluice.bench.query;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.promql.Engine;
import io.sluice.promql.EngineOptions;
import io.sluice.promql.QueryLimits;
import io.sluice.promql.QueryResult;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.MemoryQueryable;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@code info(x)} next to the {@code group_left} join it stands for, in the engine alone (in-memory
 * storage, no HTTP): {@code series} series {@code x{job, instance}} and as many
 * {@code target_info{job, instance, team, region}}, 480 samples each at 15 s, evaluated as a 2 h range
 * at 15 s. Score: ms per query; both answer the same series and values.
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class InfoFunctionBenchmark extends AbstractBenchmark {
    static final long T0 = 1_700_000_000_000L;
    static final int ROUNDS = 480;
    static final long STEP_MS = 15_000;

    @Param({"2000"})
    public int series;

    MemoryQueryable data;
    Engine engine;

    @Setup(Level.Trial)
    public void setUp() {
        data = new MemoryQueryable();
        for (int s = 0; s < series; s++) {
            Labels x = Labels.of("__name__", "x", "job", "job-" + s % 10, "instance", "i-" + s);
            Labels info = Labels.of("__name__", "target_info", "job", "job-" + s % 10, "instance", "i-" + s,
                    "team", "team-" + s % 7, "region", "eu");
            for (int i = 0; i < ROUNDS; i++) {
                data.add(x, T0 + i * STEP_MS, i);
                data.add(info, T0 + i * STEP_MS, 1);
            }
        }
        engine = new Engine(EngineOptions.DEFAULTS);
    }

    private QueryResult range(String query) {
        return engine.range(data, query, T0, T0 + (ROUNDS - 1) * STEP_MS, STEP_MS, EngineOptions.DEFAULTS.lookbackDeltaMs(),
                QueryLimits.NONE);
    }

    @Benchmark
    public QueryResult info() {
        return range("info(x)");
    }

    @Benchmark
    public QueryResult groupLeft() {
        return range("x * on(job, instance) group_left(team, region) target_info");
    }
}
