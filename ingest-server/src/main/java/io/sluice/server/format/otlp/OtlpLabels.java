package io.sluice.server.format.otlp;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.MetricSink;
import java.util.Arrays;

/**
 * A set of labels built from OTLP attributes: Prometheus names, values, and the original keys, which
 * order the values of keys that collide. Entries are references into the arrays that hold their bytes
 * (the input, or an arena that is only appended to until reset, so a reference taken before the arena
 * grew still reads the right bytes).
 *
 * <p>{@link #mergeCollisions} applies the specification's rule: keys that map to the same label name
 * become one label whose value joins theirs with ';', in the lexicographic order of the original keys.
 * {@link #emit} hands the labels to a sink, leaving out those a derived label overrides
 * ({@code __name__}, {@code job}/{@code instance} from the resource, {@code le}, {@code quantile}), as
 * Prometheus' OTLP receiver does.
 *
 * <p>Not thread-safe; owned by one decoder.
 */
final class OtlpLabels {
    static final byte[] METRIC_NAME = PrometheusNames.ascii("__name__");
    static final byte[] JOB = PrometheusNames.ascii("job");
    static final byte[] INSTANCE = PrometheusNames.ascii("instance");
    static final byte[] LE = PrometheusNames.ascii("le");
    static final byte[] QUANTILE = PrometheusNames.ascii("quantile");
    /**
     * Sets larger than this are not checked for collisions (the check is quadratic; a head keeps at most
     * 128 labels a series by default, so it refuses such a series whatever its names).
     */
    static final int MAX_MERGED_LABELS = 1024;

    private byte[][] nameBuf = new byte[16][];
    private int[] nameOff = new int[16];
    private int[] nameLen = new int[16];
    private byte[][] valueBuf = new byte[16][];
    private int[] valueOff = new int[16];
    private int[] valueLen = new int[16];
    private byte[][] keyBuf = new byte[16][];
    private int[] keyOff = new int[16];
    private int[] keyLen = new int[16];
    /** A cheap digest of each name (length and end bytes), so that most names differ without a byte comparison. */
    private int[] nameDigest = new int[16];
    private boolean[] dropped = new boolean[16];
    private int[] group = new int[16];
    private int count;

    void clear() {
        count = 0;
    }

    int count() {
        return count;
    }

    /** Labels that are not dropped. */
    int liveCount() {
        int live = 0;
        for (int i = 0; i < count; i++) {
            live += dropped[i] ? 0 : 1;
        }
        return live;
    }

    /** Adds a label; {@code key} is the original attribute key, which orders colliding values. */
    void add(byte[] name, int nOff, int nLen, byte[] value, int vOff, int vLen, byte[] key, int kOff, int kLen) {
        if (count == nameBuf.length) {
            grow();
        }
        nameBuf[count] = name;
        nameOff[count] = nOff;
        nameLen[count] = nLen;
        nameDigest[count] = nLen == 0 ? 0 : nLen << 16 ^ name[nOff] << 8 ^ name[nOff + nLen - 1] & 0xFF;
        valueBuf[count] = value;
        valueOff[count] = vOff;
        valueLen[count] = vLen;
        keyBuf[count] = key;
        keyOff[count] = kOff;
        keyLen[count] = kLen;
        dropped[count] = false;
        count++;
    }

    /** Adds every label of {@code other} (already merged) to this set. */
    void addAll(OtlpLabels other) {
        for (int i = 0; i < other.count; i++) {
            if (!other.dropped[i]) {
                add(other.nameBuf[i], other.nameOff[i], other.nameLen[i], other.valueBuf[i], other.valueOff[i],
                        other.valueLen[i], other.keyBuf[i], other.keyOff[i], other.keyLen[i]);
            }
        }
    }

    /** Marks labels named {@code name} as dropped (a value that must not be stored twice). */
    void drop(byte[] name) {
        for (int i = 0; i < count; i++) {
            if (nameEquals(i, name)) {
                dropped[i] = true;
            }
        }
    }

    /**
     * Joins the values of labels with equal names, ordered by original key, into one label whose value is
     * written to {@code arena}. Quadratic in the labels, which are few; no work when nothing collides; none
     * for sets beyond {@value #MAX_MERGED_LABELS} labels.
     */
    void mergeCollisions(ByteWriter arena) {
        if (count > MAX_MERGED_LABELS) {
            return; // quadratic: a set this large is refused by the head's label limit anyway
        }
        for (int i = 1; i < count; i++) {
            if (dropped[i]) {
                continue;
            }
            for (int j = 0; j < i; j++) {
                if (!dropped[j] && sameName(i, j)) {
                    merge(j, arena);
                    break;
                }
            }
        }
    }

    /** Merges every label named like {@code first} (the earliest of them) into {@code first}. */
    private void merge(int first, ByteWriter arena) {
        int members = 0;
        for (int i = first; i < count; i++) {
            if (!dropped[i] && sameName(i, first)) {
                group[members++] = i;
            }
        }
        for (int a = 1; a < members; a++) { // insertion sort by original key; groups are tiny
            int moving = group[a];
            int b = a - 1;
            while (b >= 0 && compareKeys(group[b], moving) > 0) {
                group[b + 1] = group[b];
                b--;
            }
            group[b + 1] = moving;
        }
        int start = arena.length();
        for (int m = 0; m < members; m++) {
            int i = group[m];
            if (m > 0) {
                arena.writeByte(';');
            }
            arena.writeBytes(valueBuf[i], valueOff[i], valueLen[i]);
        }
        for (int m = 0; m < members; m++) {
            dropped[group[m]] = true;
        }
        dropped[first] = false;
        valueBuf[first] = arena.buffer();
        valueOff[first] = start;
        valueLen[first] = arena.length() - start;
    }

    /**
     * Hands the labels not dropped to {@code sink}, except those named {@code override1} or
     * {@code override2} (either may be null): the caller emits those itself.
     */
    void emit(MetricSink sink, byte[] override1, byte[] override2) {
        for (int i = 0; i < count; i++) {
            if (dropped[i] || (override1 != null && nameEquals(i, override1)) || (override2 != null && nameEquals(i, override2))) {
                continue;
            }
            sink.label(nameBuf[i], nameOff[i], nameLen[i], valueBuf[i], valueOff[i], valueLen[i]);
        }
    }

    private boolean nameEquals(int i, byte[] name) {
        return Arrays.equals(nameBuf[i], nameOff[i], nameOff[i] + nameLen[i], name, 0, name.length);
    }

    private boolean sameName(int i, int j) {
        return nameDigest[i] == nameDigest[j]
                && Arrays.equals(nameBuf[i], nameOff[i], nameOff[i] + nameLen[i], nameBuf[j], nameOff[j], nameOff[j] + nameLen[j]);
    }

    private int compareKeys(int i, int j) {
        return Arrays.compareUnsigned(keyBuf[i], keyOff[i], keyOff[i] + keyLen[i], keyBuf[j], keyOff[j], keyOff[j] + keyLen[j]);
    }

    private void grow() {
        int capacity = 2 * nameBuf.length;
        nameBuf = Arrays.copyOf(nameBuf, capacity);
        nameOff = Arrays.copyOf(nameOff, capacity);
        nameLen = Arrays.copyOf(nameLen, capacity);
        nameDigest = Arrays.copyOf(nameDigest, capacity);
        valueBuf = Arrays.copyOf(valueBuf, capacity);
        valueOff = Arrays.copyOf(valueOff, capacity);
        valueLen = Arrays.copyOf(valueLen, capacity);
        keyBuf = Arrays.copyOf(keyBuf, capacity);
        keyOff = Arrays.copyOf(keyOff, capacity);
        keyLen = Arrays.copyOf(keyLen, capacity);
        dropped = Arrays.copyOf(dropped, capacity);
        group = Arrays.copyOf(group, capacity);
    }
}
