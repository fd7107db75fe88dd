package io.sluice.server.format;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A sink that writes down every call as a line of text, bytes in hex and values as raw bits, so that
 * two decodings compare exactly (NaN payloads, -0.0, invalid UTF-8 included) and a failing
 * assertion shows where they differ.
 */
public final class RecordingSink implements MetricSink {
    private static final HexFormat HEX = HexFormat.of();
    private final List<String> events = new ArrayList<>();

    public List<String> events() {
        return events;
    }

    @Override
    public void beginSeries() {
        events.add(begin());
    }

    @Override
    public void label(byte[] nameBuf, int nameOff, int nameLen, byte[] valueBuf, int valueOff, int valueLen) {
        events.add(label(HEX.formatHex(nameBuf, nameOff, nameOff + nameLen), HEX.formatHex(valueBuf, valueOff, valueOff + valueLen)));
    }

    @Override
    public void endLabels() {
        events.add(endLabelsEvent());
    }

    @Override
    public void canonicalSeries(byte[] buf, int off, int len) {
        events.add(canonical(HEX.formatHex(buf, off, off + len)));
    }

    @Override
    public void sample(long timestampMs, double value) {
        events.add(sample(timestampMs, Double.doubleToRawLongBits(value)));
    }

    public static String begin() {
        return "begin";
    }

    public static String label(byte[] name, byte[] value) {
        return label(HEX.formatHex(name), HEX.formatHex(value));
    }

    private static String label(String nameHex, String valueHex) {
        return "label " + nameHex + "=" + valueHex;
    }

    public static String endLabelsEvent() {
        return "endLabels";
    }

    public static String canonical(byte[] canonicalLabels) {
        return canonical(HEX.formatHex(canonicalLabels));
    }

    private static String canonical(String hex) {
        return "canonical " + hex;
    }

    public static String sample(long timestampMs, long valueBits) {
        return "sample " + timestampMs + " " + Long.toHexString(valueBits);
    }
}
