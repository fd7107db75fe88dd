package io.sluice.core.head.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.Head;
import io.sluice.core.head.HeadOptions;
import io.sluice.core.head.chunkfiles.ChunkFileWriter;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.head.shard.ShardBatch;
import io.sluice.core.head.stats.ShardStats;
import io.sluice.core.head.stream.StreamRegistry;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.CanonicalLabels;
import io.sluice.core.labels.LabelsView;
import io.sluice.core.memory.MemoryAccounting;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HeadQuery} in label order through the head's {@link LabelOrder}: with no order yet, a full
 * one, one that covers only the older series (the newer ones sorted by labels and merged in), a
 * relabelling that reorders series (an added label after a name one set lacks and the other has),
 * the order made again in the background once a query meets many uncovered series, and chunk writes
 * that ask for it only once a query has read by it. The expected
 * order is every series' labels sorted by {@link LabelsView#compareTo} (Prometheus' order).
 */
class HeadQueryLabelOrderTest {
    @TempDir
    Path dir;
    private final StreamRegistry streams = new StreamRegistry();
    private final int stream = streams.idOf("order", 0);
    private final SplittableRandom random = new SplittableRandom(11);
    private final List<byte[]> written = new ArrayList<>();
    private final long[] samplesPerShard = new long[2];

    @Test
    void queriesAnswerInLabelOrderWhateverTheOrderCovers() throws IOException {
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(2), streams, new MemoryAccounting())) {
            head.start();
            Shard[] shards = {head.shard(0), head.shard(1)};
            LabelOrder order = new LabelOrder(shards);
            addSeries(head, 1_500);
            Matcher[] all = {Matcher.re("__name__", ".+")};
            Matcher[] some = {Matcher.eq("__name__", "m1"), Matcher.re("a", "1|é.*")};

            assertThat(order.current().order()).as("nothing covered yet").isEmpty();
            assertOrdered(shards, order, null, all);
            assertOrdered(shards, order, null, some);

            order.rebuild();
            assertThat(order.current().order()).as("every series covered").hasSize(1_500);
            assertOrdered(shards, order, null, all);
            assertOrdered(shards, order, null, some);

            addSeries(head, 700); // newer than the order: sorted by labels and merged in
            assertThat(order.current().order()).hasSize(1_500);
            assertOrdered(shards, order, null, all);
            assertOrdered(shards, order, null, some);

            order.rebuild(); // the old order plus the new series
            assertThat(order.current().order()).hasSize(2_200);
            assertOrdered(shards, order, null, all);
            assertOrdered(shards, order, null, some);
        }
    }

    @Test
    void aRelabellingThatReordersSeriesIsSortedByTheServedLabels() throws IOException {
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(2), streams, new MemoryAccounting())) {
            head.start();
            Shard[] shards = {head.shard(0), head.shard(1)};
            // {__name__=m, a=1} is a prefix of {__name__=m, a=1, a2=x}: first; with b=e added it comes after.
            add(head, 0, "__name__", "m", "a", "1");
            add(head, 1, "__name__", "m", "a", "1", "a2", "x");
            add(head, 0, "__name__", "m", "a", "0", "z", "y");
            add(head, 1, "__name__", "m", "a", "2");
            awaitSamples(head);
            addSeries(head, 300);
            LabelOrder order = new LabelOrder(shards);
            order.rebuild();
            UnaryOperator<byte[]> addB = labels -> {
                Map<String, String> map = new TreeMap<>(new LabelsView().wrap(labels, 0, labels.length).toMap());
                map.put("b", "e");
                List<String> flat = new ArrayList<>();
                map.forEach((n, v) -> {
                    flat.add(n);
                    flat.add(v);
                });
                return CanonicalLabels.encode(flat.toArray(String[]::new));
            };
            List<String> served = assertOrdered(shards, order, addB, Matcher.eq("__name__", "m"));
            assertThat(served).hasSize(4);
            assertThat(served.indexOf(hex(addB.apply(CanonicalLabels.encode("__name__", "m", "a", "1")))))
                    .as("after the set that has a2").isEqualTo(2);
            assertOrdered(shards, order, addB, Matcher.re("__name__", ".+"));
        }
    }

    @Test
    void aQueryMeetingManyUncoveredSeriesHasTheOrderMadeAgain() throws IOException {
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(2), streams, new MemoryAccounting())) {
            head.start();
            Shard[] shards = {head.shard(0), head.shard(1)};
            LabelOrder order = new LabelOrder(shards);
            addSeries(head, LabelOrder.REBUILD_MIN_UNCOVERED - 1);
            assertOrdered(shards, order, null, Matcher.re("__name__", ".+"));
            assertThat(order.current().order()).as("too few to make an order").isEmpty();

            addSeries(head, 200);
            assertOrdered(shards, order, null, Matcher.re("__name__", ".+"));
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (order.current().order().length < written.size()) {
                assertThat(System.nanoTime()).as("the order made again").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertOrdered(shards, order, null, Matcher.re("__name__", ".+"));
        }
    }

    @Test
    void chunkWritesAskForTheOrderOnlyOnceAQueryHasReadByIt() throws IOException {
        try (Head head = new Head(HeadOptions.defaults(dir).withShards(2), streams, new MemoryAccounting())) {
            head.start();
            Shard[] shards = {head.shard(0), head.shard(1)};
            LabelOrder order = new LabelOrder(shards);
            addSeries(head, 500);
            ChunkFileWriter.ChunkOrder writes = order.chunkOrder(0);
            assertThat(writes.rank(0)).as("no order yet").isEqualTo(-1);
            writes.unranked(1_000); // a write of many chunks no order covers, before any query
            // A rebuild, once started, is running or has published its order: neither, so none started.
            assertThat(order.rebuilding()).as("no order made for chunk writes nobody reads").isFalse();
            assertThat(order.current().order()).isEmpty();

            assertOrdered(shards, order, null, Matcher.re("__name__", "m0")); // a query reads by the order
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (order.rebuilding()) { // the query's own request (it met uncovered series): let it finish
                assertThat(System.nanoTime()).as("the query's order made").isLessThan(deadline);
                Thread.onSpinWait();
            }
            addSeries(head, 200);
            writes.unranked(1_000); // now a write meeting the new series asks for the order as a query does
            while (order.current().order().length < written.size()) {
                assertThat(System.nanoTime()).as("the order made again for the chunk writes").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(writes.rank(0)).as("series 0 of shard 0 ranked").isNotNegative();
        }
    }

    /**
     * Runs the query and checks it returns exactly the matching series (every one written has samples at
     * 1..3 s) in the order of their served labels; returns those labels (hex).
     */
    private List<String> assertOrdered(Shard[] shards, LabelOrder order, UnaryOperator<byte[]> relabel, Matcher... matchers) {
        HeadQuery q = HeadQuery.run(shards, order, 0, 10_000, relabel, matchers);
        List<String> got = new ArrayList<>();
        while (q.next()) {
            byte[] labels = q.snapshot().labelsArray();
            got.add(hex(Arrays.copyOf(labels, q.snapshot().labelsLength())));
        }
        Predicate<byte[]> matches = labels -> {
            Map<String, String> map = new LabelsView().wrap(labels, 0, labels.length).toMap();
            for (Matcher m : matchers) {
                if (!m.matches(map.getOrDefault(m.name(), ""))) {
                    return false;
                }
            }
            return true;
        };
        List<byte[]> expected = new ArrayList<>();
        for (byte[] labels : written) {
            if (matches.test(labels)) {
                expected.add(relabel == null ? labels : relabel.apply(labels));
            }
        }
        LabelsView x = new LabelsView();
        LabelsView y = new LabelsView();
        expected.sort((a, b) -> x.wrap(a, 0, a.length).compareTo(y.wrap(b, 0, b.length)));
        assertThat(got).containsExactlyElementsOf(expected.stream().map(HeadQueryLabelOrderTest::hex).toList());
        return got;
    }

    /** Series of random labels (shared prefixes, UTF-8, label sets of different names), spread over both shards. */
    private void addSeries(Head head, int count) {
        String[] values = {"1", "10", "2", "é", "éa", "\uD83D\uDE00", "x".repeat(130)};
        Set<String> made = new LinkedHashSet<>();
        for (byte[] w : written) {
            made.add(hex(w));
        }
        int added = 0;
        while (added < count) {
            Map<String, String> labels = new TreeMap<>();
            labels.put("__name__", "m" + random.nextInt(3));
            for (String name : new String[] {"a", "a2", "b", "job", "zone"}) {
                if (random.nextInt(3) > 0) {
                    labels.put(name, values[random.nextInt(values.length)] + (name.equals("job") ? random.nextInt(40) : ""));
                }
            }
            List<String> flat = new ArrayList<>();
            labels.forEach((n, v) -> {
                flat.add(n);
                flat.add(v);
            });
            byte[] canonical = CanonicalLabels.encode(flat.toArray(String[]::new));
            if (made.add(hex(canonical))) {
                add(head, random.nextInt(2), canonical);
                added++;
            }
        }
        awaitSamples(head);
    }

    private void add(Head head, int shard, String... pairs) {
        add(head, shard, CanonicalLabels.encode(pairs));
    }

    private void add(Head head, int shard, byte[] canonical) {
        ShardBatch batch;
        while ((batch = head.shard(shard).acquireBatch()) == null) {
            Thread.onSpinWait();
        }
        batch.record(stream, written.size());
        long hash = new LabelsView().wrap(canonical, 0, canonical.length).hash();
        assertThat(batch.series(hash, canonical, 0, canonical.length)).isTrue();
        for (long t = 1_000; t <= 3_000; t += 1_000) {
            assertThat(batch.sample(t, Double.doubleToRawLongBits(t))).isTrue();
        }
        head.shard(shard).submit(batch);
        written.add(canonical);
        samplesPerShard[shard] += 3;
    }

    private void awaitSamples(Head head) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        for (int s = 0; s < 2; s++) {
            while (head.shard(s).stats().get(ShardStats.Counter.SAMPLES_APPENDED) < samplesPerShard[s]) {
                assertThat(System.nanoTime()).as("samples appended").isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
    }

    private static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
