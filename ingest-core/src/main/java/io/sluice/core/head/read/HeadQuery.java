package io.sluice.core.head.read;

import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.head.shard.Shard;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelsView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * The result of a query over a head's shards ({@code Head.query}): the matching series of all
 * shards in label order (put in order with the head's {@link LabelOrder}), each read as a consistent {@link SeriesSnapshot} when the cursor reaches
 * it (so a long result does not hold every series' chunks in memory at once). Not thread-safe: one
 * per reading thread.
 */
public final class HeadQuery {
    private final Shard[] shards;
    private final long minTimeMs;
    private final long maxTimeMs;
    private final List<Entry> entries;
    private final SeriesSnapshot snapshot = new SeriesSnapshot();
    private int cursor = -1;

    /** A series of the result: its shard, id and, when they were needed for a sort, its (served) labels. */
    record Entry(int shard, int id, byte[] labels) {
        static final Comparator<Entry> ORDER = (x, y) -> compareCanonical(x.labels, y.labels);
    }

    private HeadQuery(Shard[] shards, long minTimeMs, long maxTimeMs, List<Entry> entries) {
        this.shards = shards;
        this.minTimeMs = minTimeMs;
        this.maxTimeMs = maxTimeMs;
        this.entries = entries;
    }

    /**
     * Selects in every shard and keeps the series whose first..last timestamps meet the range, read
     * from the series struct (no chunk is copied here: each series is snapshotted once, in
     * {@link #next()}), and puts them in label order: the series {@code order} covers by sorting their
     * ranks, the others by their labels, merged in. Labels are copied here only when a sort by labels
     * needs them (series the order does not cover yet, or {@code relabel}); else {@link #next()} copies
     * them into the snapshot's own buffer.
     *
     * @param relabel null, or what to make of each series' canonical labels before the sort: the
     *     series are then sorted by, and read with, the labels it returns (canonical encoding). The
     *     order by own labels is the usual order of the served ones, so that sort meets one sorted run
     *     (TimSort: n - 1 comparisons) unless the relabelling reorders some series
     */
    public static HeadQuery run(Shard[] shards, LabelOrder order, long minTimeMs, long maxTimeMs,
            UnaryOperator<byte[]> relabel, Matcher... matchers) {
        LabelOrder.Snapshot known = order.forQuery();
        long[] keys = new long[64]; // rank << 32 | the series' index among the ranked ones
        int ranked = 0;
        // the ranked series' (relabelled) labels, copied in id order (memory order), for the sort by them
        List<byte[]> rankedLabels = relabel == null ? null : new ArrayList<>();
        List<Entry> uncovered = new ArrayList<>();
        for (int s = 0; s < shards.length; s++) {
            Shard shard = shards[s];
            RoaringBitmap ids = shard.labelIndex().select(matchers);
            for (PeekableIntIterator it = ids.getIntIterator(); it.hasNext(); ) {
                int id = it.next();
                if (shard.mayOverlap(id, minTimeMs, maxTimeMs)) {
                    int rank = known.rank(s, id);
                    if (rank >= 0) {
                        if (ranked == keys.length) {
                            keys = Arrays.copyOf(keys, ranked * 2);
                        }
                        keys[ranked] = (long) rank << 32 | ranked;
                        ranked++;
                        if (rankedLabels != null) {
                            rankedLabels.add(relabel.apply(shard.labelsCopy(id)));
                        }
                    } else {
                        byte[] labels = shard.labelsCopy(id);
                        uncovered.add(new Entry(s, id, relabel == null ? labels : relabel.apply(labels)));
                    }
                }
            }
        }
        Arrays.sort(keys, 0, ranked);
        List<Entry> entries = new ArrayList<>(ranked + uncovered.size());
        for (int i = 0; i < ranked; i++) {
            int rank = (int) (keys[i] >>> 32);
            int s = known.shard(rank);
            int id = known.id(rank);
            byte[] labels = rankedLabels != null ? rankedLabels.get((int) keys[i])
                    : uncovered.isEmpty() ? null : shards[s].labelsCopy(id);
            entries.add(new Entry(s, id, labels));
        }
        entries.addAll(uncovered);
        if (relabel != null || !uncovered.isEmpty()) {
            entries.sort(Entry.ORDER); // TimSort: the ranked series are one sorted run already
        }
        order.uncoveredMet(known, uncovered.size());
        return new HeadQuery(shards, minTimeMs, maxTimeMs, entries);
    }

    /**
     * {@link LabelsView#compareTo}'s order (Prometheus' {@code labels.Compare}: label by label, name then
     * value in unsigned bytes, a prefix first) on two whole canonical label sets.
     */
    public static int compareCanonical(byte[] a, byte[] b) {
        return compareCanonical(a, a.length, b, b.length);
    }

    /**
     * {@link #compareCanonical(byte[], byte[])} on the label sets in the first {@code aLength} bytes of
     * {@code a} and the first {@code bLength} of {@code b} (reused buffers). One vectorised
     * {@link Arrays#mismatch} finds the first differing byte; the bytes before it are the same in both, so
     * both sets' fields (length varint, then bytes; names and values alternate) begin at the same offsets
     * up to it, and walking {@code a}'s fields finds the field it falls in: inside equal-length contents the
     * differing byte decides, else the two fields are compared whole. The bytes are the head's own, so well
     * formed.
     */
    public static int compareCanonical(byte[] a, int aLength, byte[] b, int bLength) {
        int m = Arrays.mismatch(a, 0, aLength, b, 0, bLength);
        if (m < 0) {
            return 0;
        }
        int i = 0;
        while (true) {
            int start = i;
            if (start == m) {
                return compareFieldAt(a, aLength, b, bLength, start);
            }
            int len = 0;
            for (int shift = 0; ; shift += 7) {
                int x = a[i++] & 0xFF;
                len |= (x & 0x7F) << shift;
                if (x < 0x80) {
                    break;
                }
            }
            if (m < i) { // inside the length: the fields' lengths differ
                return compareFieldAt(a, aLength, b, bLength, start);
            }
            if (m < i + len) { // inside contents of the same length
                return Integer.compare(a[m] & 0xFF, b[m] & 0xFF);
            }
            i += len;
        }
    }

    /** The field (length varint, bytes) at {@code at} of {@code a} against {@code b}'s; a set that ends there is less. */
    private static int compareFieldAt(byte[] a, int aLength, byte[] b, int bLength, int at) {
        if (at == aLength || at == bLength) {
            return Boolean.compare(at < aLength, at < bLength);
        }
        int i = at;
        int la = 0;
        for (int shift = 0; ; shift += 7) {
            int x = a[i++] & 0xFF;
            la |= (x & 0x7F) << shift;
            if (x < 0x80) {
                break;
            }
        }
        int j = at;
        int lb = 0;
        for (int shift = 0; ; shift += 7) {
            int x = b[j++] & 0xFF;
            lb |= (x & 0x7F) << shift;
            if (x < 0x80) {
                break;
            }
        }
        return Arrays.compareUnsigned(a, i, i + la, b, j, j + lb);
    }

    /**
     * Series in the result, an upper bound: {@link #next()} skips those that turn out to have no chunk
     * in range (a gap in a series that started before and ended after it), and some series may have no
     * sample exactly in range.
     */
    public int size() {
        return entries.size();
    }

    /** Moves to the next series with a chunk overlapping the range and snapshots it (one copy per series). */
    public boolean next() {
        while (++cursor < entries.size()) {
            Entry e = entries.get(cursor);
            shards[e.shard].snapshot(e.id, minTimeMs, maxTimeMs, snapshot, e.labels); // null: copied into the snapshot
            if (!snapshot.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * For a reader of each series' latest sample alone (an instant selection): see
     * {@link SeriesSnapshot#readNewestOnly}. Before the first {@link #next()}; returns this query.
     */
    public HeadQuery readNewestOnly() {
        snapshot.readNewestOnly();
        return this;
    }

    /** The current series' labels. */
    public LabelsView labels() {
        return snapshot.labels();
    }

    /** The current series' samples in range, in time order. */
    public SeriesSnapshot.Samples samples() {
        return snapshot.samples();
    }

    /** The current series' snapshot (labels and chunk bytes), e.g. for remote-read's chunk responses. */
    public SeriesSnapshot snapshot() {
        return snapshot;
    }
}
