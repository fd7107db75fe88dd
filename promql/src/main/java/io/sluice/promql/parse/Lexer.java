package io.sluice.promql.parse;

import java.util.Locale;

/**
 * PromQL's lexer: produces one token at a time (the parser looks one token ahead), with the modes
 * Prometheus' lexer has: inside braces (label matchers), inside brackets (ranges and subquery steps)
 * and the rest. The first lexical error ends the parse with Prometheus' message and position.
 */
final class Lexer {
    private static final int EOF_CHAR = -1;

    private final String input;
    private int pos;
    private int start;
    private int parenDepth;
    private boolean braceOpen;
    private boolean bracketOpen;
    private boolean gotColon;
    private boolean gotDuration;
    private boolean inDurationExpr;

    Lexer(String input) {
        this.input = input;
    }

    /** The next token that is not a comment. */
    Token next() {
        while (true) {
            Token t = scan();
            if (t.type() != TokenType.COMMENT) {
                return t;
            }
        }
    }

    private Token scan() {
        while (true) {
            if (inDurationExpr) {
                Token t = scanDurationExpr();
                if (t != null) {
                    return t;
                }
                continue;
            }
            if (braceOpen) {
                Token t = scanInsideBraces();
                if (t != null) {
                    return t;
                }
                continue;
            }
            if (input.startsWith("#", pos)) {
                return lineComment();
            }
            int r = nextChar();
            switch (r) {
                case EOF_CHAR -> {
                    if (parenDepth != 0) {
                        throw error("unclosed left parenthesis");
                    }
                    if (bracketOpen) {
                        throw error("unclosed left bracket");
                    }
                    return emit(TokenType.EOF);
                }
                case ',' -> {
                    return emit(TokenType.COMMA);
                }
                case ' ', '\t', '\n', '\r' -> {
                    skipSpaces();
                    continue;
                }
                case '*' -> {
                    return emit(TokenType.MUL);
                }
                case '/' -> {
                    return emit(TokenType.DIV);
                }
                case '%' -> {
                    return emit(TokenType.MOD);
                }
                case '+' -> {
                    return emit(TokenType.ADD);
                }
                case '-' -> {
                    return emit(TokenType.SUB);
                }
                case '^' -> {
                    return emit(TokenType.POW);
                }
                case '=' -> {
                    int t = peekChar();
                    if (t == '=') {
                        nextChar();
                        return emit(TokenType.EQLC);
                    }
                    if (t == '~') {
                        throw error("unexpected character after '=': " + GoStrings.quoteRune(t));
                    }
                    return emit(TokenType.EQL);
                }
                case '!' -> {
                    int t = nextChar();
                    if (t != '=') {
                        throw error("unexpected character after '!': " + GoStrings.quoteRune(t));
                    }
                    return emit(TokenType.NEQ);
                }
                case '<' -> {
                    int t = peekChar();
                    if (t == '=') {
                        nextChar();
                        return emit(TokenType.LTE);
                    }
                    if (t == '/') {
                        nextChar();
                        return emit(TokenType.TRIM_UPPER);
                    }
                    return emit(TokenType.LSS);
                }
                case '>' -> {
                    int t = peekChar();
                    if (t == '=') {
                        nextChar();
                        return emit(TokenType.GTE);
                    }
                    if (t == '/') {
                        nextChar();
                        return emit(TokenType.TRIM_LOWER);
                    }
                    return emit(TokenType.GTR);
                }
                case '"', '\'' -> {
                    return string((char) r);
                }
                case '`' -> {
                    return rawString();
                }
                case '(' -> {
                    parenDepth++;
                    return emit(TokenType.LEFT_PAREN);
                }
                case ')' -> {
                    Token t = emit(TokenType.RIGHT_PAREN);
                    parenDepth--;
                    if (parenDepth < 0) {
                        throw error("unexpected right parenthesis " + GoStrings.quoteRune(')'));
                    }
                    return t;
                }
                case '{' -> {
                    braceOpen = true;
                    return emit(TokenType.LEFT_BRACE);
                }
                case '[' -> {
                    if (bracketOpen) {
                        throw error("unexpected left bracket " + GoStrings.quoteRune('['));
                    }
                    gotColon = false;
                    Token t = emit(TokenType.LEFT_BRACKET);
                    skipSpaces();
                    bracketOpen = true;
                    inDurationExpr = true;
                    return t;
                }
                case ']' -> {
                    if (!bracketOpen) {
                        throw error("unexpected right bracket " + GoStrings.quoteRune(']'));
                    }
                    bracketOpen = false;
                    return emit(TokenType.RIGHT_BRACKET);
                }
                case '@' -> {
                    return emit(TokenType.AT);
                }
                default -> {
                    if (isDigit(r) || (r == '.' && isDigit(peekChar()))) {
                        backup(r);
                        return numberOrDuration();
                    }
                    if (isAlpha(r) || r == ':') {
                        if (!bracketOpen) {
                            backup(r);
                            return keywordOrIdentifier();
                        }
                        if (r == ':') {
                            if (gotColon) {
                                throw error("unexpected colon " + GoStrings.quoteRune(':'));
                            }
                            gotColon = true;
                            return emit(TokenType.COLON);
                        }
                        if (isDurationKeywordStart(r)) {
                            Token t = durationKeyword();
                            if (t != null) {
                                return t;
                            }
                        }
                        throw error("unexpected character: " + GoStrings.quoteRune(r) + ", expected " + GoStrings.quoteRune(':'));
                    }
                    throw error("unexpected character: " + GoStrings.quoteRune(r));
                }
            }
        }
    }

    /** Inside {@code [...]}: numbers, durations, colon, and the duration-expression tokens. Null: skipped space. */
    private Token scanDurationExpr() {
        int r = nextChar();
        switch (r) {
            case EOF_CHAR -> throw error("unexpected end of input in duration expression");
            case ']' -> {
                bracketOpen = false;
                gotColon = false;
                inDurationExpr = false;
                return emit(TokenType.RIGHT_BRACKET);
            }
            case ':' -> {
                Token t = emit(TokenType.COLON);
                if (!gotDuration) {
                    throw error("unexpected colon before duration in duration expression");
                }
                if (gotColon) {
                    throw error("unexpected repeated colon in duration expression");
                }
                gotColon = true;
                return t;
            }
            case '(' -> {
                parenDepth++;
                return emit(TokenType.LEFT_PAREN);
            }
            case ')' -> {
                Token t = emit(TokenType.RIGHT_PAREN);
                parenDepth--;
                if (parenDepth < 0) {
                    throw error("unexpected right parenthesis " + GoStrings.quoteRune(')'));
                }
                return t;
            }
            case ' ', '\t', '\n', '\r' -> {
                skipSpaces();
                return null;
            }
            case '+' -> {
                return emit(TokenType.ADD);
            }
            case '-' -> {
                return emit(TokenType.SUB);
            }
            case '*' -> {
                return emit(TokenType.MUL);
            }
            case '/' -> {
                return emit(TokenType.DIV);
            }
            case '%' -> {
                return emit(TokenType.MOD);
            }
            case '^' -> {
                return emit(TokenType.POW);
            }
            case ',' -> {
                return emit(TokenType.COMMA);
            }
            default -> {
                if (isDurationKeywordStart(r)) {
                    Token t = durationKeyword();
                    if (t != null) {
                        return t;
                    }
                    throw error("unexpected character in duration expression: " + GoStrings.quoteRune(r));
                }
                if (isDigit(r) || (r == '.' && isDigit(peekChar()))) {
                    backup(r);
                    gotDuration = true;
                    inDurationExpr = false;
                    return numberOrDuration();
                }
                throw error("unexpected character in duration expression: " + GoStrings.quoteRune(r));
            }
        }
    }

    /** Inside {@code {...}}: label names, strings, matcher operators. Null: skipped space or comment. */
    private Token scanInsideBraces() {
        if (input.startsWith("#", pos)) {
            return lineComment();
        }
        int r = nextChar();
        switch (r) {
            case EOF_CHAR -> throw error("unexpected end of input inside braces");
            case ' ', '\t', '\n', '\r' -> {
                skipSpaces();
                return null;
            }
            case ',' -> {
                return emit(TokenType.COMMA);
            }
            case '"', '\'' -> {
                return string((char) r);
            }
            case '`' -> {
                return rawString();
            }
            case '=' -> {
                if (peekChar() == '~') {
                    nextChar();
                    return emit(TokenType.EQL_REGEX);
                }
                return emit(TokenType.EQL);
            }
            case '!' -> {
                int nr = nextChar();
                if (nr == '~') {
                    return emit(TokenType.NEQ_REGEX);
                }
                if (nr == '=') {
                    return emit(TokenType.NEQ);
                }
                throw error("unexpected character after '!' inside braces: " + GoStrings.quoteRune(nr));
            }
            case '{' -> throw error("unexpected left brace " + GoStrings.quoteRune('{'));
            case '}' -> {
                braceOpen = false;
                return emit(TokenType.RIGHT_BRACE);
            }
            default -> {
                if (isAlpha(r)) {
                    while (isAlphaNumeric(peekChar())) {
                        nextChar();
                    }
                    return emit(TokenType.IDENTIFIER);
                }
                throw error("unexpected character inside braces: " + GoStrings.quoteRune(r));
            }
        }
    }

    private Token lineComment() {
        pos++;
        while (pos < input.length() && input.charAt(pos) != '\n' && input.charAt(pos) != '\r') {
            pos++;
        }
        return emit(TokenType.COMMENT);
    }

    private Token durationKeyword() {
        int save = pos;
        while (isAlpha(peekChar())) {
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

    private static boolean isDurationKeywordStart(int r) {
        int l = Character.toLowerCase(r);
        return l == 's' || l == 'r' || l == 'm';
    }

    private Token keywordOrIdentifier() {
        while (true) {
            int r = nextChar();
            if (!(isAlphaNumeric(r) || r == ':')) {
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
            if (!isSpace(c)) {
                return c == '(';
            }
        }
        return false;
    }

    private Token numberOrDuration() {
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
        if (isAlphaNumeric(r)) {
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
                if (accept("._eE") || peekChar() == EOF_CHAR) {
                    return false;
                }
                continue;
            }
            if (accept("_")) {
                if (accept("._eE") || peekChar() == EOF_CHAR) {
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
        return !isAlphaNumeric(peekChar());
    }

    private Token string(char quote) {
        // start is at the opening quote; validate escapes as Prometheus' lexer does, then unquote.
        while (true) {
            int c = nextChar();
            if (c == '\\') {
                escape(quote);
            } else if (c == 0xFFFD) {
                throw error("invalid UTF-8 rune");
            } else if (c == EOF_CHAR || c == '\n') {
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
            case EOF_CHAR -> throw error("escape sequence not terminated");
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
                if (ch == EOF_CHAR) {
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

    private Token rawString() {
        while (true) {
            int c = nextChar();
            if (c == 0xFFFD) {
                throw error("invalid UTF-8 rune");
            }
            if (c == EOF_CHAR) {
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

    private int nextChar() {
        if (pos >= input.length()) {
            return EOF_CHAR;
        }
        int cp = input.codePointAt(pos);
        pos += Character.charCount(cp);
        return cp;
    }

    private void backup(int cp) {
        if (cp != EOF_CHAR) {
            pos -= Character.charCount(cp);
        }
    }

    private int peekChar() {
        return pos >= input.length() ? EOF_CHAR : input.codePointAt(pos);
    }

    private boolean accept(String valid) {
        int c = peekChar();
        if (c != EOF_CHAR && c < 0x80 && valid.indexOf(c) >= 0) {
            pos++;
            return true;
        }
        return false;
    }

    private boolean is(String valid) {
        int c = peekChar();
        return c != EOF_CHAR && c < 0x80 && valid.indexOf(c) >= 0;
    }

    private void skipSpaces() {
        while (pos < input.length() && isSpace(input.charAt(pos))) {
            pos++;
        }
        start = pos;
    }

    private Token emit(TokenType type) {
        return emit(type, null);
    }

    private Token emit(TokenType type, String value) {
        Token t = new Token(type, start, input.substring(start, pos), value);
        start = pos;
        return t;
    }

    private io.sluice.promql.ParseException error(String msg) {
        return Errors.at(input, start, input.length(), msg);
    }

    static boolean isSpace(int r) {
        return r == ' ' || r == '\t' || r == '\n' || r == '\r';
    }

    static boolean isDigit(int r) {
        return r >= '0' && r <= '9';
    }

    static boolean isAlpha(int r) {
        return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
    }

    static boolean isAlphaNumeric(int r) {
        return isAlpha(r) || isDigit(r);
    }
}
