package io.sluice.server.format.nativebatch;

import io.sluice.server.format.ByteWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Builds Sluice's canonical label encoding, as the native batch carries it: labels sorted by the
 * unsigned bytes of their UTF-8 names, empty values dropped, each written as
 * {@code uvarint(nameLen) name uvarint(valueLen) value}. For producers (the load generator, tests)
 * that prepare their series once; it allocates, so it does not belong on a per-sample path. The
 * head validates what it receives, so this class only rejects what it cannot encode.
 */
public final class CanonicalLabels {
    private CanonicalLabels() {
    }

    /** Encodes {@code name1, value1, name2, value2, ...}; rejects an odd count and duplicate names. */
    public static byte[] encode(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values must come in pairs, got " + namesAndValues.length);
        }
        byte[][][] pairs = new byte[namesAndValues.length / 2][][];
        int kept = 0;
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (!namesAndValues[i + 1].isEmpty()) {
                pairs[kept++] = new byte[][] {
                    namesAndValues[i].getBytes(StandardCharsets.UTF_8), namesAndValues[i + 1].getBytes(StandardCharsets.UTF_8)};
            }
        }
        byte[][][] sorted = Arrays.copyOf(pairs, kept);
        Arrays.sort(sorted, Comparator.comparing((byte[][] pair) -> pair[0], Arrays::compareUnsigned));
        ByteWriter out = new ByteWriter(64);
        for (int i = 0; i < sorted.length; i++) {
            if (i > 0 && Arrays.equals(sorted[i - 1][0], sorted[i][0])) {
                throw new IllegalArgumentException("duplicate label name " + new String(sorted[i][0], StandardCharsets.UTF_8));
            }
            for (byte[] part : sorted[i]) {
                out.writeVarint(part.length);
                out.writeBytes(part, 0, part.length);
            }
        }
        return Arrays.copyOf(out.buffer(), out.length());
    }
}
