package io.sluice.bench.query;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.promql.QueryResult;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The benchmark's two queries answer the same series and values, so their timings compare like for like. */
class InfoFunctionBenchmarkSanityTest {
    @Test
    void infoAndTheGroupLeftJoinAnswerTheSame() {
        InfoFunctionBenchmark b = new InfoFunctionBenchmark();
        b.series = 30;
        b.setUp();
        QueryResult info = b.info();
        QueryResult join = b.groupLeft();
        assertThat(info.series()).hasSize(30);
        assertThat(info.series().getFirst().labels().get("team")).startsWith("team-");
        assertThat(info.series()).hasSameSizeAs(join.series());
        for (int i = 0; i < info.series().size(); i++) {
            QueryResult.Series a = info.series().get(i);
            QueryResult.Series j = join.series().get(i);
            assertThat(a.labels().withoutMetadata()).isEqualTo(j.labels());
            assertThat(a.count()).isEqualTo(InfoFunctionBenchmark.ROUNDS).isEqualTo(j.count());
            assertThat(Arrays.copyOf(a.values(), a.count())).containsExactly(Arrays.copyOf(j.values(), j.count()));
            assertThat(Arrays.copyOf(a.timestamps(), a.count())).containsExactly(Arrays.copyOf(j.timestamps(), j.count()));
        }
    }
}
