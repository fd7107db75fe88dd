package io.sluice.server.format.otlp;

import io.sluice.server.format.ByteWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The text of doubles that become label values: histogram bounds ({@code le}), quantiles and double
 * attributes, in one of two styles, both with the shortest digits that read back to the same double
 * (and of those the closest, as Go's {@code strconv} chooses):
 * <ul>
 *   <li>{@link #PLAIN}: Go's {@code FormatFloat(v, 'f', -1, 64)}, which Prometheus' OTLP receiver uses
 *       for {@code le} and {@code quantile}: {@code 0.005}, {@code 1000000}, {@code -0}, {@code NaN},
 *       {@code +Inf}.
 *   <li>{@link #JSON}: a JSON number as Go's encoding/json writes it (plain from 1e-6 to 1e21, else
 *       {@code 1e+21}, {@code 1.5e-7}), and {@code NaN}, {@code Infinity}, {@code -Infinity}, as the
 *       OpenTelemetry attribute specification asks.
 * </ul>
 * Finding the digits allocates (Double.toString, BigDecimal), so texts are cached by bits and style:
 * a workload's bucket bounds and quantiles repeat in every record, so once they are cached nothing is
 * allocated. The cache holds up to 1,536 values and is emptied when full.
 *
 * <p>Not thread-safe; owned by one decoder.
 */
final class FloatText {
    static final int PLAIN = 0;
    static final int JSON = 1;

    private static final int SLOTS = 2048;
    private static final int MAX_ENTRIES = SLOTS * 3 / 4;

    private final long[] keys = new long[SLOTS];
    private final byte[] styles = new byte[SLOTS];
    private final boolean[] used = new boolean[SLOTS];
    private final int[] offsets = new int[SLOTS];
    private final int[] lengths = new int[SLOTS];
    private final ByteWriter texts = new ByteWriter(16 * 1024);
    private int entries;

    /** Appends the text of {@code value} in {@code style} to {@code out}. */
    void append(double value, int style, ByteWriter out) {
        long bits = Double.doubleToRawLongBits(value);
        int slot = slot(bits, style);
        if (!used[slot]) {
            if (entries == MAX_ENTRIES) {
                Arrays.fill(used, false);
                texts.reset();
                entries = 0;
                slot = slot(bits, style);
            }
            byte[] text = format(value, style).getBytes(StandardCharsets.US_ASCII);
            used[slot] = true;
            keys[slot] = bits;
            styles[slot] = (byte) style;
            offsets[slot] = texts.length();
            lengths[slot] = text.length;
            texts.writeBytes(text, 0, text.length);
            entries++;
        }
        out.writeBytes(texts.buffer(), offsets[slot], lengths[slot]);
    }

    /** The slot holding {@code bits} in {@code style}, or the free slot where it belongs (linear probing). */
    private int slot(long bits, int style) {
        int slot = (int) (mix(bits) + style) & (SLOTS - 1);
        while (used[slot] && (keys[slot] != bits || styles[slot] != style)) {
            slot = (slot + 1) & (SLOTS - 1);
        }
        return slot;
    }

    private static long mix(long bits) {
        long h = bits * 0x9E37_79B9_7F4A_7C15L;
        return h ^ (h >>> 29);
    }

    /** The text itself (allocates; the cache keeps it off the steady path). */
    static String format(double value, int style) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return style == PLAIN ? (value > 0 ? "+Inf" : "-Inf") : (value > 0 ? "Infinity" : "-Infinity");
        }
        String sign = Double.doubleToRawLongBits(value) < 0 ? "-" : "";
        double magnitude = Math.abs(value);
        if (magnitude == 0) {
            return sign + "0";
        }
        BigDecimal digits = shortest(magnitude);
        if (style == JSON && (magnitude < 1e-6 || magnitude >= 1e21)) {
            return sign + exponentForm(digits);
        }
        return sign + digits.toPlainString();
    }

    /**
     * The shortest decimal that reads back to {@code magnitude}, the closest of those. Java's
     * Double.toString gives it, except that where one digit would do it may give two that lie closer
     * (4.9E-324 where Go writes 5e-324): then the closer one-digit neighbour that reads back is taken.
     */
    static BigDecimal shortest(double magnitude) {
        BigDecimal digits = new BigDecimal(Double.toString(magnitude)).stripTrailingZeros();
        if (digits.precision() != 2) {
            return digits;
        }
        BigDecimal exact = new BigDecimal(magnitude);
        BigDecimal best = null;
        for (RoundingMode mode : new RoundingMode[] {RoundingMode.FLOOR, RoundingMode.CEILING}) {
            BigDecimal candidate = digits.round(new MathContext(1, mode));
            if (candidate.doubleValue() != magnitude) {
                continue;
            }
            if (best == null) {
                best = candidate;
                continue;
            }
            int closer = candidate.subtract(exact).abs().compareTo(best.subtract(exact).abs());
            if (closer < 0 || (closer == 0 && !candidate.unscaledValue().testBit(0))) {
                best = candidate;
            }
        }
        return best == null ? digits : best.stripTrailingZeros();
    }

    /** Go's 'e' form with encoding/json's clean-up: {@code 1e+21}, {@code 1.2345e-7}. */
    private static String exponentForm(BigDecimal digits) {
        String unscaled = digits.unscaledValue().toString();
        int exponent = unscaled.length() - 1 - digits.scale();
        String mantissa = unscaled.length() == 1 ? unscaled : unscaled.charAt(0) + "." + unscaled.substring(1);
        String exponentDigits = exponent < 0 || Math.abs(exponent) >= 10 ? Integer.toString(Math.abs(exponent))
                : "0" + exponent;
        return mantissa + "e" + (exponent < 0 ? "-" : "+") + exponentDigits;
    }
}
