package io.sluice.server.kafka;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader for tests that read the HTTP API's answers: objects become LinkedHashMaps,
 * arrays Lists, strings Strings (escapes resolved, surrogate pairs joined), numbers their exact text as
 * {@link Num} (so a test parses them as it needs), true/false/null as Boolean and null.
 */
final class MiniJson {
    /** A JSON number's text, as written. */
    record Num(String text) {
    }

    private final String s;
    private int i;

    private MiniJson(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        MiniJson p = new MiniJson(text);
        Object v = p.value();
        p.space();
        if (p.i != text.length()) {
            throw new IllegalArgumentException("text after the JSON value at " + p.i + ": " + text);
        }
        return v;
    }

    private Object value() {
        space();
        char c = s.charAt(i);
        switch (c) {
            case '{' -> {
                Map<String, Object> m = new LinkedHashMap<>();
                i++;
                space();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                do {
                    space();
                    String key = string();
                    space();
                    expect(':');
                    if (m.put(key, value()) != null) {
                        throw new IllegalArgumentException("member " + key + " twice");
                    }
                    space();
                } while (s.charAt(i++) == ',');
                if (s.charAt(i - 1) != '}') {
                    throw new IllegalArgumentException("expected } at " + (i - 1));
                }
                return m;
            }
            case '[' -> {
                List<Object> l = new ArrayList<>();
                i++;
                space();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                do {
                    l.add(value());
                    space();
                } while (s.charAt(i++) == ',');
                if (s.charAt(i - 1) != ']') {
                    throw new IllegalArgumentException("expected ] at " + (i - 1));
                }
                return l;
            }
            case '"' -> {
                return string();
            }
            default -> {
                for (String literal : new String[] {"true", "false", "null"}) {
                    if (s.startsWith(literal, i)) {
                        i += literal.length();
                        return literal.equals("null") ? null : Boolean.valueOf(literal);
                    }
                }
                int start = i;
                while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                    i++;
                }
                if (start == i) {
                    throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
                }
                return new Num(s.substring(start, i));
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (true) {
            char c = s.charAt(i++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                throw new IllegalArgumentException("control character in a string at " + (i - 1));
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'u' -> {
                    out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                case '"', '\\', '/' -> out.append(e);
                default -> throw new IllegalArgumentException("bad escape \\" + e);
            }
        }
    }

    private void expect(char c) {
        if (s.charAt(i) != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + i + " of " + s);
        }
        i++;
    }

    private void space() {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
    }
}
