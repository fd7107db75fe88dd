package io.sluice.server.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Values formatted as Prometheus' JSON writes them: Go's strconv.FormatFloat with 'f' from 1e-6 up to
 * 1e21 and 'e' outside (its jsonutil.MarshalFloat). The golden texts in {@code gofloat/floats.txt} were
 * written by Go itself ({@code gofloat/gen.go}).
 */
class PromFloatTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "1e21|1e+21",
        "9.99999999999999e20|999999999999999000000",
        "1e-6|0.000001",
        "9.99999999999e-7|9.99999999999e-07",
        "1e-7|1e-07",
        "-4.5e-100|-4.5e-100",
        "1.5e300|1.5e+300",
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
    void scalarValuesAreGosFixedFormAtEveryMagnitude() {
        for (Object[] c : new Object[][] {
            {1e-7, "0.0000001"}, {-1e21, "-1000000000000000000000"}, {Double.MIN_VALUE, "0." + "0".repeat(323) + "5"},
            {3 * Double.MIN_VALUE, "0." + "0".repeat(322) + "15"}, {1.5e300, "15" + "0".repeat(299)}, {0.25, "0.25"},
            {-0.0, "-0"}, {42.0, "42"}, {Double.NaN, "NaN"}, {Double.NEGATIVE_INFINITY, "-Inf"}}) {
            StringBuilder out = new StringBuilder();
            PromFloat.appendFixed((double) c[0], out);
            assertThat(out.toString()).as("%s", c[0]).isEqualTo(c[1]);
        }
    }

    @Test
    void extremesAndSubnormalsTakeGosExponentForm() {
        assertThat(PromFloat.format(Double.MAX_VALUE)).isEqualTo("1.7976931348623157e+308");
        assertThat(PromFloat.format(Double.MIN_NORMAL)).isEqualTo("2.2250738585072014e-308");
        assertThat(PromFloat.format(Double.MIN_VALUE)).isEqualTo("5e-324"); // Java: 4.9E-324
        assertThat(PromFloat.format(2 * Double.MIN_VALUE)).isEqualTo("1e-323");
        assertThat(PromFloat.format(3 * Double.MIN_VALUE)).isEqualTo("1.5e-323");
        assertThat(PromFloat.format(-Double.MIN_VALUE)).isEqualTo("-5e-324");
    }

    @Test
    void everyTextIsGosAndReadsBackAsTheSameDouble() throws IOException {
        int n = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                Objects.requireNonNull(PromFloatTest.class.getResourceAsStream("/gofloat/floats.txt")), StandardCharsets.US_ASCII))) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("#")) {
                    continue;
                }
                int space = line.indexOf(' ');
                double v = Double.longBitsToDouble(Long.parseUnsignedLong(line, 0, space, 16));
                String text = PromFloat.format(v);
                assertThat(text).as(Double.toString(v)).isEqualTo(line.substring(space + 1));
                assertThat(Double.doubleToRawLongBits(Double.parseDouble(text))).as(text).isEqualTo(Double.doubleToRawLongBits(v));
                n++;
            }
        }
        assertThat(n).isGreaterThan(5000);
    }

    @Test
    void thePlainRangeEqualsBigDecimalsPlainTextOfJavasDigits() {
        Random random = new Random(9);
        int checked = 0;
        for (int i = 0; i < 50_000; i++) {
            double v = switch (i % 3) {
                case 0 -> Double.longBitsToDouble(random.nextLong());
                case 1 -> random.nextGaussian() * Math.pow(10, random.nextInt(24) - 12); // both of Java's notations
                default -> Math.round(random.nextGaussian() * 1e6) / 1000.0; // few digits: 1.5, 0.25, -12.125
            };
            if (PromFloat.isSpecial(v) || Math.abs(v) < 1e-6 || Math.abs(v) >= 1e21) {
                continue;
            }
            String reference = new java.math.BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
            assertThat(PromFloat.format(v)).as("%s", Double.toString(v)).isEqualTo(reference.equals("0") ? "0" : reference);
            checked++;
        }
        assertThat(checked).isGreaterThan(20_000);
    }

    @Test
    void jsonValueAndTimestampMatchPrometheus() {
        JsonBuffer json = new JsonBuffer(16);
        json.timestamp(1_435_781_451_781L).raw(' ').timestamp(1_500).raw(' ').timestamp(2_000).raw(' ').timestamp(1_005)
                .raw(' ').timestamp(-1_500).raw(' ').timestamp(0).raw(' ').value(-0.0).raw(' ').value(3).raw(' ').value(0.5);
        assertThat(new String(json.toByteArray())).isEqualTo("1435781451.781 1.500 2 1.005 -1.500 0 -0 3 0.5");
        JsonBuffer scalar = new JsonBuffer(16);
        scalar.goJsonSeconds(1_435_781_451_780L).raw(' ').goJsonSeconds(1_500).raw(' ').goJsonSeconds(2_000).raw(' ')
                .goJsonSeconds(-1_500).raw(' ').goJsonSeconds(1).raw(' ').goJsonSeconds(0);
        assertThat(new String(scalar.toByteArray())).as("encoding/json's float64").isEqualTo("1435781451.78 1.5 2 -1.5 0.001 0");
    }
}
