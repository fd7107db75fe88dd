package io.sluice.core.chunk;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The XOR chunks Prometheus' own encoder produced, read from the test resource
 * {@value #RESOURCE} (its provenance and format: README.md beside it). A missing or empty file fails
 * the test.
 */
record GoldenVectors(String name, long[] timestampsMs, long[] valueBits, byte[] chunk) {
    static final String RESOURCE = "golden/chunkenc/xor-golden.jsonl";
    private static final Pattern LINE = Pattern.compile(
            "\\{\"name\":\"([^\"]+)\",\"samples\":\\[(.*)],\"chunk\":\"([0-9a-f]*)\"}");
    private static final Pattern SAMPLE = Pattern.compile("\\[\"(-?\\d+)\",\"([0-9a-f]{16})\"]");

    int size() {
        return timestampsMs.length;
    }

    @Override
    public String toString() {
        return name;
    }

    static List<GoldenVectors> load() {
        List<GoldenVectors> vectors = new ArrayList<>();
        try (InputStream in = GoldenVectors.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("golden vectors not found: no test resource " + RESOURCE);
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            int lineNumber = 0;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lineNumber++;
                if (!line.isBlank()) {
                    vectors.add(parse(line, lineNumber));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (vectors.isEmpty()) {
            throw new IllegalStateException("no golden vectors in " + RESOURCE);
        }
        return vectors;
    }

    private static GoldenVectors parse(String line, int lineNumber) {
        Matcher m = LINE.matcher(line);
        if (!m.matches()) {
            throw new IllegalStateException(RESOURCE + ":" + lineNumber + ": not a golden vector line");
        }
        List<long[]> samples = new ArrayList<>();
        Matcher s = SAMPLE.matcher(m.group(2));
        while (s.find()) {
            samples.add(new long[] {Long.parseLong(s.group(1)), Long.parseUnsignedLong(s.group(2), 16)});
        }
        long[] timestamps = new long[samples.size()];
        long[] values = new long[samples.size()];
        for (int i = 0; i < samples.size(); i++) {
            timestamps[i] = samples.get(i)[0];
            values[i] = samples.get(i)[1];
        }
        return new GoldenVectors(m.group(1), timestamps, values, HexFormat.of().parseHex(m.group(3)));
    }
}
