package io.sluice.server.kafka;

import io.sluice.core.head.Head;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.index.Matcher;
import java.util.ArrayList;
import java.util.List;

/** Reads back what a head stores, in the form of {@link TestPayloads#entry}. */
final class StoredSamples {
    private StoredSamples() {
    }

    /** Every sample of every series, in label then time order. */
    static List<String> of(Head head) {
        List<String> out = new ArrayList<>();
        HeadQuery q = head.query(Long.MIN_VALUE, Long.MAX_VALUE, Matcher.re("__name__", ".+"));
        while (q.next()) {
            String labels = q.labels().toString();
            for (SeriesSnapshot.Samples s = q.samples(); s.next(); ) {
                out.add(TestPayloads.entry(labels, s.timestampMs(), s.valueBits()));
            }
        }
        return out;
    }

    /** A shard counter summed over the head's shards. */
    static long sum(Head head, ShardStats.Counter counter) {
        long n = 0;
        for (int i = 0; i < head.shardCount(); i++) {
            n += head.shard(i).stats().get(counter);
        }
        return n;
    }
}
