package io.sluice.server.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The decimal parser agrees with Double.parseDouble bit for bit, and rejects what its grammar does not hold. */
class DecimalParserTest {
    private static final long SEED = 0xDEC1_3A1L;
    private final DecimalParser parser = new DecimalParser();

    private void assertParsesLikeJava(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        double expected = Double.parseDouble(text);
        if (Double.isInfinite(expected)) {
            assertThat(parser.parse(bytes, 0, bytes.length, DecimalParser.ALLOW_PLUS)).as(text).isFalse();
            assertThat(parser.outOfRange()).as(text).isTrue();
            return;
        }
        assertThat(parser.parse(bytes, 0, bytes.length, DecimalParser.ALLOW_PLUS)).as(text).isTrue();
        assertThat(Double.doubleToRawLongBits(parser.value())).as(text)
                .isEqualTo(Double.doubleToRawLongBits(expected));
    }

    @Test
    void seededRandomDoublesInEveryNotationRoundTrip() {
        Random random = new Random(SEED);
        for (int i = 0; i < 200_000; i++) {
            double d = Double.longBitsToDouble(random.nextLong());
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                continue;
            }
            assertParsesLikeJava(Double.toString(d));
            assertParsesLikeJava(new BigDecimal(d).toString().length() < 60 ? new BigDecimal(d).toPlainString() : Double.toString(d));
            assertParsesLikeJava(String.format(Locale.ROOT, "%.17e", d));
            assertParsesLikeJava(String.format(Locale.ROOT, "%." + random.nextInt(20) + "g", d));
        }
    }

    @Test
    void seededRandomDigitStringsWithLongMantissasAndWideExponents() {
        Random random = new Random(SEED + 1);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 300_000; i++) {
            text.setLength(0);
            if (random.nextBoolean()) {
                text.append('-');
            }
            int digits = 1 + random.nextInt(random.nextBoolean() ? 19 : 40);
            int point = random.nextInt(digits + 1);
            for (int d = 0; d < digits; d++) {
                if (d == point) {
                    text.append('.');
                }
                text.append((char) ('0' + random.nextInt(10)));
            }
            if (random.nextBoolean()) {
                text.append(random.nextBoolean() ? 'e' : 'E').append(random.nextInt(700) - 350);
            }
            assertParsesLikeJava(text.toString());
        }
    }

    @Test
    void hardCasesRoundCorrectly() {
        String[] cases = {
            "9007199254740993", "9007199254740992.5", "9007199254740993.0000000000000000001",
            "2.2250738585072011e-308", "2.2250738585072012e-308", "4.9e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
            "0.1", "0.30000000000000004", "1e23", "8.98846567431158e307", "1e+06", "123456789012345678901234567890",
            "0.000000000000000000000000000000000000000000001", "1e-400", "1e400", "-0", "-0.0", "0e999999",
            "7.2057594037927933e16", "5e-324", "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203124", "1448997445238699", "1.", ".5", "+.5e-3",
        };
        for (String text : cases) {
            assertParsesLikeJava(text);
        }
        byte[] negativeZero = "-0".getBytes(StandardCharsets.US_ASCII);
        assertThat(parser.parse(negativeZero, 0, 2, 0)).isTrue();
        assertThat(Double.doubleToRawLongBits(parser.value())).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void specialValuesOnlyWhenAskedFor() {
        assertSpecial("NaN", DecimalParser.NAN_BITS);
        assertSpecial("nan", DecimalParser.NAN_BITS);
        assertSpecial("+Inf", Double.doubleToRawLongBits(Double.POSITIVE_INFINITY));
        assertSpecial("-Inf", Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY));
        assertSpecial("Inf", Double.doubleToRawLongBits(Double.POSITIVE_INFINITY));
        assertSpecial("-infinity", Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY));
        for (String bad : new String[] {"-NaN", "+nan", "infin", "Infinityy", "na", "inf1"}) {
            byte[] bytes = bad.getBytes(StandardCharsets.US_ASCII);
            assertThat(parser.parse(bytes, 0, bytes.length, DecimalParser.ALLOW_PLUS | DecimalParser.ALLOW_SPECIALS)).as(bad).isFalse();
        }
        byte[] nan = "NaN".getBytes(StandardCharsets.US_ASCII);
        assertThat(parser.parse(nan, 0, 3, 0)).isFalse();
    }

    private void assertSpecial(String text, long bits) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        assertThat(parser.parse(bytes, 0, bytes.length, DecimalParser.ALLOW_PLUS | DecimalParser.ALLOW_SPECIALS)).as(text).isTrue();
        assertThat(Double.doubleToRawLongBits(parser.value())).as(text).isEqualTo(bits);
    }

    @Test
    void syntaxErrorsAreRejectedNotGuessed() {
        String[] bad = {"", "-", "+", ".", "e5", "1e", "1e+", "1.2.3", "0x10", "1_000", " 1", "1 ", "1f", "1d",
            "--1", "1e5.5", "١"};
        for (String text : bad) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            assertThat(parser.parse(bytes, 0, bytes.length, DecimalParser.ALLOW_PLUS)).as("'%s'", text).isFalse();
            assertThat(parser.outOfRange()).as(text).isFalse();
        }
        byte[] plus = "+1".getBytes(StandardCharsets.US_ASCII);
        assertThat(parser.parse(plus, 0, 2, 0)).as("'+' needs ALLOW_PLUS").isFalse();
        byte[] inside = "xx12.5yy".getBytes(StandardCharsets.US_ASCII);
        assertThat(parser.parse(inside, 2, 4, 0)).isTrue();
        assertThat(parser.value()).isEqualTo(12.5);
    }

    @Test
    void typicalValuesParseWithoutAllocating() {
        byte[][] values = new byte[1000][];
        Random random = new Random(SEED);
        for (int i = 0; i < values.length; i++) {
            values[i] = Double.toString(random.nextDouble() * Math.pow(10, random.nextInt(30) - 15)).getBytes(StandardCharsets.US_ASCII);
        }
        double sum = 0;
        for (int round = 0; round < 200; round++) {
            for (byte[] v : values) {
                parser.parse(v, 0, v.length, 0);
                sum += parser.value();
            }
        }
        long before = AllocationMeter.allocatedBytes();
        for (int round = 0; round < 100; round++) {
            for (byte[] v : values) {
                parser.parse(v, 0, v.length, 0);
                sum += parser.value();
            }
        }
        assertThat(AllocationMeter.allocatedBytes() - before).as("bytes allocated parsing 100,000 values").isLessThan(1000);
        assertThat(sum).isPositive();
    }
}
