package io.sluice.core.chunk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The XOR chunks Prometheus' own encoder produced (shared/testdata/chunkenc/xor-golden.jsonl, read in
 * place, never copied). The repository sits beside shared/ (/work/main, /work/wt/X, or a CI clone),
 * so the file is found by walking up from the module directory; not finding it fails the test.
 */
record GoldenVectors(String name, long[] timestampsMs, long[] valueBits, byte[] chunk) {
    private static final Path RELATIVE = Path.of("shared", "testdata", "chunkenc", "xor-golden.jsonl");
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
        Path file = locate();
        List<GoldenVectors> vectors = new ArrayList<>();
        try {
            int lineNumber = 0;
            for (String line : Files.readAllLines(file)) {
                lineNumber++;
                if (!line.isBlank()) {
                    vectors.add(parse(line, file, lineNumber));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (vectors.isEmpty()) {
            throw new IllegalStateException("no golden vectors in " + file);
        }
        return vectors;
    }

    private static GoldenVectors parse(String line, Path file, int lineNumber) {
        Matcher m = LINE.matcher(line);
        if (!m.matches()) {
            throw new IllegalStateException(file + ":" + lineNumber + ": not a golden vector line");
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

    private static Path locate() {
        Path start = Path.of("").toAbsolutePath();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(RELATIVE);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new IllegalStateException("golden vectors not found: no " + RELATIVE + " in " + start
                + " or any parent; clone the repository beside shared/ (as CI does)");
    }
}
