package io.sluice.server.format.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.AllocationMeter;
import io.sluice.server.format.ByteWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Number texts as Go writes them (FormatFloat 'f' -1 and encoding/json), shortest, and cached. */
class FloatTextTest {
    private static final long SEED = 0xF10A7L;

    private static String text(FloatText floats, double v, int style) {
        ByteWriter out = new ByteWriter(8);
        floats.append(v, style, out);
        return new String(out.buffer(), 0, out.length(), StandardCharsets.US_ASCII);
    }

    @Test
    void plainAndJsonTextsOfTypicalAndSpecialValues() {
        FloatText floats = new FloatText();
        Object[][] cases = {
            {0.005, "0.005", "0.005"}, {1.0, "1", "1"}, {2.5, "2.5", "2.5"}, {-0.0, "-0", "-0"}, {0.0, "0", "0"},
            {1e21, "1000000000000000000000", "1e+21"}, {1e20, "100000000000000000000", "100000000000000000000"},
            {1e-7, "0.0000001", "1e-7"}, {1.5e-6, "0.0000015", "0.0000015"}, {123456789.125, "123456789.125", "123456789.125"},
            {Double.MIN_VALUE, "0." + "0".repeat(323) + "5", "5e-324"}, {1.7976931348623157e308, null, "1.7976931348623157e+308"},
            {Double.NaN, "NaN", "NaN"}, {Double.POSITIVE_INFINITY, "+Inf", "Infinity"}, {Double.NEGATIVE_INFINITY, "-Inf", "-Infinity"},
            {0.1 + 0.2, "0.30000000000000004", "0.30000000000000004"}, {-1234.5e10, "-12345000000000", "-12345000000000"},
        };
        for (Object[] c : cases) {
            double v = (Double) c[0];
            if (c[1] != null) {
                assertThat(text(floats, v, FloatText.PLAIN)).as("plain %s", v).isEqualTo(c[1]);
            }
            assertThat(text(floats, v, FloatText.JSON)).as("json %s", v).isEqualTo(c[2]);
        }
    }

    @Test
    void seededRandomTextsReadBackToTheSameDoubleAndAreShortest() {
        FloatText floats = new FloatText();
        Random random = new Random(SEED);
        for (int i = 0; i < 20_000; i++) {
            double v = Double.longBitsToDouble(random.nextLong());
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                continue;
            }
            String plain = text(floats, v, FloatText.PLAIN);
            assertThat(Double.doubleToRawLongBits(Double.parseDouble(plain))).as(plain).isEqualTo(Double.doubleToRawLongBits(v));
            String json = text(floats, v, FloatText.JSON);
            assertThat(Double.doubleToRawLongBits(Double.parseDouble(json))).as(json).isEqualTo(Double.doubleToRawLongBits(v));
            BigDecimal digits = new BigDecimal(plain).abs().stripTrailingZeros();
            for (RoundingMode mode : new RoundingMode[] {RoundingMode.FLOOR, RoundingMode.CEILING}) {
                if (digits.precision() > 1) {
                    BigDecimal shorter = digits.round(new MathContext(digits.precision() - 1, mode));
                    assertThat(shorter.doubleValue()).as("%s has a shorter text %s", plain, shorter).isNotEqualTo(Math.abs(v));
                }
            }
        }
    }

    @Test
    void cachedTextsCostNothingAndAFullCacheStartsAgain() {
        FloatText floats = new FloatText();
        double[] bounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
        ByteWriter out = new ByteWriter(1 << 16);
        for (int round = 0; round < 10_000; round++) {
            out.reset();
            for (double b : bounds) {
                floats.append(b, FloatText.PLAIN, out);
            }
        }
        long before = AllocationMeter.allocatedBytes();
        for (int round = 0; round < 10_000; round++) {
            out.reset();
            for (double b : bounds) {
                floats.append(b, FloatText.PLAIN, out);
            }
        }
        assertThat(AllocationMeter.allocatedBytes() - before).as("bytes allocated for 110,000 cached texts").isLessThan(1000);
        for (int i = 0; i < 5000; i++) {
            assertThat(text(floats, i + 0.5, FloatText.PLAIN)).isEqualTo(i + ".5");
        }
        assertThat(text(floats, 0.005, FloatText.PLAIN)).as("after the cache was emptied").isEqualTo("0.005");
    }
}
