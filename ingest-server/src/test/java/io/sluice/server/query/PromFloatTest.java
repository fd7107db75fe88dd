package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Values formatted as Go's strconv.FormatFloat(v, 'f', -1, 64), the texts Prometheus writes. */
class PromFloatTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1e21|1000000000000000000000",
        "1e-7|0.0000001",
        "0.1|0.1",
        "-0.0|-0",
        "0.0|0",
        "1.0|1",
        "-42|-42",
        "100|100",
        "123456789012345680000|123456789012345680000",
        "0.30000000000000004|0.30000000000000004",
        "9007199254740993|9007199254740992",
        "9007199254740994|9007199254740994",
        "123.456|123.456",
        "-1.25e-5|-0.0000125",
        "NaN|NaN",
        "Infinity|+Inf",
        "-Infinity|-Inf",
    })
    void formatsLikeGo(double value, String expected) {
        assertThat(PromFloat.format(value)).isEqualTo(expected);
    }

    @Test
    void extremesAreWrittenInFullWithoutExponent() {
        assertThat(PromFloat.format(Double.MAX_VALUE)).isEqualTo("17976931348623157" + "0".repeat(309 - 17));
        assertThat(PromFloat.format(Double.MIN_NORMAL)).isEqualTo("0." + "0".repeat(307) + "22250738585072014");
        assertThat(PromFloat.format(1.5e300)).isEqualTo("15" + "0".repeat(299));
    }

    @Test
    void subnormalsTakeGosSingleDigitWhereJavaGivesTwo() {
        assertThat(PromFloat.format(Double.MIN_VALUE)).isEqualTo("0." + "0".repeat(323) + "5"); // Go: 5e-324
        assertThat(PromFloat.format(2 * Double.MIN_VALUE)).isEqualTo("0." + "0".repeat(322) + "1"); // Go: 1e-323
        assertThat(PromFloat.format(3 * Double.MIN_VALUE)).isEqualTo("0." + "0".repeat(322) + "15"); // Go: 1.5e-323
        assertThat(PromFloat.format(-Double.MIN_VALUE)).isEqualTo("-0." + "0".repeat(323) + "5");
    }

    @Test
    void everyTextReadsBackAsTheSameDouble() {
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            double v = Double.longBitsToDouble(random.nextLong());
            if (PromFloat.isSpecial(v)) {
                continue;
            }
            String text = PromFloat.format(v);
            assertThat(text).doesNotContain("E").doesNotContain("e");
            assertThat(Double.doubleToRawLongBits(Double.parseDouble(text))).as(text).isEqualTo(Double.doubleToRawLongBits(v));
        }
    }

    @Test
    void theInPlaceRewriteEqualsBigDecimalsPlainTextOfJavasDigits() {
        Random random = new Random(9);
        for (int i = 0; i < 50_000; i++) {
            double v = switch (i % 3) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> random.nextGaussian() * Math.pow(10, random.nextInt(24) - 12); // both of Java's notations
                default -> Math.round(random.nextGaussian() * 1e6) / 1000.0; // few digits: 1.5, 0.25, -12.125
            };
            if (PromFloat.isSpecial(v) || Math.abs(v) < Double.MIN_NORMAL) {
                continue;
            }
            String reference = new java.math.BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
            assertThat(PromFloat.format(v)).as("%s", Double.toString(v)).isEqualTo(reference.equals("0") ? "0" : reference);
        }
    }

    @Test
    void jsonValueAndTimestampMatchPrometheus() {
        JsonBuffer json = new JsonBuffer(16);
        json.timestamp(1_435_781_451_781L).raw(' ').timestamp(1_500).raw(' ').timestamp(2_000).raw(' ').timestamp(1_005)
                .raw(' ').timestamp(-1_500).raw(' ').timestamp(0).raw(' ').value(-0.0).raw(' ').value(3).raw(' ').value(0.5);
        assertThat(new String(json.toByteArray())).isEqualTo("1435781451.781 1.500 2 1.005 -1.500 0 -0 3 0.5");
    }
}
