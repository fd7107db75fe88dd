package io.sluice.server.format;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A sink that writes each sample as one line of text, {@code name{label="value",...} timestampMs valueBits},
 * with the labels as the head stores them: sorted by name, empty values dropped. A series whose labels
 * repeat a name fails the test, as the head would reject it. For tests that compare series by their
 * identity rather than by the order their labels came in.
 */
public final class SeriesTextSink implements MetricSink {
    private final List<String> lines = new ArrayList<>();
    private final Map<String, String> labels = new TreeMap<>();
    private String series = "";

    public List<String> lines() {
        return lines;
    }

    @Override
    public void beginSeries() {
        labels.clear();
    }

    @Override
    public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
        String name = new String(nameBuf, nameOff, nameLen, StandardCharsets.UTF_8);
        String value = new String(valueBuf, valueOff, valueLen, StandardCharsets.UTF_8);
        if (!value.isEmpty() && labels.put(name, value) != null) {
            throw new AssertionError("label " + name + " twice in one series: " + labels);
        }
    }

    @Override
    public void endLabels() {
        series = text(labels);
    }

    @Override
    public void canonicalSeries(byte[] buf, int off, int len) {
        throw new UnsupportedOperationException("only label-by-label formats");
    }

    @Override
    public void sample(long timestampMs, double value) {
        lines.add(line(series, timestampMs, Double.doubleToRawLongBits(value)));
    }

    /** The text of a label set: {@code __name__} first as the name, then the others sorted. */
    public static String text(Map<String, String> labelSet) {
        StringBuilder out = new StringBuilder(labelSet.getOrDefault("__name__", "")).append('{');
        boolean first = true;
        for (Map.Entry<String, String> label : new TreeMap<>(labelSet).entrySet()) {
            if (label.getKey().equals("__name__") || label.getValue().isEmpty()) {
                continue;
            }
            out.append(first ? "" : ",").append(label.getKey()).append("=\"").append(label.getValue()).append('"');
            first = false;
        }
        return out.append('}').toString();
    }

    public static String line(String series, long timestampMs, long valueBits) {
        return series + " " + timestampMs + " " + Long.toHexString(valueBits);
    }

    public static String line(String series, long timestampMs, double value) {
        return line(series, timestampMs, Double.doubleToRawLongBits(value));
    }
}
