package io.sluice.server.query;

import io.sluice.core.head.Head;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelsView;
import io.sluice.promql.labels.LabelMatcher;
import io.sluice.promql.labels.Labels;
import io.sluice.promql.storage.Queryable;
import io.sluice.promql.storage.SampleIterator;
import io.sluice.promql.storage.SeriesSet;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The head as the PromQL engine's storage: a selection runs {@link Head#query} (every shard, label
 * order), and each series is read from its consistent snapshot as the engine reaches it, so a query never
 * holds more than one series' chunk copy per selector. Labels become the engine's {@link Labels} once per
 * series; samples are decoded from the XOR chunks without an object per sample. Thread-safe: each
 * {@link #select} has its own cursor.
 */
final class HeadQueryable implements Queryable {
    private final Head head;

    HeadQueryable(Head head) {
        this.head = head;
    }

    @Override
    public SeriesSet select(long minTimeMs, long maxTimeMs, List<LabelMatcher> matchers) {
        return new HeadSeriesSet(head.query(minTimeMs, maxTimeMs, toCore(matchers)));
    }

    /** Each series' newest sample alone where the head can tell it (no chunk copied): see {@link HeadQuery#readNewestOnly}. */
    @Override
    public SeriesSet selectLatest(long minTimeMs, long maxTimeMs, List<LabelMatcher> matchers) {
        return new HeadSeriesSet(head.query(minTimeMs, maxTimeMs, toCore(matchers)).readNewestOnly());
    }

    private static Matcher[] toCore(List<LabelMatcher> matchers) {
        Matcher[] m = new Matcher[matchers.size()];
        for (int i = 0; i < m.length; i++) {
            m[i] = toCore(matchers.get(i));
        }
        return m;
    }

    static Matcher toCore(LabelMatcher m) {
        return switch (m.type()) {
            case EQUAL -> Matcher.eq(m.name(), m.value());
            case NOT_EQUAL -> Matcher.neq(m.name(), m.value());
            case REGEX -> Matcher.re(m.name(), m.value());
            case NOT_REGEX -> Matcher.nre(m.name(), m.value());
        };
    }

    private static final class HeadSeriesSet implements SeriesSet {
        private final HeadQuery query;
        private String[] recent = new String[16];
        private byte[][] recentBytes = new byte[16][];
        private List<String> wantedFor;
        private byte[][] wanted;

        HeadSeriesSet(HeadQuery query) {
            this.query = query;
        }

        @Override
        public boolean next() {
            return query.next();
        }

        @Override
        public Labels labels() {
            // Canonical labels are sorted by name: no builder, no sort.
            LabelsView view = query.labels();
            byte[] bytes = query.snapshot().labelsArray();
            String[] pairs = new String[view.count() * 2];
            for (int i = 0; view.next(); i += 2) {
                pairs[i] = string(i, bytes, view.nameOffset(), view.nameLength());
                pairs[i + 1] = string(i + 1, bytes, view.valueOffset(), view.valueLength());
            }
            return Labels.ofSorted(pairs);
        }

        @Override
        public Labels labels(List<String> names) {
            if (names.isEmpty()) {
                return Labels.EMPTY;
            }
            if (names != wantedFor) {
                wantedFor = names;
                wanted = new byte[names.size()][];
                for (int i = 0; i < wanted.length; i++) {
                    wanted[i] = names.get(i).getBytes(StandardCharsets.UTF_8);
                }
            }
            LabelsView view = query.labels();
            byte[] bytes = query.snapshot().labelsArray();
            String[] pairs = new String[names.size() * 2];
            int k = 0;
            while (view.next() && k < pairs.length) {
                int off = view.nameOffset();
                int len = view.nameLength();
                for (int i = 0; i < wanted.length; i++) {
                    byte[] w = wanted[i];
                    if (w.length == len && Arrays.equals(w, 0, len, bytes, off, off + len)) {
                        pairs[k] = names.get(i);
                        pairs[k + 1] = string(k + 1, bytes, view.valueOffset(), view.valueLength());
                        k += 2;
                        break;
                    }
                }
            }
            return Labels.ofSorted(k == pairs.length ? pairs : Arrays.copyOf(pairs, k));
        }

        /**
         * The String of {@code bytes[off, off + len)}, the previous series' String at the same position
         * when its bytes are the same: names and common values (the metric name, a job) are decoded once
         * per selection, not once per series.
         */
        private String string(int position, byte[] bytes, int off, int len) {
            if (position >= recent.length) {
                recent = Arrays.copyOf(recent, Math.max(position + 1, recent.length * 2));
                recentBytes = Arrays.copyOf(recentBytes, recent.length);
            }
            byte[] known = recentBytes[position];
            if (known != null && Arrays.equals(known, 0, known.length, bytes, off, off + len)) {
                return recent[position];
            }
            String s = new String(bytes, off, len, StandardCharsets.UTF_8);
            recent[position] = s;
            recentBytes[position] = Arrays.copyOfRange(bytes, off, off + len);
            return s;
        }

        @Override
        public SampleIterator iterator(SampleIterator reuse) {
            SnapshotIterator it = reuse instanceof SnapshotIterator s ? s : new SnapshotIterator();
            it.reset(query.samples());
            return it;
        }
    }

    /** A snapshot's samples with {@code seek}; valid until the series set moves on. */
    private static final class SnapshotIterator implements SampleIterator {
        private SeriesSnapshot.Samples samples;
        private boolean started;
        private boolean atEnd;

        void reset(SeriesSnapshot.Samples s) {
            this.samples = s;
            this.started = false;
            this.atEnd = false;
        }

        @Override
        public boolean next() {
            started = true;
            if (atEnd || !samples.next()) {
                atEnd = true;
                return false;
            }
            return true;
        }

        @Override
        public boolean seek(long timeMs) {
            if (atEnd) {
                return false;
            }
            if (started && samples.timestampMs() >= timeMs) {
                return true;
            }
            started = true;
            if (!samples.seek(timeMs)) {
                atEnd = true;
                return false;
            }
            return true;
        }

        @Override
        public boolean latest(long fromMs, long toMs) {
            started = true;
            atEnd = true;
            return samples.latest(fromMs, toMs);
        }

        @Override
        public long timestamp() {
            return samples.timestampMs();
        }

        @Override
        public double value() {
            return samples.value();
        }
    }
}
