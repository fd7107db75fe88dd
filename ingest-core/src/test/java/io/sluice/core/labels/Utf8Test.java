package io.sluice.core.labels;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Utf8Test {
    private static final long SEED = 0x07F8L;

    @Test
    void agreesWithTheJdkDecoderOnRandomNearlyValidBytes() {
        Random random = new Random(SEED);
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        int invalid = 0;
        for (int round = 0; round < 20_000; round++) {
            byte[] b = nearlyValid(random);
            boolean jdkValid = jdkAccepts(decoder, b);
            assertThat(Utf8.firstInvalid(b, 0, b.length) < 0)
                    .as("seed %d round %d bytes %s", SEED, round, hex(b)).isEqualTo(jdkValid);
            invalid += jdkValid ? 0 : 1;
        }
        assertThat(invalid).as("the generator produces both kinds").isBetween(2_000, 18_000);
    }

    @Test
    void everyScalarValueIsValidAndEverySurrogateIsNot() {
        for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
            byte[] b = encode(cp);
            boolean surrogate = cp >= 0xD800 && cp <= 0xDFFF;
            assertThat(Utf8.firstInvalid(b, 0, b.length)).as("U+%04X", cp).isEqualTo(surrogate ? 0 : -1);
        }
    }

    @Test
    void reportsThePositionOfTheFirstBadSequence() {
        byte[] b = {'a', 'b', (byte) 0xC3, (byte) 0xA9, (byte) 0xC0, (byte) 0x80, 'c'};
        assertThat(Utf8.firstInvalid(b, 0, b.length)).as("overlong C0 80").isEqualTo(4);
        assertThat(Utf8.firstInvalid(b, 0, 4)).isEqualTo(-1);
        assertThat(Utf8.firstInvalid(b, 0, 3)).as("truncated by the range").isEqualTo(2);
        byte[] tooBig = {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80};
        assertThat(Utf8.firstInvalid(tooBig, 0, 4)).as("above U+10FFFF").isZero();
        byte[] overlong3 = {(byte) 0xE0, (byte) 0x9F, (byte) 0xBF};
        assertThat(Utf8.firstInvalid(overlong3, 0, 3)).isZero();
        byte[] badContinuation = {(byte) 0xE2, (byte) 0x82, 'x'};
        assertThat(Utf8.firstInvalid(badContinuation, 0, 3)).isZero();
    }

    /** Code points encoded by hand (the encoder is what is under test, so not String.getBytes). */
    static byte[] encode(int cp) {
        if (cp < 0x80) {
            return new byte[] {(byte) cp};
        }
        if (cp < 0x800) {
            return new byte[] {(byte) (0xC0 | cp >> 6), (byte) (0x80 | cp & 0x3F)};
        }
        if (cp < 0x10000) {
            return new byte[] {(byte) (0xE0 | cp >> 12), (byte) (0x80 | cp >> 6 & 0x3F), (byte) (0x80 | cp & 0x3F)};
        }
        return new byte[] {(byte) (0xF0 | cp >> 18), (byte) (0x80 | cp >> 12 & 0x3F),
                (byte) (0x80 | cp >> 6 & 0x3F), (byte) (0x80 | cp & 0x3F)};
    }

    private static byte[] nearlyValid(Random random) {
        ByteBuffer out = ByteBuffer.allocate(64);
        int tokens = 1 + random.nextInt(8);
        for (int t = 0; t < tokens; t++) {
            int kind = random.nextInt(20);
            if (kind == 0) {
                out.put((byte) (0x80 + random.nextInt(128))); // any high byte
            } else if (kind == 1) {
                byte[] e = encode(0x80 + random.nextInt(Character.MAX_CODE_POINT - 0x80));
                out.put(e, 0, 1 + random.nextInt(e.length)); // possibly truncated
            } else {
                out.put(encode(random.nextInt(Character.MAX_CODE_POINT + 1)));
            }
        }
        byte[] b = new byte[out.position()];
        out.flip().get(b);
        return b;
    }

    private static boolean jdkAccepts(CharsetDecoder decoder, byte[] b) {
        try {
            decoder.reset().decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xFF));
        }
        return sb.toString();
    }
}
