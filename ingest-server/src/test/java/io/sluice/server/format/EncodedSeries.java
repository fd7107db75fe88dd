package io.sluice.server.format;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/** One series as a test writes it with a {@link RecordEncoder}: labels in the order given, samples as (timestamp, value bits). */
public record EncodedSeries(Map<String, String> labels, long[] timestampsMs, long[] valueBits) {
    /** Writes {@code series} with {@code encoder} (reset first); returns how many values it made. */
    public static int encode(RecordEncoder encoder, List<EncodedSeries> series) {
        encoder.reset();
        for (EncodedSeries s : series) {
            encoder.beginSeries();
            s.labels.forEach((n, v) -> encoder.label(n.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8)));
            for (int i = 0; i < s.timestampsMs.length; i++) {
                encoder.sample(s.timestampsMs[i], Double.longBitsToDouble(s.valueBits[i]));
            }
            encoder.endSeries();
        }
        return encoder.finishValues();
    }

    /** The record values {@code encoder} makes of {@code series}, copied. */
    public static List<byte[]> values(RecordEncoder encoder, List<EncodedSeries> series) {
        int count = encode(encoder, series);
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(Arrays.copyOfRange(encoder.buffer(), encoder.valueOffset(i), encoder.valueOffset(i) + encoder.valueLength(i)));
        }
        return out;
    }
}
