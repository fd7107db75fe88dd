package io.sluice.promql.parse;

import java.util.Locale;

/**
 * The lexer's characters and lexemes: the position in the input, the start of the token being read, and
 * the scanning of numbers, durations, identifiers and keywords, strings and comments. {@link Lexer} picks
 * which to scan from the first character and its mode.
 */
final class LexemeScanner {
    private final String input;
    private int pos;
    private int start;

    LexemeScanner(String input) {
        this.input = input;
    }

    /** Whether a {@code #} comment starts at the position. */
    boolean atComment() {
        return input.startsWith("#", pos);
    }

    Token lineComment() {
        pos++;
        while (pos < input.length() && input.charAt(pos) != '\n' && input.charAt(pos) != '\r') {
            pos++;
        }
        return emit(TokenType.COMMENT);
    }

    Token durationKeyword() {
        int save = pos;
        while (Lexer.isAlpha(peekChar())) {
            nextChar();
        }
        String word = input.substring(start, pos).toLowerCase(Locale.ROOT);
        TokenType t = switch (word) {
            case "step" -> TokenType.STEP;
            case "range" -> TokenType.RANGE;
            case "max_of" -> TokenType.MAX_OF;
            case "min_of" -> TokenType.MIN_OF;
            default -> null;
        };
        if (t == null) {
            pos = save;
            return null;
        }
        return emit(t);
    }

    static boolean isDurationKeywordStart(int r) {
        int l = Character.toLowerCase(r);
        return l == 's' || l == 'r' || l == 'm';
    }

    Token keywordOrIdentifier() {
        while (true) {
            int r = nextChar();
            if (!(Lexer.isAlphaNumeric(r) || r == ':')) {
                backup(r);
                break;
            }
        }
        String word = input.substring(start, pos);
        String lower = word.toLowerCase(Locale.ROOT);
        if (lower.equals("inf") || lower.equals("nan")) {
            return emit(TokenType.NUMBER);
        }
        TokenType kw = TokenType.keyword(lower);
        if (kw != null) {
            if ((kw == TokenType.FILL || kw == TokenType.FILL_LEFT || kw == TokenType.FILL_RIGHT) && !followedByLeftParen()) {
                return emit(TokenType.IDENTIFIER);
            }
            return emit(kw);
        }
        return emit(word.indexOf(':') >= 0 ? TokenType.METRIC_IDENTIFIER : TokenType.IDENTIFIER);
    }

    private boolean followedByLeftParen() {
        for (int i = pos; i < input.length(); i++) {
            char c = input.charAt(i);
            if (!Lexer.isSpace(c)) {
                return c == '(';
            }
        }
        return false;
    }

    Token numberOrDuration() {
        if (scanNumber()) {
            return emit(TokenType.NUMBER);
        }
        if (acceptRemainingDuration()) {
            return emit(TokenType.DURATION);
        }
        throw error("bad number or duration syntax: " + GoStrings.quote(input.substring(start, pos)));
    }

    /** After a number that stopped at a letter: the rest of a duration ({@code 1h30m}, {@code 5ms}). */
    private boolean acceptRemainingDuration() {
        if (!accept("smhdwy")) {
            return false;
        }
        accept("s");
        while (accept("0123456789")) {
            while (accept("0123456789")) {
                // digits
            }
            if (!accept("smhdw")) {
                return false;
            }
            accept("s");
        }
        int r = peekChar();
        if (Lexer.isAlphaNumeric(r)) {
            nextChar();
            return false;
        }
        return true;
    }

    private boolean scanNumber() {
        int initial = pos;
        String digits = "0123456789";
        if (accept("0") && accept("xX")) {
            accept("_");
            digits = "0123456789abcdefABCDEF";
        }
        boolean hex = digits.length() > 10;
        accept(".");
        accept(digits);
        boolean dotConsumed = false;
        boolean exponentConsumed = false;
        String loop = digits + "._eE";
        while (is(loop)) {
            if (is(".") && dotConsumed) {
                accept(".");
                return false;
            }
            if (is("eE") && exponentConsumed) {
                accept("eE");
                return false;
            }
            if (accept(".")) {
                dotConsumed = true;
                if (accept("_.")) {
                    return false;
                }
                if (hex) {
                    return false;
                }
                continue;
            }
            if (accept("eE")) {
                exponentConsumed = true;
                accept("+-");
                if (accept("._eE") || peekChar() == Lexer.EOF_CHAR) {
                    return false;
                }
                continue;
            }
            if (accept("_")) {
                if (accept("._eE") || peekChar() == Lexer.EOF_CHAR) {
                    return false;
                }
                continue;
            }
            while (accept(digits)) {
                // run
            }
        }
        if (pos == initial) {
            return false;
        }
        return !Lexer.isAlphaNumeric(peekChar());
    }

    Token string(char quote) {
        // start is at the opening quote; validate escapes as Prometheus' lexer does, then unquote.
        while (true) {
            int c = nextChar();
            if (c == '\\') {
                escape(quote);
            } else if (c == 0xFFFD) {
                throw error("invalid UTF-8 rune");
            } else if (c == Lexer.EOF_CHAR || c == '\n') {
                throw error("unterminated quoted string");
            } else if (c == quote) {
                break;
            }
        }
        String text = input.substring(start, pos);
        return emit(TokenType.STRING, Literals.unquote(text));
    }

    private void escape(char quote) {
        int ch = nextChar();
        int n;
        int base;
        int max;
        switch (ch) {
            case 'a', 'b', 'f', 'n', 'r', 't', 'v', '\\' -> {
                return;
            }
            case '0', '1', '2', '3', '4', '5', '6', '7' -> {
                n = 3;
                base = 8;
                max = 255;
            }
            case 'x' -> {
                ch = nextChar();
                n = 2;
                base = 16;
                max = 255;
            }
            case 'u' -> {
                ch = nextChar();
                n = 4;
                base = 16;
                max = 0x10FFFF;
            }
            case 'U' -> {
                ch = nextChar();
                n = 8;
                base = 16;
                max = 0x10FFFF;
            }
            case Lexer.EOF_CHAR -> throw error("escape sequence not terminated");
            default -> {
                if (ch == quote) {
                    return;
                }
                throw error("unknown escape sequence " + GoStrings.unicodeName(ch));
            }
        }
        long x = 0;
        while (n > 0) {
            int d = Literals.digitVal(ch);
            if (d >= base) {
                if (ch == Lexer.EOF_CHAR) {
                    throw error("escape sequence not terminated");
                }
                throw error("illegal character " + GoStrings.unicodeName(ch) + " in escape sequence");
            }
            x = x * base + d;
            n--;
            if (n > 0) {
                ch = nextChar();
            }
        }
        if (x > max || (x >= 0xD800 && x < 0xE000)) {
            throw error("escape sequence is an invalid Unicode code point");
        }
    }

    Token rawString() {
        while (true) {
            int c = nextChar();
            if (c == 0xFFFD) {
                throw error("invalid UTF-8 rune");
            }
            if (c == Lexer.EOF_CHAR) {
                throw error("unterminated raw string");
            }
            if (c == '`') {
                break;
            }
        }
        String text = input.substring(start, pos);
        return emit(TokenType.STRING, text.substring(1, text.length() - 1));
    }

    // --- character helpers ---

    int nextChar() {
        if (pos >= input.length()) {
            return Lexer.EOF_CHAR;
        }
        int cp = input.codePointAt(pos);
        pos += Character.charCount(cp);
        return cp;
    }

    void backup(int cp) {
        if (cp != Lexer.EOF_CHAR) {
            pos -= Character.charCount(cp);
        }
    }

    int peekChar() {
        return pos >= input.length() ? Lexer.EOF_CHAR : input.codePointAt(pos);
    }

    private boolean accept(String valid) {
        int c = peekChar();
        if (c != Lexer.EOF_CHAR && c < 0x80 && valid.indexOf(c) >= 0) {
            pos++;
            return true;
        }
        return false;
    }

    private boolean is(String valid) {
        int c = peekChar();
        return c != Lexer.EOF_CHAR && c < 0x80 && valid.indexOf(c) >= 0;
    }

    void skipSpaces() {
        while (pos < input.length() && Lexer.isSpace(input.charAt(pos))) {
            pos++;
        }
        start = pos;
    }

    Token emit(TokenType type) {
        return emit(type, null);
    }

    Token emit(TokenType type, String value) {
        Token t = new Token(type, start, input.substring(start, pos), value);
        start = pos;
        return t;
    }

    io.sluice.promql.ParseException error(String msg) {
        return Errors.at(input, start, input.length(), msg);
    }
}
