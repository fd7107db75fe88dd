package io.sluice.core.head.series;

import io.sluice.core.chunk.HeapXorEncoder;
import io.sluice.core.chunk.XorIterator;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A shard's out-of-order samples: those older than their series' newest, accepted inside the
 * out-of-order window. Kept beside the series structs, in a map keyed by series id, so a series
 * that never receives a late sample costs nothing here and its in-order chunks are never touched.
 *
 * <p>Per series, an immutable {@link Late}: a sorted buffer of up to {@value #BUFFER_SAMPLES}
 * samples (two {@code long[]}), and the time-ordered XOR chunks the buffer was cut into each time it
 * filled (heap {@code byte[]}, with their first/last timestamps). Chunks may overlap each other and
 * the in-order chunks; readers merge ({@link SeriesStore#snapshot}). Every change publishes a new
 * {@code Late} (copy on write), so a reader on any thread reads one consistent value without a lock.
 *
 * <p>Memory, all on the heap: about 16 bytes per buffered sample and ~1.5-3 bytes per sample in
 * chunks, plus per series with late data one {@code Late} and its arrays (~200 bytes), plus the map
 * entry. {@link #heapBytes()} keeps the estimate ({@link #heapBytes(Late)} per series), readable
 * from any thread for the gauges. Chunks are dropped by the retention like closed chunks
 * ({@link #dropExpired}) and with their series ({@link #remove}).
 *
 * <p>Threads: the shard thread changes it; any thread reads ({@link #get}).
 */
public final class OutOfOrderStore {
    /** Samples buffered per series before they are cut into an XOR chunk. */
    public static final int BUFFER_SAMPLES = 64;

    /** A {@code ConcurrentHashMap} node (32 B), its boxed key (16 B) and its table slot (4 B, rounded up). */
    private static final long MAP_ENTRY_BYTES = 56;
    /** A {@code Late}: header and six compressed references. */
    private static final long LATE_BYTES = 40;
    private static final long[] NO_LONGS = new long[0];
    private static final byte[][] NO_CHUNKS = new byte[0][];

    private final ConcurrentHashMap<Integer, Late> bySeries = new ConcurrentHashMap<>();
    private final HeapXorEncoder encoder = new HeapXorEncoder();   // shard thread
    private final XorIterator iterator = new XorIterator();        // shard thread
    private long samples;                                           // shard thread
    private long chunkBytes;                                        // shard thread
    private volatile long heapBytes;                                // written by the shard thread, read by any

    /**
     * One series' out-of-order samples, immutable: the buffer ({@code timestampsMs}/{@code valueBits},
     * sorted, no equal timestamps) and chunks ({@code chunks[i]} holds {@code chunkSamples[i]} samples
     * from {@code chunkMinMs[i]} to {@code chunkMaxMs[i]}).
     */
    public record Late(long[] timestampsMs, long[] valueBits, byte[][] chunks, long[] chunkMinMs, long[] chunkMaxMs, int[] chunkSamples) {
        /** The oldest sample's timestamp (Long.MAX_VALUE if none). */
        public long minTimeMs() {
            long min = timestampsMs.length > 0 ? timestampsMs[0] : Long.MAX_VALUE;
            for (long m : chunkMinMs) {
                min = Math.min(min, m);
            }
            return min;
        }

        public int sampleCount() {
            int n = timestampsMs.length;
            for (int c : chunkSamples) {
                n += c;
            }
            return n;
        }

        /** Every sample, time-ordered, into {@code ts}/{@code vs} (sized by {@link #sampleCount}); returns the count. */
        public int sortedInto(long[] ts, long[] vs, XorIterator it) {
            int n = 0;
            for (int c = 0; c < chunks.length; c++) {
                it.reset(chunks[c]);
                while (it.next()) {
                    ts[n] = it.timestampMs();
                    vs[n++] = it.valueBits();
                }
            }
            System.arraycopy(timestampsMs, 0, ts, n, timestampsMs.length);
            System.arraycopy(valueBits, 0, vs, n, valueBits.length);
            n += timestampsMs.length;
            sortByTime(ts, vs, n);
            return n;
        }
    }

    /** Series {@code id}'s out-of-order samples, or null if it has none. Any thread. */
    public Late get(int id) {
        return bySeries.isEmpty() ? null : bySeries.get(id); // no boxing while no series has late data
    }

    public boolean isEmpty() {
        return bySeries.isEmpty();
    }

    /** Series with out-of-order data, in no order. Shard thread (checkpoints). */
    public int[] seriesIds() {
        return bySeries.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    /** Out-of-order samples held (buffers and chunks). Shard thread. */
    public long sampleCount() {
        return samples;
    }

    /** Bytes of out-of-order chunks held (their XOR bytes; buffers not included). Shard thread. */
    public long chunkBytes() {
        return chunkBytes;
    }

    /** Heap bytes of everything held (buffers, chunks, their arrays and map entries; an estimate). Any thread. */
    public long heapBytes() {
        return heapBytes;
    }

    /** Series with out-of-order samples. Any thread. */
    public int seriesCount() {
        return bySeries.size();
    }

    /**
     * The heap bytes of one series' out-of-order samples: its {@code Late} and arrays (16-byte array
     * headers, 8-byte alignment, compressed references) and its map entry (node and boxed id).
     */
    static long heapBytes(Late late) {
        int c = late.chunks.length;
        long bytes = MAP_ENTRY_BYTES + LATE_BYTES + array(8L * late.timestampsMs.length) + array(8L * late.valueBits.length)
                + array(4L * c) + 2 * array(8L * c) + array(4L * c);
        for (byte[] chunk : late.chunks) {
            bytes += array(chunk.length);
        }
        return bytes;
    }

    private static long array(long payloadBytes) {
        return (16 + payloadBytes + 7) & ~7L;
    }

    /** Makes {@code next} (null: none) series {@code id}'s value in place of {@code previous} (null: none). */
    private void publish(int id, Late previous, Late next) {
        long delta = (next == null ? 0 : heapBytes(next)) - (previous == null ? 0 : heapBytes(previous));
        if (next == null) {
            bySeries.remove(id);
        } else {
            bySeries.put(id, next);
        }
        heapBytes += delta; // single writer: the shard thread
    }

    /**
     * The value bits stored at {@code timestampMs} for series {@code id}, in {@code found[0]}; returns
     * false if it has no out-of-order sample there. Shard thread.
     */
    boolean find(int id, long timestampMs, long[] found) {
        Late late = bySeries.get(id);
        if (late == null) {
            return false;
        }
        int at = Arrays.binarySearch(late.timestampsMs, timestampMs);
        if (at >= 0) {
            found[0] = late.valueBits[at];
            return true;
        }
        for (int c = 0; c < late.chunks.length; c++) {
            if (timestampMs < late.chunkMinMs[c] || timestampMs > late.chunkMaxMs[c]) {
                continue;
            }
            iterator.reset(late.chunks[c]);
            while (iterator.next()) {
                long t = iterator.timestampMs();
                if (t == timestampMs) {
                    found[0] = iterator.valueBits();
                    return true;
                }
                if (t > timestampMs) {
                    break;
                }
            }
        }
        return false;
    }

    /** Adds a sample the caller checked is not stored yet. Shard thread. */
    void add(int id, long timestampMs, long valueBits) {
        Late late = bySeries.get(id);
        long[] ts = late == null ? NO_LONGS : late.timestampsMs;
        long[] vs = late == null ? NO_LONGS : late.valueBits;
        int at = -Arrays.binarySearch(ts, timestampMs) - 1;
        long[] nts = new long[ts.length + 1];
        long[] nvs = new long[ts.length + 1];
        System.arraycopy(ts, 0, nts, 0, at);
        System.arraycopy(vs, 0, nvs, 0, at);
        nts[at] = timestampMs;
        nvs[at] = valueBits;
        System.arraycopy(ts, at, nts, at + 1, ts.length - at);
        System.arraycopy(vs, at, nvs, at + 1, ts.length - at);
        samples++;
        byte[][] chunks = late == null ? NO_CHUNKS : late.chunks;
        long[] mins = late == null ? NO_LONGS : late.chunkMinMs;
        long[] maxs = late == null ? NO_LONGS : late.chunkMaxMs;
        int[] counts = late == null ? new int[0] : late.chunkSamples;
        if (nts.length >= BUFFER_SAMPLES) { // cut the buffer into a chunk
            byte[] chunk = encoder.encode(nts, nvs, 0, nts.length).copy();
            chunkBytes += chunk.length;
            int c = chunks.length;
            chunks = Arrays.copyOf(chunks, c + 1);
            chunks[c] = chunk;
            mins = Arrays.copyOf(mins, c + 1);
            mins[c] = nts[0];
            maxs = Arrays.copyOf(maxs, c + 1);
            maxs[c] = nts[nts.length - 1];
            counts = Arrays.copyOf(counts, c + 1);
            counts[c] = nts.length;
            nts = NO_LONGS;
            nvs = NO_LONGS;
        }
        publish(id, late, new Late(nts, nvs, chunks, mins, maxs, counts));
    }

    /**
     * Restore: makes {@code ts}/{@code vs}[0..n) (time-ordered) series {@code id}'s out-of-order
     * samples, cut into chunks of {@value #BUFFER_SAMPLES} and a buffer. Shard thread.
     */
    public void restore(int id, long[] ts, long[] vs, int n) {
        remove(id);
        int chunkCount = n / BUFFER_SAMPLES;
        byte[][] chunks = new byte[chunkCount][];
        long[] mins = new long[chunkCount];
        long[] maxs = new long[chunkCount];
        int[] counts = new int[chunkCount];
        for (int c = 0; c < chunkCount; c++) {
            int from = c * BUFFER_SAMPLES;
            chunks[c] = encoder.encode(ts, vs, from, from + BUFFER_SAMPLES).copy();
            chunkBytes += chunks[c].length;
            mins[c] = ts[from];
            maxs[c] = ts[from + BUFFER_SAMPLES - 1];
            counts[c] = BUFFER_SAMPLES;
        }
        int rest = chunkCount * BUFFER_SAMPLES;
        samples += n;
        if (n > 0) {
            publish(id, null, new Late(Arrays.copyOfRange(ts, rest, n), Arrays.copyOfRange(vs, rest, n), chunks, mins, maxs, counts));
        }
    }

    /** Drops series {@code id}'s out-of-order samples (eviction). Shard thread. */
    public void remove(int id) {
        Late late = bySeries.isEmpty() ? null : bySeries.get(id);
        if (late != null) {
            publish(id, late, null);
            samples -= late.sampleCount();
            for (byte[] c : late.chunks) {
                chunkBytes -= c.length;
            }
        }
    }

    /**
     * Retention: drops series {@code id}'s out-of-order chunks whose last sample is before
     * {@code cutoffMs} and buffered samples before it. Returns the chunks dropped. Shard thread.
     */
    public int dropExpired(int id, long cutoffMs) {
        Late late = get(id);
        if (late == null) {
            return 0;
        }
        int keepFrom = 0;
        while (keepFrom < late.timestampsMs.length && late.timestampsMs[keepFrom] < cutoffMs) {
            keepFrom++;
        }
        int kept = 0;
        for (long max : late.chunkMaxMs) {
            if (max >= cutoffMs) {
                kept++;
            }
        }
        int dropped = late.chunks.length - kept;
        if (keepFrom == 0 && dropped == 0) {
            return 0;
        }
        byte[][] chunks = new byte[kept][];
        long[] mins = new long[kept];
        long[] maxs = new long[kept];
        int[] counts = new int[kept];
        int k = 0;
        for (int c = 0; c < late.chunks.length; c++) {
            if (late.chunkMaxMs[c] >= cutoffMs) {
                chunks[k] = late.chunks[c];
                mins[k] = late.chunkMinMs[c];
                maxs[k] = late.chunkMaxMs[c];
                counts[k++] = late.chunkSamples[c];
            } else {
                chunkBytes -= late.chunks[c].length;
                samples -= late.chunkSamples[c];
            }
        }
        samples -= keepFrom;
        long[] ts = Arrays.copyOfRange(late.timestampsMs, keepFrom, late.timestampsMs.length);
        long[] vs = Arrays.copyOfRange(late.valueBits, keepFrom, late.valueBits.length);
        publish(id, late, ts.length == 0 && kept == 0 ? null : new Late(ts, vs, chunks, mins, maxs, counts));
        return dropped;
    }

    /** Sorts {@code ts[0..n)} by time with {@code vs} alongside (a merge sort: the parts are sorted runs). */
    static void sortByTime(long[] ts, long[] vs, int n) {
        if (n < 2) {
            return;
        }
        long[] tt = new long[n];
        long[] tv = new long[n];
        for (int width = 1; width < n; width *= 2) {
            for (int lo = 0; lo < n; lo += 2 * width) {
                int mid = Math.min(lo + width, n);
                int hi = Math.min(lo + 2 * width, n);
                int i = lo;
                int j = mid;
                int k = lo;
                while (i < mid && j < hi) {
                    if (ts[j] < ts[i]) {
                        tt[k] = ts[j];
                        tv[k++] = vs[j++];
                    } else {
                        tt[k] = ts[i];
                        tv[k++] = vs[i++];
                    }
                }
                while (i < mid) {
                    tt[k] = ts[i];
                    tv[k++] = vs[i++];
                }
                while (j < hi) {
                    tt[k] = ts[j];
                    tv[k++] = vs[j++];
                }
            }
            System.arraycopy(tt, 0, ts, 0, n);
            System.arraycopy(tv, 0, vs, 0, n);
        }
    }
}
