package io.sluice.server.kafka;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/** One Sluice instance as the process wires it: a head over a data directory and its Kafka consumers. */
final class IngestInstance implements AutoCloseable {
    final Head head;
    final KafkaIngest ingest;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private boolean closed;

    IngestInstance(Path dataDir, HeadOptions options, IngestConfig config) {
        try {
            head = new Head(options, new StreamRegistry(), new MemoryAccounting());
            head.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ingest = new KafkaIngest(config, head, registry);
        ingest.start();
    }

    static HeadOptions headOptions(Path dataDir) {
        return HeadOptions.defaults(dataDir).withShards(2).withPerShard(s -> s.withWalSegmentBytes(8 << 20));
    }

    List<String> stored() {
        return StoredSamples.of(head);
    }

    long count(ShardStats.Counter counter) {
        return StoredSamples.sum(head, counter);
    }

    String scrape() {
        return registry.scrape();
    }

    /** A counter's value in this instance's registry, 0 if absent. */
    double counter(String name, String... tags) {
        var search = registry.find(name);
        if (tags.length > 0) {
            search = search.tags(tags);
        }
        var c = search.counter();
        return c == null ? 0 : c.count();
    }

    /** Graceful: consumers hand over and commit, then the head drains and syncs. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            ingest.close();
            head.close();
        }
    }
}
