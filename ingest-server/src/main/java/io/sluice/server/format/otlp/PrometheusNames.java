package io.sluice.server.format.otlp;

import io.sluice.server.format.ByteWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * OTLP names to Prometheus names, as the OpenTelemetry "Prometheus and OpenMetrics Compatibility"
 * specification and Prometheus' own OTLP receiver (its default {@code UnderscoreEscapingWithSuffixes}
 * translation) do it, in place and without allocating:
 *
 * <ul>
 *   <li>Metric names: split into tokens at every character outside {@code [a-zA-Z0-9:]} (so runs of
 *       such characters, underscores included, become one '_'); the unit's words are appended as tokens
 *       unless the name already has them ({@code s} → {@code seconds}, {@code By/s} →
 *       {@code bytes_per_second}, {@code {packet}} dropped, unknown units kept, cleaned); monotonic
 *       counters end in {@code total}, gauges with unit {@code 1} in {@code ratio} (any earlier such token
 *       moves to the end); tokens joined with '_'; a leading digit gets a '_' before it.
 *   <li>Label names: characters outside {@code [a-zA-Z0-9]} become '_', runs of '_' collapse to one,
 *       except that a name {@code __x__} keeps its double underscores around the sanitized {@code x}; a
 *       leading digit gets {@code key_} before it; a name that is empty or all underscores is invalid.
 * </ul>
 *
 * <p>Not thread-safe (it reuses token arrays); owned by one decoder.
 */
final class PrometheusNames {
    private static final byte[][] UNITS = pairs(
            "d", "days", "h", "hours", "min", "minutes", "s", "seconds", "ms", "milliseconds", "us", "microseconds",
            "ns", "nanoseconds", "By", "bytes", "KiBy", "kibibytes", "MiBy", "mebibytes", "GiBy", "gibibytes",
            "TiBy", "tibibytes", "KBy", "kilobytes", "MBy", "megabytes", "GBy", "gigabytes", "TBy", "terabytes",
            "m", "meters", "V", "volts", "A", "amperes", "J", "joules", "W", "watts", "g", "grams",
            "Cel", "celsius", "Hz", "hertz", "1", "", "%", "percent");
    private static final byte[][] PER_UNITS = pairs(
            "s", "second", "m", "minute", "h", "hour", "d", "day", "w", "week", "mo", "month", "y", "year");
    private static final byte[] TOTAL = ascii("total");
    private static final byte[] RATIO = ascii("ratio");
    private static final byte[] PER = ascii("per_");
    private static final byte[] KEY_PREFIX = ascii("key_");

    /** The kinds of metric whose names get a type suffix. */
    static final int GAUGE = 0;
    static final int COUNTER = 1;
    static final int OTHER = 2;

    /** Token i of the name being built: in {@code tokenSource[i]} (0 the input name, 1 {@link #unitText}). */
    private int[] tokenSource = new int[16];
    private int[] tokenOffset = new int[16];
    private int[] tokenLength = new int[16];
    private int tokens;
    private final ByteWriter unitText = new ByteWriter(64);

    /**
     * Writes the Prometheus name of an OTLP metric to {@code out} (reset first); returns false if it is
     * empty, so that the metric cannot be stored.
     */
    boolean metricName(byte[] name, int nameOff, int nameLen, byte[] unit, int unitOff, int unitLen, int kind, ByteWriter out) {
        tokens = 0;
        unitText.reset();
        for (int i = nameOff, end = nameOff + nameLen; i < end; ) {
            while (i < end && !isMetricChar(name[i])) {
                i++;
            }
            int start = i;
            while (i < end && isMetricChar(name[i])) {
                i++;
            }
            if (i > start) {
                addToken(0, start, i - start);
            }
        }
        addUnitTokens(name, unit, unitOff, unitLen);
        if (kind == COUNTER) {
            moveToEnd(name, TOTAL);
        }
        if (kind == GAUGE && unitLen == 1 && unit[unitOff] == '1') {
            moveToEnd(name, RATIO);
        }
        out.reset();
        if (tokens > 0 && isDigit((tokenSource[0] == 0 ? name : unitText.buffer())[tokenOffset[0]])) {
            out.writeByte('_'); // a metric name cannot start with a digit
        }
        for (int t = 0; t < tokens; t++) {
            if (t > 0) {
                out.writeByte('_');
            }
            out.writeBytes(tokenSource[t] == 0 ? name : unitText.buffer(), tokenOffset[t], tokenLength[t]);
        }
        return out.length() > 0;
    }

    /**
     * Writes the Prometheus label name of an attribute key to {@code out} (appended at its end); returns
     * false if the key is invalid (empty, or nothing but underscores once sanitized), in which case
     * {@code out} is left as it was.
     */
    static boolean labelName(byte[] key, int off, int len, ByteWriter out) {
        if (len == 0) {
            return false;
        }
        int mark = out.length();
        boolean reserved = len >= 4 && key[off] == '_' && key[off + 1] == '_' && key[off + len - 2] == '_' && key[off + len - 1] == '_';
        if (reserved) {
            out.writeByte('_');
            out.writeByte('_');
            sanitize(key, off + 2, len - 4, out);
            out.writeByte('_');
            out.writeByte('_');
        } else {
            if (isDigit(key[off])) {
                out.writeBytes(KEY_PREFIX, 0, KEY_PREFIX.length);
            }
            sanitize(key, off, len, out);
        }
        byte[] b = out.buffer();
        for (int i = mark; i < out.length(); i++) {
            if (b[i] != '_') {
                return true;
            }
        }
        out.truncate(mark);
        return false;
    }

    /** Whether a key is already a valid, collapsed label name, so that it can be used as it is. */
    static boolean isCleanLabelName(byte[] key, int off, int len) {
        if (len == 0 || isDigit(key[off])) {
            return false;
        }
        int from = off;
        int to = off + len;
        if (len >= 4 && key[off] == '_' && key[off + 1] == '_' && key[to - 2] == '_' && key[to - 1] == '_') {
            from += 2;
            to -= 2;
        }
        boolean previousUnderscore = false;
        boolean sawOther = false;
        for (int i = from; i < to; i++) {
            byte c = key[i];
            if (c == '_') {
                if (previousUnderscore) {
                    return false;
                }
                previousUnderscore = true;
            } else if (isLabelChar(c)) {
                previousUnderscore = false;
                sawOther = true;
            } else {
                return false;
            }
        }
        return sawOther;
    }

    private static void sanitize(byte[] key, int off, int len, ByteWriter out) {
        boolean previousUnderscore = false;
        for (int i = off; i < off + len; i++) {
            byte c = key[i];
            if (isLabelChar(c)) {
                out.writeByte(c);
                previousUnderscore = false;
            } else if (!previousUnderscore) {
                out.writeByte('_');
                previousUnderscore = true;
            }
        }
    }

    /** Splits the unit at its first '/', maps both parts to words and appends those the name lacks. */
    private void addUnitTokens(byte[] name, byte[] unit, int off, int len) {
        int slash = indexOf(unit, off, len, (byte) '/');
        int mainEnd = slash < 0 ? off + len : slash;
        int mainStart = unitText.length();
        int mainLen = unitWord(unit, off, mainEnd - off, UNITS, false);
        int perStart = unitText.length();
        int perLen = slash < 0 ? 0 : unitWord(unit, slash + 1, off + len - slash - 1, PER_UNITS, true);
        if (perLen > 0 && unitText.buffer()[perStart + perLen - 1] == '_') {
            perLen--;
        }
        if (perLen == PER.length - 1 && startsWith(unitText.buffer(), perStart, PER, PER.length - 1)) {
            perLen = 0; // "per" alone, once its trailing '_' went
        }
        if (perLen > 0 && hasToken(name, unitText.buffer(), perStart, perLen)) {
            perLen = 0;
        }
        if (mainLen > 0 && hasToken(name, unitText.buffer(), mainStart, mainLen)) {
            mainLen = 0;
        }
        if (perLen > 0 && mainLen > 0 && unitText.buffer()[mainStart + mainLen - 1] == '_') {
            mainLen--;
        }
        if (mainLen > 0) {
            addToken(1, mainStart, mainLen);
        }
        if (perLen > 0) {
            addToken(1, perStart, perLen);
        }
    }

    /**
     * Writes the cleaned word for one part of a unit to {@link #unitText}: trimmed of spaces, dropped if
     * empty or holding '{' or '}', mapped through {@code table} if listed, "per_" put before a per-unit;
     * then characters outside {@code [a-zA-Z0-9:]} become '_', runs of '_' collapse and one leading '_'
     * goes. Returns its length.
     */
    private int unitWord(byte[] unit, int off, int len, byte[][] table, boolean per) {
        while (len > 0 && unit[off] == ' ') {
            off++;
            len--;
        }
        while (len > 0 && unit[off + len - 1] == ' ') {
            len--;
        }
        if (len == 0 || indexOf(unit, off, len, (byte) '{') >= 0 || indexOf(unit, off, len, (byte) '}') >= 0) {
            return 0;
        }
        byte[] word = unit;
        int wordOff = off;
        int wordLen = len;
        for (int i = 0; i < table.length; i += 2) {
            if (Arrays.equals(table[i], 0, table[i].length, unit, off, off + len)) {
                word = table[i + 1];
                wordOff = 0;
                wordLen = word.length;
                break;
            }
        }
        if (wordLen == 0) {
            return 0;
        }
        int start = unitText.length();
        boolean previousUnderscore = false;
        if (per) {
            unitText.writeBytes(PER, 0, PER.length);
            previousUnderscore = true;
        }
        for (int i = wordOff; i < wordOff + wordLen; i++) {
            byte c = isMetricChar(word[i]) ? word[i] : (byte) '_';
            if (c != '_' || !previousUnderscore) {
                unitText.writeByte(c);
            }
            previousUnderscore = c == '_';
        }
        if (!per && unitText.length() > start && unitText.buffer()[start] == '_') {
            byte[] b = unitText.buffer();
            System.arraycopy(b, start + 1, b, start, unitText.length() - start - 1);
            unitText.truncate(unitText.length() - 1);
        }
        return unitText.length() - start;
    }

    /** Removes every token equal to {@code word} and appends one at the end. */
    private void moveToEnd(byte[] name, byte[] word) {
        int kept = 0;
        for (int t = 0; t < tokens; t++) {
            if (!tokenEquals(name, t, word, 0, word.length)) {
                tokenSource[kept] = tokenSource[t];
                tokenOffset[kept] = tokenOffset[t];
                tokenLength[kept] = tokenLength[t];
                kept++;
            }
        }
        tokens = kept;
        int at = unitText.length();
        unitText.writeBytes(word, 0, word.length);
        addToken(1, at, word.length);
    }

    private boolean hasToken(byte[] name, byte[] word, int off, int len) {
        for (int t = 0; t < tokens; t++) {
            if (tokenEquals(name, t, word, off, len)) {
                return true;
            }
        }
        return false;
    }

    private boolean tokenEquals(byte[] name, int t, byte[] word, int off, int len) {
        byte[] source = tokenSource[t] == 0 ? name : unitText.buffer();
        return Arrays.equals(source, tokenOffset[t], tokenOffset[t] + tokenLength[t], word, off, off + len);
    }

    private void addToken(int source, int off, int len) {
        if (tokens == tokenSource.length) {
            tokenSource = Arrays.copyOf(tokenSource, 2 * tokens);
            tokenOffset = Arrays.copyOf(tokenOffset, 2 * tokens);
            tokenLength = Arrays.copyOf(tokenLength, 2 * tokens);
        }
        tokenSource[tokens] = source;
        tokenOffset[tokens] = off;
        tokenLength[tokens] = len;
        tokens++;
    }

    private static int indexOf(byte[] b, int off, int len, byte c) {
        for (int i = off; i < off + len; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static boolean startsWith(byte[] b, int off, byte[] prefix, int prefixLen) {
        return Arrays.equals(b, off, off + prefixLen, prefix, 0, prefixLen);
    }

    static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLabelChar(byte c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c);
    }

    private static boolean isMetricChar(byte c) {
        return isLabelChar(c) || c == ':';
    }

    private static byte[][] pairs(String... words) {
        byte[][] table = new byte[words.length][];
        for (int i = 0; i < words.length; i++) {
            table[i] = ascii(words[i]);
        }
        return table;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
