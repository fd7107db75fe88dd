package io.sluice.promql.parse;

import java.nio.charset.StandardCharsets;

/** Go's quoting rules ({@code strconv.Quote}, {@code %q}, {@code %#U}), so texts match Prometheus'. */
public final class GoStrings {
    private GoStrings() {
    }

    /** {@code strconv.Quote}: double quotes, Go escapes for non-printable characters. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            appendEscaped(sb, cp, '"');
        }
        return sb.append('"').toString();
    }

    /** {@code %q} of a rune: single quotes. A negative rune (end of input) prints as U+FFFD, as Go does. */
    static String quoteRune(int cp) {
        if (cp < 0) {
            cp = 0xFFFD;
        }
        StringBuilder sb = new StringBuilder(8).append('\'');
        appendEscaped(sb, cp, '\'');
        return sb.append('\'').toString();
    }

    /** {@code %#U}: {@code U+0027 '''}. */
    static String unicodeName(int cp) {
        if (cp < 0) {
            cp = 0xFFFD;
        }
        String hex = Integer.toHexString(cp).toUpperCase(java.util.Locale.ROOT);
        String s = "U+" + "0".repeat(Math.max(0, 4 - hex.length())) + hex;
        return isPrint(cp) ? s + " '" + new String(Character.toChars(cp)) + "'" : s;
    }

    private static void appendEscaped(StringBuilder sb, int cp, char quote) {
        if (cp == quote || cp == '\\') {
            sb.append('\\').appendCodePoint(cp);
            return;
        }
        if (isPrint(cp)) {
            sb.appendCodePoint(cp);
            return;
        }
        switch (cp) {
            case 7 -> sb.append("\\a");
            case '\b' -> sb.append("\\b");
            case '\f' -> sb.append("\\f");
            case '\n' -> sb.append("\\n");
            case '\r' -> sb.append("\\r");
            case '\t' -> sb.append("\\t");
            case 11 -> sb.append("\\v");
            default -> {
                if (cp < ' ' || cp == 0x7f) {
                    sb.append("\\x").append(hex(cp, 2));
                } else if (cp < 0x10000) {
                    sb.append("\\u").append(hex(cp, 4));
                } else {
                    sb.append("\\U").append(hex(cp, 8));
                }
            }
        }
    }

    private static String hex(int v, int digits) {
        String h = Integer.toHexString(v);
        return "0".repeat(Math.max(0, digits - h.length())) + h;
    }

    /** Go's {@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols and the ASCII space. */
    static boolean isPrint(int cp) {
        if (cp == ' ') {
            return true;
        }
        return switch (Character.getType(cp)) {
            case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER,
                 Character.MODIFIER_LETTER, Character.OTHER_LETTER, Character.NON_SPACING_MARK,
                 Character.ENCLOSING_MARK, Character.COMBINING_SPACING_MARK, Character.DECIMAL_DIGIT_NUMBER,
                 Character.LETTER_NUMBER, Character.OTHER_NUMBER, Character.CONNECTOR_PUNCTUATION,
                 Character.DASH_PUNCTUATION, Character.START_PUNCTUATION, Character.END_PUNCTUATION,
                 Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION,
                 Character.OTHER_PUNCTUATION, Character.MATH_SYMBOL, Character.CURRENCY_SYMBOL,
                 Character.MODIFIER_SYMBOL, Character.OTHER_SYMBOL -> true;
            default -> false;
        };
    }

    /** Length of a string in UTF-8 bytes. */
    public static int utf8Length(CharSequence s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** Decodes bytes as UTF-8 (invalid sequences become U+FFFD). */
    static String utf8(byte[] b, int len) {
        return new String(b, 0, len, StandardCharsets.UTF_8);
    }
}
