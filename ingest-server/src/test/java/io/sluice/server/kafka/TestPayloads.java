package io.sluice.server.kafka;

import io.sluice.core.labels.LabelsBuilder;
import io.sluice.core.labels.LabelsView;
import io.sluice.server.format.PayloadFormat;
import io.sluice.tools.loadgen.NodeExporterModel;
import io.sluice.tools.loadgen.PayloadWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded record values of node-exporter series with awkward sample values (NaN payloads, the stale
 * marker, -0.0, infinities), and the list of samples they carry, so a test can compare everything
 * stored with everything produced: labels, timestamps and value bits.
 *
 * <p>Series {@code s} belongs to partition {@code s % partitions}: a series' samples then arrive in
 * time order, as they would from a producer keyed by series.
 */
final class TestPayloads {
    static final long STALE_MARKER = 0x7ff0000000000002L;
    private static final long START_MS = 1_763_800_000_000L;

    private final int series;
    private final int partitions;
    private final int firstSeries;
    private final NodeExporterModel model;
    private final SplittableRandom random;
    private final long[] nextTimestampMs;
    private final String[] labelText;
    private final byte[][] canonical;
    private final LabelsBuilder builder = NodeExporterModel.newLabelsBuilder();
    private final PayloadWriter writer;
    private final List<String> produced = new ArrayList<>();

    TestPayloads(PayloadFormat format, int series, int partitions, long seed) {
        this(format, 0, series, partitions, seed);
    }

    /** Payloads of the model's series {@code [firstSeries, firstSeries + series)}, disjoint from other instances'. */
    TestPayloads(PayloadFormat format, int firstSeries, int series, int partitions, long seed) {
        this.series = series;
        this.partitions = partitions;
        this.firstSeries = firstSeries;
        this.model = new NodeExporterModel(firstSeries + series, seed, START_MS, 15_000);
        this.writer = new PayloadWriter(format, model, firstSeries + series, true);
        this.random = new SplittableRandom(seed);
        this.nextTimestampMs = new long[series];
        this.labelText = new String[series];
        this.canonical = new byte[series][];
        for (int s = 0; s < series; s++) {
            canonical[s] = model.canonicalLabels(firstSeries + s, builder);
            labelText[s] = new LabelsView().wrap(canonical[s], 0, canonical[s].length).toString();
            nextTimestampMs[s] = START_MS + random.nextInt(1000);
        }
    }

    /** A record of up to {@code seriesCount} distinct series of {@code partition}, {@code samples} samples each. */
    byte[] record(int partition, int seriesCount, int samples) {
        int[] chosen = chooseSeries(partition, seriesCount);
        return encode(chosen, samples);
    }

    /**
     * A record of {@code seriesCount} distinct series chosen from ALL series, {@code samples} samples
     * each: what a producer that does not key by series writes, whatever partition it goes to. Read
     * back over several partitions, a series' samples then arrive out of order.
     */
    byte[] unkeyedRecord(int seriesCount, int samples) {
        int n = Math.min(seriesCount, series);
        int first = random.nextInt(series);
        int[] chosen = new int[n];
        for (int i = 0; i < n; i++) {
            chosen[i] = (first + i) % series;
        }
        return encode(chosen, samples);
    }

    /** One record of {@code samples} new samples for each of the {@code chosen} series, each remembered as produced. */
    private byte[] encode(int[] chosen, int samples) {
        writer.begin(nextTimestampMs[chosen[0]]);
        for (int s : chosen) {
            writer.beginSeries(firstSeries + s);
            for (int i = 0; i < samples; i++) {
                long t = nextTimestampMs[s];
                nextTimestampMs[s] += 1 + random.nextInt(30_000);
                long bits = valueBits();
                writer.sample(t, Double.longBitsToDouble(bits));
                produced.add(entry(labelText[s], t, bits));
            }
            writer.endSeries();
        }
        int length = writer.finish();
        return Arrays.copyOf(writer.bytes(), length);
    }

    private int[] chooseSeries(int partition, int count) {
        int available = (series - partition + partitions - 1) / partitions;
        int n = Math.min(count, available);
        int first = random.nextInt(available);
        int[] chosen = new int[n];
        for (int i = 0; i < n; i++) {
            chosen[i] = partition + ((first + i) % available) * partitions;
        }
        return chosen;
    }

    private long valueBits() {
        return switch (random.nextInt(20)) {
            case 0 -> 0x7ff8000000000000L | (random.nextLong() & 0x0007ffffffffffffL) | 1; // a NaN with a payload
            case 1 -> STALE_MARKER;
            case 2 -> Double.doubleToRawLongBits(-0.0);
            case 3 -> Double.doubleToRawLongBits(random.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY);
            default -> Double.doubleToRawLongBits(Math.round(random.nextDouble(0, 1e6) * 100) / 100.0);
        };
    }

    /**
     * A well-formed record of {@code partition}'s series whose samples are NOT counted as produced:
     * material for a test to break into a malformed record.
     */
    byte[] templateFor(int partition) {
        int before = produced.size();
        long[] timestamps = nextTimestampMs.clone();
        byte[] value = record(partition, 5, 2);
        produced.subList(before, produced.size()).clear();
        System.arraycopy(timestamps, 0, nextTimestampMs, 0, timestamps.length);
        return value;
    }

    /** Every sample of every record made so far, as {@link #entry} strings. */
    List<String> produced() {
        return produced;
    }

    int partitions() {
        return partitions;
    }

    static String entry(String labels, long timestampMs, long valueBits) {
        return labels + " " + timestampMs + " " + Long.toHexString(valueBits);
    }
}
