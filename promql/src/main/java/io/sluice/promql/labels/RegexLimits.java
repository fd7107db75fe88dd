package io.sluice.promql.labels;

/**
 * Bounds on the regexes of one query ({@code =~}, {@code !~} in a selector, {@code match[]} or a
 * remote-read matcher), checked before RE2J compiles them. RE2J matches in linear time, but its cost
 * (time and garbage per matched label value) grows with the compiled program: a 100,000-character
 * regex took ~0.5 s to compile, and {@code (.*){1000}} several milliseconds per label value matched
 * (seconds per query) and ~1 GB of transient heap. So:
 *
 * <ul>
 * <li>at most {@value #MAX_LENGTH} characters (the default longest label value, {@code limits.label-value-bytes});</li>
 * <li>counted repetitions ({@code x{n}}, {@code x{n,m}}, nested ones multiplied) may add at most
 * {@value #MAX_EXPANSION} elements to it once expanded as RE2 expands them ({@code [a-z]{1000}} passes,
 * {@code (.*){1000}} and {@code ((.*){30}){30}} do not).</li>
 * </ul>
 * Over either: {@link TooComplexException} naming the label and the bound (a parse error at the matcher,
 * 400 {@code bad_data} in the HTTP API). {@link LabelMatcher#of} checks every regex it compiles.
 */
public final class RegexLimits {
    public static final int MAX_LENGTH = 16 << 10;
    public static final int MAX_EXPANSION = 1000;

    private RegexLimits() {
    }

    /** A regex over a bound; the message names the label and the bound. */
    public static final class TooComplexException extends IllegalArgumentException {
        TooComplexException(String message) {
            super(message);
        }
    }

    /** Throws when {@code regex} (of the matcher on {@code label}) is over a bound. */
    public static void check(String label, String regex) {
        if (regex.length() > MAX_LENGTH) {
            throw new TooComplexException("regex for label " + label + " too long: " + regex.length()
                    + " characters, at most " + MAX_LENGTH);
        }
        long expansion = expansion(regex);
        if (expansion > MAX_EXPANSION) {
            throw new TooComplexException("regex for label " + label + " too complex: its counted repetitions "
                    + "({n}, {n,m}) expand it by " + (expansion >= Integer.MAX_VALUE ? "over 2^31" : expansion)
                    + " elements, at most " + MAX_EXPANSION);
        }
    }

    /**
     * How many elements counted repetitions add to {@code regex} once expanded: its size with every
     * {@code x{n,m}} written out as {@code max(n, m)} copies of {@code x}, minus its size as written.
     * Sizes count atoms (a character, an escape, a class, {@code .}) and the operators {@code *},
     * {@code +}, {@code ?}, {@code |} as one each. An estimate of RE2's program growth, not its exact size;
     * a regex RE2 rejects gets whatever number here and is refused when compiled.
     */
    public static long expansion(String regex) {
        Estimator e = new Estimator(regex);
        long expanded = e.group(false);
        return Math.max(0, expanded - e.written);
    }

    private static final class Estimator {
        private final String re;
        private int pos;
        /** The size as written (no repetition expanded). */
        long written;

        Estimator(String re) {
            this.re = re;
        }

        /** The expanded size up to the end of the group (its ')' consumed when {@code nested}) or the regex. */
        long group(boolean nested) {
            long total = 0;
            long last = 0; // the expanded size of the last atom, for a quantifier
            while (pos < re.length()) {
                char c = re.charAt(pos);
                if (c == ')' && nested) {
                    pos++;
                    return total;
                }
                switch (c) {
                    case '\\' -> {
                        escape();
                        last = atom();
                    }
                    case '[' -> {
                        charClass();
                        last = atom();
                    }
                    case '(' -> {
                        pos++;
                        if (flagsOnly()) {
                            continue;
                        }
                        long size = group(true);
                        last = size;
                    }
                    case '*', '+', '?' -> {
                        pos++;
                        if (pos < re.length() && re.charAt(pos) == '?') {
                            pos++; // lazy
                        }
                        written++;
                        last = 1;
                    }
                    case '|' -> {
                        pos++;
                        written++;
                        last = 1;
                    }
                    case '{' -> {
                        long max = repeat();
                        if (max < 0) {
                            pos++; // a literal '{'
                            last = atom();
                        } else {
                            long before = total - last;
                            long copies = satMul(last, Math.max(1, max));
                            total = satAdd(before, copies);
                            last = copies;
                            continue;
                        }
                    }
                    default -> {
                        pos += Character.charCount(re.codePointAt(pos));
                        last = atom();
                    }
                }
                total = satAdd(total, last);
            }
            return total;
        }

        private long atom() {
            written++;
            return 1;
        }

        /** After '(': skips {@code ?P<name>}, {@code ?<name>}, {@code ?flags:}; true for a flags-only {@code (?i)} (consumed). */
        private boolean flagsOnly() {
            if (pos >= re.length() || re.charAt(pos) != '?') {
                return false;
            }
            int close = re.indexOf(')', pos);
            int colon = re.indexOf(':', pos);
            int angle = re.indexOf('>', pos);
            if (re.startsWith("?P<", pos) || re.startsWith("?<", pos)) {
                pos = angle < 0 ? re.length() : angle + 1;
                return false;
            }
            if (close >= 0 && (colon < 0 || close < colon)) {
                pos = close + 1;
                return true;
            }
            pos = colon < 0 ? re.length() : colon + 1;
            return false;
        }

        private void escape() {
            pos++; // '\'
            if (pos >= re.length()) {
                return;
            }
            char c = re.charAt(pos++);
            if ((c == 'p' || c == 'P' || c == 'x') && pos < re.length() && re.charAt(pos) == '{') {
                int close = re.indexOf('}', pos);
                pos = close < 0 ? re.length() : close + 1;
            } else if (c == 'x') {
                pos = Math.min(re.length(), pos + 2);
            }
        }

        private void charClass() {
            pos++; // '['
            if (pos < re.length() && re.charAt(pos) == '^') {
                pos++;
            }
            if (pos < re.length() && re.charAt(pos) == ']') {
                pos++; // a leading ']' is a member
            }
            while (pos < re.length() && re.charAt(pos) != ']') {
                if (re.charAt(pos) == '\\') {
                    pos += 2;
                } else if (re.startsWith("[:", pos)) {
                    int close = re.indexOf(":]", pos + 2);
                    pos = close < 0 ? pos + 1 : close + 2;
                } else {
                    pos++;
                }
            }
            pos = Math.min(re.length(), pos + 1);
        }

        /** At '{': the largest count of a valid {@code {n}}, {@code {n,}}, {@code {n,m}} (consumed, with a lazy '?'), else -1. */
        private long repeat() {
            int close = re.indexOf('}', pos);
            if (close < 0) {
                return -1;
            }
            String body = re.substring(pos + 1, close);
            if (!body.matches("\\d{1,9}(,\\d{0,9})?")) {
                return -1;
            }
            int comma = body.indexOf(',');
            long n = Long.parseLong(comma < 0 ? body : body.substring(0, comma));
            long m = comma < 0 || comma == body.length() - 1 ? n : Long.parseLong(body.substring(comma + 1));
            pos = close + 1;
            if (pos < re.length() && re.charAt(pos) == '?') {
                pos++;
            }
            return Math.max(n, m);
        }

        private static long satAdd(long a, long b) {
            long r = a + b;
            return r < 0 || r > Integer.MAX_VALUE ? Integer.MAX_VALUE : r;
        }

        private static long satMul(long a, long b) {
            return a != 0 && b > Integer.MAX_VALUE / a ? Integer.MAX_VALUE : a * b;
        }
    }
}
