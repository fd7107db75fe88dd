package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class JsonBufferTest {
    @Test
    void escapesAsciiAndOtherTextAlike() {
        assertThat(new String(new JsonBuffer(1).string("a\"b\\c<d>&\n\t\u0001").toByteArray(), StandardCharsets.UTF_8))
                .isEqualTo("\"a\\\"b\\\\c\\u003cd\\u003e\\u0026\\n\\t\\u0001\"");
        assertThat(new String(new JsonBuffer(1).string("ü \u2028").toByteArray(), StandardCharsets.UTF_8))
                .isEqualTo("\"ü \\u2028\"");
    }

    /**
     * Label names and values as Prometheus' label-set encoder writes them (seen from v0.314.0's API:
     * {@code {"metric":{"a":"<&>"}}}, U+2028 unescaped too): only quotes, backslashes and control characters escaped.
     */
    @Test
    void labelStringsEscapeNoHtmlCharacters() {
        assertThat(new String(new JsonBuffer(1).labelString("a\"b\\c<d>&\n\t\u0001 ü \u2028\u2029").toByteArray(), StandardCharsets.UTF_8))
                .isEqualTo("\"a\\\"b\\\\c<d>&\\n\\t\\u0001 ü \u2028\u2029\"");
        SplittableRandom random = new SplittableRandom(4);
        for (int t = 0; t < 2_000; t++) {
            String s = randomText(random);
            String html = new String(new JsonBuffer(1 + random.nextInt(8)).string(s).toByteArray(), StandardCharsets.UTF_8);
            String label = new String(new JsonBuffer(1 + random.nextInt(8)).labelString(s).toByteArray(), StandardCharsets.UTF_8);
            assertThat(label).as(s).isEqualTo(html.replace("\\u003c", "<").replace("\\u003e", ">")
                    .replace("\\u0026", "&").replace("\\u2028", "\u2028").replace("\\u2029", "\u2029"));
        }
    }

    /** Timestamps as Prometheus writes them, the same when repeated (from the cache) in any order and with colliding slots. */
    @Test
    void timestampsRepeatedOrNot() {
        SplittableRandom random = new SplittableRandom(5);
        long[] pool = new long[3_000];
        for (int i = 0; i < pool.length; i++) {
            pool[i] = switch (i % 4) {
                case 0 -> 1_704_067_200_000L + 15_000L * i;
                case 1 -> random.nextLong(-10_000_000, 10_000_000);
                case 2 -> random.nextLong();
                default -> 1_704_067_200_000L + random.nextInt(1_000);
            };
        }
        pool[0] = Long.MIN_VALUE;
        pool[1] = Long.MAX_VALUE;
        JsonBuffer json = new JsonBuffer(16);
        for (int t = 0; t < 20_000; t++) {
            long ms = pool[random.nextInt(pool.length)];
            json.reset();
            String written = new String(json.timestamp(ms).toByteArray(), StandardCharsets.US_ASCII);
            String expected = new java.math.BigDecimal(ms).movePointLeft(3).toPlainString();
            assertThat(written).as("%d", ms).isEqualTo(expected.endsWith(".000") ? expected.substring(0, expected.length() - 4) : expected);
        }
    }

    /** A String and its UTF-8 bytes write the same JSON, from a buffer too small for either (it grows). */
    @Test
    void stringsAndTheirBytesWriteTheSame() {
        SplittableRandom random = new SplittableRandom(3);
        for (int t = 0; t < 2_000; t++) {
            String s = randomText(random);
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            JsonBuffer fromString = new JsonBuffer(1 + random.nextInt(8)).raw("x").string(s);
            JsonBuffer fromBytes = new JsonBuffer(1 + random.nextInt(8)).raw("x").string(utf8, 0, utf8.length);
            assertThat(fromString.toByteArray()).as(s).isEqualTo(fromBytes.toByteArray());
        }
    }

    /** Up to 40 characters of those JSON writers treat specially, and others. */
    private static String randomText(SplittableRandom random) {
        String alphabet = "ab\"\\<>&\n\t\u0001\u001f ü✓\u2028\u2029";
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(40); i > 0; i--) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }
}
