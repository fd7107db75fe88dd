package io.sluice.core.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class LabelsBuilderTest {
    private static final long SEED = 0xCA701CL;
    private static final LabelLimits NO_NAME_NEEDED = new LabelLimits(8, 16, 300, false);

    private final LabelsBuilder builder = new LabelsBuilder(LabelLimits.DEFAULT);

    @Test
    void encodesSortedLengthPrefixedPairs() {
        LabelsStatus s = builder.reset().add("job", "node").add("__name__", "up").build();
        assertThat(s).isEqualTo(LabelsStatus.OK);
        assertThat(built()).isEqualTo(raw(8, "__name__", 2, "up", 3, "job", 4, "node"));
        assertThat(builder.count()).isEqualTo(2);
        assertThat(builder.hash()).isEqualTo(MurmurHash3.hash64(builder.bytes(), 0, builder.length()));
    }

    @Test
    void sortsByUnsignedBytesLikeGoNotLikeJavaStrings() {
        // U+FF61 is EF BD A1 and sorts before U+1F600 (F0 9F 98 80) as bytes, after it as UTF-16.
        String halfwidth = "\uFF61";
        String emoji = "\uD83D\uDE00";
        assertThat(halfwidth.compareTo(emoji)).as("Java's order differs").isPositive();
        builder.reset().add(emoji, "1").add("a", "1").add(halfwidth, "1").add("B", "1").add("_", "1")
                .add("\u00e9", "1").add("__name__", "m");
        assertThat(builder.build()).isEqualTo(LabelsStatus.OK);
        assertThat(new LabelsView().wrap(builder.bytes(), 0, builder.length()).toMap().keySet())
                .containsExactly("B", "_", "__name__", "a", "\u00e9", halfwidth, emoji);
    }

    @Test
    void addOrderDoesNotMatterAndMatchesAnIndependentEncoder() {
        Random random = new Random(SEED);
        for (int round = 0; round < 2_000; round++) {
            Map<String, String> labels = randomLabels(random);
            List<Map.Entry<String, String>> shuffled = new ArrayList<>(labels.entrySet());
            Collections.shuffle(shuffled, random);
            builder.reset();
            shuffled.forEach(e -> builder.add(e.getKey(), e.getValue()));
            assertThat(builder.build()).as("seed %d round %d %s", SEED, round, labels).isEqualTo(LabelsStatus.OK);
            assertThat(built()).as("seed %d round %d %s", SEED, round, labels).isEqualTo(referenceEncoding(labels));
        }
    }

    @Test
    void emptyValuesAreAbsentBeforeAnyOtherCheck() {
        byte[] expected = buildOf("__name__", "up", "a", "1");
        assertThat(buildOf("__name__", "up", "b", "", "a", "1")).isEqualTo(expected);
        assertThat(buildOf("a", "", "__name__", "up", "a", "1")).as("not a duplicate").isEqualTo(expected);
        assertThat(buildOf("", "", "__name__", "up", "a", "1")).as("empty name, empty value").isEqualTo(expected);
        assertThat(buildOf("\u00ff", "", "__name__", "up", "a", "1")).as("bad name, absent").isEqualTo(expected);
    }

    @Test
    void reportsEachInvalidCaseWithTheAddAtFault() {
        assertInvalid(LabelsStatus.EMPTY_NAME, 1, "__name__", "up", "", "x");
        assertInvalid(LabelsStatus.DUPLICATE_NAME, 2, "a", "1", "__name__", "up", "a", "2");
        assertInvalid(LabelsStatus.DUPLICATE_NAME, 2, "a", "1", "__name__", "up", "a", "1");
        assertInvalid(LabelsStatus.NAME_TOO_LONG, 1, "__name__", "up", "n".repeat(1025), "x");
        assertInvalid(LabelsStatus.VALUE_TOO_LONG, 0, "__name__", "v".repeat(16 * 1024 + 1));
        assertInvalid(LabelsStatus.NO_METRIC_NAME, -1, "a", "1", "b", "2");
        assertThat(builder.reset().add(new byte[] {'a'}, 0, 1, new byte[] {(byte) 0xC0, (byte) 0x80}, 0, 2)
                .add("__name__", "up").build()).isEqualTo(LabelsStatus.INVALID_UTF8);
        assertThat(builder.errorPosition()).isZero();
        assertThat(builder.reset().add("__name__", "up").add(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, 0, 3,
                new byte[] {'x'}, 0, 1).build()).as("a surrogate in a name").isEqualTo(LabelsStatus.INVALID_UTF8);
        assertThat(builder.errorPosition()).isEqualTo(1);

        LabelsBuilder small = new LabelsBuilder(new LabelLimits(3, 1024, 1024, true));
        small.reset().add("__name__", "m").add("a", "1").add("b", "").add("c", "1");
        assertThat(small.build()).as("three with values fit").isEqualTo(LabelsStatus.OK);
        small.reset().add("__name__", "m").add("a", "1").add("b", "2").add("c", "1");
        assertThat(small.build()).isEqualTo(LabelsStatus.TOO_MANY_LABELS);
        assertThat(small.errorPosition()).isEqualTo(3);
        assertThatThrownBy(small::bytes).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theFirstErrorInAddOrderWins() {
        assertInvalid(LabelsStatus.NAME_TOO_LONG, 0, "n".repeat(2000), "1", "", "x", "a", "1", "a", "2");
    }

    @Test
    void metricNameIsOptionalWhenTheLimitsSaySo() {
        LabelsBuilder b = new LabelsBuilder(NO_NAME_NEEDED);
        assertThat(b.reset().add("a", "1").build()).isEqualTo(LabelsStatus.OK);
        assertThat(b.reset().build()).as("the empty set").isEqualTo(LabelsStatus.OK);
        assertThat(b.length()).isZero();
        assertThat(b.hash()).isZero();
    }

    @Test
    void lengthPrefixesWidenAt128And16384Bytes() {
        LabelsBuilder b = new LabelsBuilder(new LabelLimits(4, 1024, 65_535, false));
        for (int len : new int[] {127, 128, 16_383, 16_384, 65_535}) {
            assertThat(b.reset().add("v", "x".repeat(len)).build()).isEqualTo(LabelsStatus.OK);
            int prefix = CanonicalLabels.uvarintLength(len);
            assertThat(b.length()).as("len %d", len).isEqualTo(2 + prefix + len);
            assertThat(CanonicalLabels.getUvarint(b.bytes(), 2, b.length())).isEqualTo(len);
            assertThat(b.fromCanonical(Arrays.copyOf(b.bytes(), b.length()), 0, b.length())).isEqualTo(LabelsStatus.OK);
        }
        assertThat(prefixWidths()).containsExactly(1, 1, 2, 2, 3, 3);
    }

    private static List<Integer> prefixWidths() {
        List<Integer> widths = new ArrayList<>();
        for (int v : new int[] {0, 127, 128, 16_383, 16_384, 65_535}) {
            widths.add(CanonicalLabels.putUvarint(new byte[3], 0, v));
        }
        return widths;
    }

    @Test
    void canonicalInputRoundTripsWithTheSameHash() {
        Random random = new Random(SEED + 1);
        LabelsBuilder other = new LabelsBuilder(LabelLimits.DEFAULT);
        for (int round = 0; round < 500; round++) {
            Map<String, String> labels = randomLabels(random);
            labels.forEach(builder.reset()::add);
            assertThat(builder.build()).isEqualTo(LabelsStatus.OK);
            byte[] wire = new byte[builder.length() + 7];
            System.arraycopy(builder.bytes(), 0, wire, 5, builder.length());
            assertThat(other.fromCanonical(wire, 5, builder.length())).as("seed %d round %d", SEED + 1, round)
                    .isEqualTo(LabelsStatus.OK);
            assertThat(other.hash()).isEqualTo(builder.hash());
            assertThat(other.count()).isEqualTo(labels.size());
            assertThat(new LabelsView().wrap(wire, 5, builder.length()).toMap()).isEqualTo(labels);
        }
    }

    @Test
    void canonicalInputFromAMemorySegment() {
        byte[] canonical = buildOf("__name__", "up", "job", "node");
        long hash = builder.hash();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(canonical.length + 10);
            MemorySegment.copy(canonical, 0, segment, ValueLayout.JAVA_BYTE, 10, canonical.length);
            assertThat(builder.fromCanonical(segment, 10, canonical.length)).isEqualTo(LabelsStatus.OK);
            assertThat(builder.hash()).isEqualTo(hash);
            assertThat(builder.fromCanonical(segment, 0, LabelLimits.DEFAULT.maxCanonicalBytes() + 1))
                    .as("length checked before copying").isEqualTo(LabelsStatus.TOO_LONG);
        }
    }

    @Test
    void rejectsEveryKindOfNonCanonicalInputWithItsOffset() {
        assertCanonical(LabelsStatus.OK, -1, raw(8, "__name__", 1, "m", 1, "a", 1, "1"));
        assertCanonical(LabelsStatus.NOT_SORTED, 4, raw(1, "b", 1, "1", 1, "a", 1, "1", 8, "__name__", 1, "m"));
        assertCanonical(LabelsStatus.DUPLICATE_NAME, 15, raw(8, "__name__", 1, "m", 1, "a", 1, "1", 1, "a", 1, "2"));
        assertCanonical(LabelsStatus.EMPTY_VALUE, 13, raw(8, "__name__", 1, "m", 1, "a", 0));
        assertCanonical(LabelsStatus.EMPTY_NAME, 0, raw(0, 1, "x", 8, "__name__", 1, "m"));
        assertCanonical(LabelsStatus.MALFORMED, 11, raw(8, "__name__", 1, "m", 0x81));
        assertCanonical(LabelsStatus.MALFORMED, 0, raw(0x81, 0x00, "a", 1, "1", 8, "__name__", 1, "m"));
        assertCanonical(LabelsStatus.MALFORMED, 11, raw(8, "__name__", 1, "m", 5, "ab"));
        assertCanonical(LabelsStatus.MALFORMED, 11, raw(8, "__name__", 1, "m", 0x80, 0x80, 0x80, 0x01));
        assertCanonical(LabelsStatus.MALFORMED, 9, raw(8, "__name__", 9, "m"));
        assertCanonical(LabelsStatus.INVALID_UTF8, 13, raw(8, "__name__", 1, "m", 2, "a", 0xFF, 1, "1"));
        assertCanonical(LabelsStatus.INVALID_UTF8, 14, raw(8, "__name__", 1, "m", 1, "a", 2, 0xC3, 0x28));
        assertCanonical(LabelsStatus.NO_METRIC_NAME, 8, raw(1, "a", 1, "1", 1, "b", 1, "2"));
        assertCanonical(LabelsStatus.NAME_TOO_LONG, 0, concat(raw(0x81, 0x08), "n".repeat(1025)));
        assertCanonical(LabelsStatus.VALUE_TOO_LONG, 9, concat(raw(8, "__name__", 0x81, 0x80, 0x01), "v".repeat(16385)));
        LabelsBuilder small = new LabelsBuilder(new LabelLimits(2, 1024, 1024, true));
        byte[] three = raw(8, "__name__", 1, "m", 1, "a", 1, "1", 1, "b", 1, "2");
        assertThat(small.fromCanonical(three, 0, three.length)).isEqualTo(LabelsStatus.TOO_MANY_LABELS);
        assertThat(small.errorPosition()).isEqualTo(15);
        byte[] huge = new byte[small.limits().maxCanonicalBytes() + 1];
        assertThat(small.fromCanonical(huge, 0, huge.length)).isEqualTo(LabelsStatus.TOO_LONG);
    }

    /**
     * Whatever bytes are accepted as canonical decode to labels that encode back to exactly those
     * bytes: the encoding is unique, so equal label sets can never hash differently.
     */
    @Test
    void acceptedCanonicalBytesAreTheUniqueEncodingOfTheirLabels() {
        Random random = new Random(SEED + 2);
        LabelsBuilder reader = new LabelsBuilder(NO_NAME_NEEDED);
        LabelsBuilder rebuilt = new LabelsBuilder(NO_NAME_NEEDED);
        LabelsView view = new LabelsView();
        int accepted = 0;
        for (int round = 0; round < 20_000; round++) {
            byte[] b = mutate(random, referenceEncoding(randomLabels(random, 4)));
            if (reader.fromCanonical(b, 0, b.length) != LabelsStatus.OK) {
                continue;
            }
            accepted++;
            view.wrap(b, 0, b.length);
            rebuilt.reset();
            while (view.next()) {
                rebuilt.add(b, view.nameOffset(), view.nameLength(), b, view.valueOffset(), view.valueLength());
            }
            assertThat(rebuilt.build()).isEqualTo(LabelsStatus.OK);
            assertThat(Arrays.copyOf(rebuilt.bytes(), rebuilt.length()))
                    .as("seed %d round %d bytes %s", SEED + 2, round, Utf8Test.hex(b)).isEqualTo(b);
        }
        assertThat(accepted).as("some mutants stay valid").isBetween(100, 19_000);
    }

    private void assertInvalid(LabelsStatus expected, int position, String... nameValues) {
        builder.reset();
        for (int i = 0; i < nameValues.length; i += 2) {
            builder.add(nameValues[i], nameValues[i + 1]);
        }
        assertThat(builder.build()).as(Arrays.toString(nameValues)).isEqualTo(expected);
        assertThat(builder.errorPosition()).as("position").isEqualTo(position);
        assertThatThrownBy(builder::hash).isInstanceOf(IllegalStateException.class);
    }

    private void assertCanonical(LabelsStatus expected, int offset, byte[] b) {
        byte[] padded = concat(raw(0xAA, 0xBB), b);
        assertThat(builder.fromCanonical(padded, 2, b.length)).as(Utf8Test.hex(b)).isEqualTo(expected);
        assertThat(builder.errorPosition()).as("offset in %s", Utf8Test.hex(b)).isEqualTo(offset);
    }

    private byte[] buildOf(String... nameValues) {
        builder.reset();
        for (int i = 0; i < nameValues.length; i += 2) {
            builder.add(nameValues[i], nameValues[i + 1]);
        }
        assertThat(builder.build()).isEqualTo(LabelsStatus.OK);
        return built();
    }

    private byte[] built() {
        return Arrays.copyOf(builder.bytes(), builder.length());
    }

    /** Bytes from ints (one byte each) and strings (UTF-8). */
    static byte[] raw(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : parts) {
            if (p instanceof Integer i) {
                out.write(i);
            } else {
                out.writeBytes(((String) p).getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, Object tail) {
        byte[] t = tail instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) tail;
        byte[] r = Arrays.copyOf(a, a.length + t.length);
        System.arraycopy(t, 0, r, a.length, t.length);
        return r;
    }

    /** An encoder written from the format text alone, to check LabelsBuilder against. */
    static byte[] referenceEncoding(Map<String, String> labels) {
        TreeMap<byte[], byte[]> sorted = new TreeMap<>(Arrays::compareUnsigned);
        labels.forEach((n, v) -> sorted.put(n.getBytes(StandardCharsets.UTF_8), v.getBytes(StandardCharsets.UTF_8)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        sorted.forEach((n, v) -> {
            writeUvarint(out, n.length);
            out.writeBytes(n);
            writeUvarint(out, v.length);
            out.writeBytes(v);
        });
        return out.toByteArray();
    }

    private static void writeUvarint(ByteArrayOutputStream out, int v) {
        while (v >= 0x80) {
            out.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        out.write(v);
    }

    static Map<String, String> randomLabels(Random random) {
        Map<String, String> labels = randomLabels(random, 12);
        labels.put("__name__", "metric_" + random.nextInt(100));
        return labels;
    }

    private static Map<String, String> randomLabels(Random random, int max) {
        Map<String, String> labels = new LinkedHashMap<>();
        int n = random.nextInt(max + 1);
        for (int i = 0; i < n; i++) {
            labels.put(randomString(random, 1 + random.nextInt(12)), randomString(random, 1 + random.nextInt(200)));
        }
        return labels;
    }

    private static String randomString(Random random, int len) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) {
            int kind = random.nextInt(10);
            sb.appendCodePoint(kind < 7 ? 'a' + random.nextInt(26) : kind < 9 ? 0xA0 + random.nextInt(0x700)
                    : 0x1F300 + random.nextInt(0x300));
        }
        return sb.toString();
    }

    private static byte[] mutate(Random random, byte[] b) {
        if (b.length == 0) {
            return new byte[] {(byte) random.nextInt(3)};
        }
        byte[] m = b.clone();
        switch (random.nextInt(4)) {
            case 0 -> m[random.nextInt(m.length)] = (byte) random.nextInt(256);
            case 1 -> m[random.nextInt(m.length)] ^= (byte) (1 << random.nextInt(8));
            case 2 -> m = Arrays.copyOf(m, random.nextInt(m.length));
            default -> { } // unchanged: the valid case
        }
        return m;
    }
}
