package io.sluice.core.head.series;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelLimits;
import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsStatus;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The shard's label index with series of more labels than its initial symbol buffers hold (32). */
class ShardIndexTest {
    private static byte[] labels(int count, String value) {
        LabelsBuilder builder = new LabelsBuilder(new LabelLimits(256, 1024, 4096, true));
        builder.add("__name__", "many");
        for (int i = 1; i < count; i++) {
            builder.add("l" + i, value + i);
        }
        assertThat(builder.build()).isEqualTo(LabelsStatus.OK);
        return Arrays.copyOf(builder.bytes(), builder.length());
    }

    @Test
    void seriesWithManyLabelsAreIndexedSelectedAndRemoved() {
        ShardIndex index = new ShardIndex();
        byte[] first = labels(40, "a");
        byte[] second = labels(100, "b");
        index.add(0, first, 0, first.length);
        index.add(1, second, 0, second.length);

        assertThat(index.select(Matcher.eq("l39", "a39")).toArray()).containsExactly(0);
        assertThat(index.select(Matcher.eq("l99", "b99")).toArray()).containsExactly(1);
        assertThat(index.select(Matcher.eq("__name__", "many")).toArray()).containsExactly(0, 1);
        assertThat(index.labelValues("l35")).containsExactly("a35", "b35");

        index.remove(1, second, 0, second.length);
        assertThat(index.select(Matcher.eq("__name__", "many")).toArray()).containsExactly(0);
        assertThat(index.labelNames()).doesNotContain("l99");
    }
}
