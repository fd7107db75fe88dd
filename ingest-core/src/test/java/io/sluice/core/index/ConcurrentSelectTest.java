package io.sluice.core.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Readers select while the shard thread creates series (interning symbols, then indexing): no
 * reader throws, every id returned was added and matches, and every matching series added before
 * the select began is returned.
 */
class ConcurrentSelectTest {
    private static final long SEED = 0xC0C0L;
    private static final int SERIES = 100_000;
    private static final int SAMPLES = 200;

    @Test
    void readersSelectCorrectlyWhileTheWriterAddsSeries() throws InterruptedException {
        IndexFixture index = new IndexFixture();
        AtomicInteger added = new AtomicInteger(); // ids 0..added-1 are fully indexed
        AtomicInteger adding = new AtomicInteger(); // no id >= adding has been touched yet
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong selects = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            long seed = SEED + r;
            readers.add(Thread.ofPlatform().name("select-" + r).start(() -> {
                try {
                    SplittableRandom random = new SplittableRandom(seed);
                    boolean last = false;
                    while (!last) {
                        last = done.get();
                        check(index, added, adding, randomMatchers(random), random, seed);
                        selects.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        for (int id = 0; id < SERIES && failure.get() == null; id++) {
            adding.set(id + 1);
            assertThat(index.add(labelsOf(id))).isEqualTo(id);
            added.set(id + 1);
        }
        done.set(true);
        for (Thread reader : readers) {
            reader.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(selects.get()).as("selects ran during the writes").isGreaterThan(10);
        assertThat(index.postings.seriesCount()).isEqualTo(SERIES);
    }

    private static void check(IndexFixture index, AtomicInteger added, AtomicInteger adding, Matcher[] matchers,
            SplittableRandom random, long seed) {
        int before = added.get();
        RoaringBitmap selected = index.selector.select(matchers);
        int after = adding.get();
        String what = "seed " + seed + " " + List.of(matchers);
        if (!selected.isEmpty() && selected.last() >= after) {
            throw new AssertionError(what + ": id " + selected.last() + " not added yet (" + after + ")");
        }
        int cardinality = selected.getCardinality();
        for (int k = 0; k < Math.min(cardinality, SAMPLES); k++) { // a sample keeps selects frequent
            int id = selected.select(random.nextInt(cardinality));
            if (!matchesAll(id, matchers)) {
                throw new AssertionError(what + ": id " + id + " " + labelsOf(id) + " does not match");
            }
        }
        for (int k = 0; k < Math.min(before, SAMPLES); k++) {
            int id = random.nextInt(before);
            if (!selected.contains(id) && matchesAll(id, matchers)) {
                throw new AssertionError(what + ": id " + id + " " + labelsOf(id) + " missing");
            }
        }
    }

    private static boolean matchesAll(int id, Matcher[] matchers) {
        Map<String, String> labels = labelsOf(id);
        for (Matcher m : matchers) {
            if (!m.matches(labels.getOrDefault(m.name(), ""))) {
                return false;
            }
        }
        return true;
    }

    /** Labels that follow from the id, so readers know every series without sharing state. */
    static Map<String, String> labelsOf(int id) {
        return id % 3 == 0
                ? Map.of("__name__", "m" + id % 10, "instance", "i" + id % 100, "zone", "z" + id % 7, "serial", "s" + id)
                : Map.of("__name__", "m" + id % 10, "instance", "i" + id % 100);
    }

    private static Matcher[] randomMatchers(SplittableRandom random) {
        Matcher[] choices = {
            Matcher.eq("__name__", "m" + random.nextInt(10)),
            Matcher.neq("instance", "i" + random.nextInt(100)),
            Matcher.re("instance", "i" + random.nextInt(10) + ".*"),
            Matcher.nre("zone", "z[0-3]"),
            Matcher.eq("zone", ""),
            Matcher.re("zone", "z1|z2"),
            Matcher.neq("zone", "z" + random.nextInt(7)),
            Matcher.eq("serial", "s" + random.nextInt(SERIES)),
            Matcher.neq("serial", "s" + random.nextInt(SERIES)),
        };
        int n = 1 + random.nextInt(2);
        Matcher[] picked = new Matcher[n];
        for (int i = 0; i < n; i++) {
            picked[i] = choices[random.nextInt(choices.length)];
        }
        return picked;
    }
}
