package io.sluice.promql.parse;

/**
 * PromQL's lexer: produces one token at a time (the parser looks one token ahead), with the modes
 * Prometheus' lexer has: inside braces (label matchers), inside brackets (ranges and subquery steps)
 * and the rest. The first lexical error ends the parse with Prometheus' message and position. The
 * characters and the lexemes (numbers, durations, identifiers, strings) are read by {@link LexemeScanner}.
 */
final class Lexer {
    static final int EOF_CHAR = -1;

    private final LexemeScanner sc;
    private int parenDepth;
    private boolean braceOpen;
    private boolean bracketOpen;
    private boolean gotColon;
    private boolean gotDuration;
    private boolean inDurationExpr;

    Lexer(String input) {
        this.sc = new LexemeScanner(input);
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
            if (sc.atComment()) {
                return sc.lineComment();
            }
            int r = sc.nextChar();
            switch (r) {
                case EOF_CHAR -> {
                    if (parenDepth != 0) {
                        throw sc.error("unclosed left parenthesis");
                    }
                    if (bracketOpen) {
                        throw sc.error("unclosed left bracket");
                    }
                    return sc.emit(TokenType.EOF);
                }
                case ',' -> {
                    return sc.emit(TokenType.COMMA);
                }
                case ' ', '\t', '\n', '\r' -> {
                    sc.skipSpaces();
                    continue;
                }
                case '*' -> {
                    return sc.emit(TokenType.MUL);
                }
                case '/' -> {
                    return sc.emit(TokenType.DIV);
                }
                case '%' -> {
                    return sc.emit(TokenType.MOD);
                }
                case '+' -> {
                    return sc.emit(TokenType.ADD);
                }
                case '-' -> {
                    return sc.emit(TokenType.SUB);
                }
                case '^' -> {
                    return sc.emit(TokenType.POW);
                }
                case '=' -> {
                    int t = sc.peekChar();
                    if (t == '=') {
                        sc.nextChar();
                        return sc.emit(TokenType.EQLC);
                    }
                    if (t == '~') {
                        throw sc.error("unexpected character after '=': " + GoStrings.quoteRune(t));
                    }
                    return sc.emit(TokenType.EQL);
                }
                case '!' -> {
                    int t = sc.nextChar();
                    if (t != '=') {
                        throw sc.error("unexpected character after '!': " + GoStrings.quoteRune(t));
                    }
                    return sc.emit(TokenType.NEQ);
                }
                case '<' -> {
                    int t = sc.peekChar();
                    if (t == '=') {
                        sc.nextChar();
                        return sc.emit(TokenType.LTE);
                    }
                    if (t == '/') {
                        sc.nextChar();
                        return sc.emit(TokenType.TRIM_UPPER);
                    }
                    return sc.emit(TokenType.LSS);
                }
                case '>' -> {
                    int t = sc.peekChar();
                    if (t == '=') {
                        sc.nextChar();
                        return sc.emit(TokenType.GTE);
                    }
                    if (t == '/') {
                        sc.nextChar();
                        return sc.emit(TokenType.TRIM_LOWER);
                    }
                    return sc.emit(TokenType.GTR);
                }
                case '"', '\'' -> {
                    return sc.string((char) r);
                }
                case '`' -> {
                    return sc.rawString();
                }
                case '(' -> {
                    parenDepth++;
                    return sc.emit(TokenType.LEFT_PAREN);
                }
                case ')' -> {
                    Token t = sc.emit(TokenType.RIGHT_PAREN);
                    parenDepth--;
                    if (parenDepth < 0) {
                        throw sc.error("unexpected right parenthesis " + GoStrings.quoteRune(')'));
                    }
                    return t;
                }
                case '{' -> {
                    braceOpen = true;
                    return sc.emit(TokenType.LEFT_BRACE);
                }
                case '[' -> {
                    if (bracketOpen) {
                        throw sc.error("unexpected left bracket " + GoStrings.quoteRune('['));
                    }
                    gotColon = false;
                    Token t = sc.emit(TokenType.LEFT_BRACKET);
                    sc.skipSpaces();
                    bracketOpen = true;
                    inDurationExpr = true;
                    return t;
                }
                case ']' -> {
                    if (!bracketOpen) {
                        throw sc.error("unexpected right bracket " + GoStrings.quoteRune(']'));
                    }
                    bracketOpen = false;
                    return sc.emit(TokenType.RIGHT_BRACKET);
                }
                case '@' -> {
                    return sc.emit(TokenType.AT);
                }
                default -> {
                    if (isDigit(r) || (r == '.' && isDigit(sc.peekChar()))) {
                        sc.backup(r);
                        return sc.numberOrDuration();
                    }
                    if (isAlpha(r) || r == ':') {
                        if (!bracketOpen) {
                            sc.backup(r);
                            return sc.keywordOrIdentifier();
                        }
                        if (r == ':') {
                            if (gotColon) {
                                throw sc.error("unexpected colon " + GoStrings.quoteRune(':'));
                            }
                            gotColon = true;
                            return sc.emit(TokenType.COLON);
                        }
                        if (LexemeScanner.isDurationKeywordStart(r)) {
                            Token t = sc.durationKeyword();
                            if (t != null) {
                                return t;
                            }
                        }
                        throw sc.error("unexpected character: " + GoStrings.quoteRune(r) + ", expected " + GoStrings.quoteRune(':'));
                    }
                    throw sc.error("unexpected character: " + GoStrings.quoteRune(r));
                }
            }
        }
    }

    /** Inside {@code [...]}: numbers, durations, colon, and the duration-expression tokens. Null: skipped space. */
    private Token scanDurationExpr() {
        int r = sc.nextChar();
        switch (r) {
            case EOF_CHAR -> throw sc.error("unexpected end of input in duration expression");
            case ']' -> {
                bracketOpen = false;
                gotColon = false;
                inDurationExpr = false;
                return sc.emit(TokenType.RIGHT_BRACKET);
            }
            case ':' -> {
                Token t = sc.emit(TokenType.COLON);
                if (!gotDuration) {
                    throw sc.error("unexpected colon before duration in duration expression");
                }
                if (gotColon) {
                    throw sc.error("unexpected repeated colon in duration expression");
                }
                gotColon = true;
                return t;
            }
            case '(' -> {
                parenDepth++;
                return sc.emit(TokenType.LEFT_PAREN);
            }
            case ')' -> {
                Token t = sc.emit(TokenType.RIGHT_PAREN);
                parenDepth--;
                if (parenDepth < 0) {
                    throw sc.error("unexpected right parenthesis " + GoStrings.quoteRune(')'));
                }
                return t;
            }
            case ' ', '\t', '\n', '\r' -> {
                sc.skipSpaces();
                return null;
            }
            case '+' -> {
                return sc.emit(TokenType.ADD);
            }
            case '-' -> {
                return sc.emit(TokenType.SUB);
            }
            case '*' -> {
                return sc.emit(TokenType.MUL);
            }
            case '/' -> {
                return sc.emit(TokenType.DIV);
            }
            case '%' -> {
                return sc.emit(TokenType.MOD);
            }
            case '^' -> {
                return sc.emit(TokenType.POW);
            }
            case ',' -> {
                return sc.emit(TokenType.COMMA);
            }
            default -> {
                if (LexemeScanner.isDurationKeywordStart(r)) {
                    Token t = sc.durationKeyword();
                    if (t != null) {
                        return t;
                    }
                    throw sc.error("unexpected character in duration expression: " + GoStrings.quoteRune(r));
                }
                if (isDigit(r) || (r == '.' && isDigit(sc.peekChar()))) {
                    sc.backup(r);
                    gotDuration = true;
                    inDurationExpr = false;
                    return sc.numberOrDuration();
                }
                throw sc.error("unexpected character in duration expression: " + GoStrings.quoteRune(r));
            }
        }
    }

    /** Inside {@code {...}}: label names, strings, matcher operators. Null: skipped space or comment. */
    private Token scanInsideBraces() {
        if (sc.atComment()) {
            return sc.lineComment();
        }
        int r = sc.nextChar();
        switch (r) {
            case EOF_CHAR -> throw sc.error("unexpected end of input inside braces");
            case ' ', '\t', '\n', '\r' -> {
                sc.skipSpaces();
                return null;
            }
            case ',' -> {
                return sc.emit(TokenType.COMMA);
            }
            case '"', '\'' -> {
                return sc.string((char) r);
            }
            case '`' -> {
                return sc.rawString();
            }
            case '=' -> {
                if (sc.peekChar() == '~') {
                    sc.nextChar();
                    return sc.emit(TokenType.EQL_REGEX);
                }
                return sc.emit(TokenType.EQL);
            }
            case '!' -> {
                int nr = sc.nextChar();
                if (nr == '~') {
                    return sc.emit(TokenType.NEQ_REGEX);
                }
                if (nr == '=') {
                    return sc.emit(TokenType.NEQ);
                }
                throw sc.error("unexpected character after '!' inside braces: " + GoStrings.quoteRune(nr));
            }
            case '{' -> throw sc.error("unexpected left brace " + GoStrings.quoteRune('{'));
            case '}' -> {
                braceOpen = false;
                return sc.emit(TokenType.RIGHT_BRACE);
            }
            default -> {
                if (isAlpha(r)) {
                    while (isAlphaNumeric(sc.peekChar())) {
                        sc.nextChar();
                    }
                    return sc.emit(TokenType.IDENTIFIER);
                }
                throw sc.error("unexpected character inside braces: " + GoStrings.quoteRune(r));
            }
        }
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
