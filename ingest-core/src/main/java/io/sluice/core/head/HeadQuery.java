package io.sluice.core.head;

import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelsView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * The result of {@link Head#query}: the matching series of all shards in label order, each read
 * as a consistent {@link SeriesSnapshot} when the cursor reaches it (so a long result does not
 * hold every series' chunks in memory at once). Not thread-safe: one per reading thread.
 */
public final class HeadQuery {
    private final Head head;
    private final long minTimeMs;
    private final long maxTimeMs;
    private final List<Entry> entries;
    private final SeriesSnapshot snapshot = new SeriesSnapshot();
    private int cursor = -1;

    private record Entry(int shard, int id, byte[] labels) {
    }

    private HeadQuery(Head head, long minTimeMs, long maxTimeMs, List<Entry> entries) {
        this.head = head;
        this.minTimeMs = minTimeMs;
        this.maxTimeMs = maxTimeMs;
        this.entries = entries;
    }

    static HeadQuery run(Head head, long minTimeMs, long maxTimeMs, Matcher... matchers) {
        List<Entry> entries = new ArrayList<>();
        SeriesSnapshot labelsOnly = new SeriesSnapshot();
        for (int s = 0; s < head.shardCount(); s++) {
            Shard shard = head.shard(s);
            RoaringBitmap ids = shard.labelIndex().select(matchers);
            for (PeekableIntIterator it = ids.getIntIterator(); it.hasNext(); ) {
                int id = it.next();
                shard.snapshot(id, minTimeMs, maxTimeMs, labelsOnly);
                if (labelsOnly.chunkCount() > 0) {
                    entries.add(new Entry(s, id, Arrays.copyOf(labelsOnly.labelsArray(), labelsOnly.labelsLength())));
                }
            }
        }
        LabelsView a = new LabelsView();
        LabelsView b = new LabelsView();
        entries.sort((x, y) -> a.wrap(x.labels, 0, x.labels.length).compareTo(b.wrap(y.labels, 0, y.labels.length)));
        return new HeadQuery(head, minTimeMs, maxTimeMs, entries);
    }

    /** Series in the result (some may turn out to have no sample exactly in range). */
    public int size() {
        return entries.size();
    }

    /** Moves to the next series and snapshots it. */
    public boolean next() {
        if (++cursor >= entries.size()) {
            return false;
        }
        Entry e = entries.get(cursor);
        head.shard(e.shard).snapshot(e.id, minTimeMs, maxTimeMs, snapshot);
        return true;
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
