package io.sluice.promql.script;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed promqltest script: the commands {@code load}, {@code clear} and {@code eval} in file order,
 * as Prometheus' {@code promql/promqltest} defines the language (see its README). Lines are trimmed; a
 * line starting with {@code #} is a comment; a blank line ends a {@code load} or {@code eval} block.
 * Times are milliseconds from the Unix epoch (a script's {@code 0}).
 */
public record Script(String name, List<Command> commands) {

    /** A command of the script; {@code line} is 1-based. */
    public sealed interface Command permits Load, Clear, Eval {
        int line();
    }

    /**
     * {@code load <interval>}: each series' values at 0, interval, 2*interval, ... . {@code withNhcb}:
     * {@code load_with_nhcb}, which also converts classic histograms to native ones (not supported here).
     */
    public record Load(int line, long intervalMs, boolean withNhcb, List<SeriesDescription> series,
                       boolean hasStartTimestamps) implements Command {
        public boolean hasHistograms() {
            return series.stream().anyMatch(SeriesDescription::hasHistogram);
        }
    }

    /** {@code clear}: drops all loaded data. */
    public record Clear(int line) implements Command {
    }

    /** The kinds of {@code expect} lines. */
    public enum ExpectType { ORDERED, FAIL, WARN, NO_WARN, INFO, NO_INFO }

    /**
     * One {@code expect} line: {@code message} for {@code msg:} (exact match), {@code regex} for
     * {@code regex:} (unanchored search); neither set matches anything.
     */
    public record Expect(ExpectType type, String message, com.google.re2j.Pattern regex) {
        public boolean matches(String text) {
            if (message != null) {
                return message.equals(text);
            }
            return regex == null || regex.matcher(text).find();
        }

        public String describe() {
            return message != null ? "message \"" + message + "\"" : regex != null ? "pattern \"" + regex.pattern() + "\"" : "anything";
        }
    }

    /** One expected series: labels and its values (one for an instant query, one per step otherwise). */
    public record ExpectedSeries(int position, SeriesDescription series) {
    }

    /**
     * {@code eval instant at <t> <query>} ({@code range == false}, {@code startMs} = evaluation time) or
     * {@code eval range from <start> to <end> step <step> <query>}. {@code expectRangeVector}: an instant
     * query whose result is a range vector, with expected points at {@code startMs + i*stepMs} up to
     * {@code endMs}. {@code expectScalar} with {@code scalar} the expected scalar; {@code expectedString}
     * for {@code expect string}. The old forms {@code eval_fail}, {@code eval_warn}, {@code eval_info},
     * {@code eval_ordered} set {@code oldFail} etc.; {@code expected_fail_message}/{@code _regexp} set
     * {@code oldFailMessage}/{@code oldFailRegex}.
     */
    public record Eval(int line, String query, boolean range, long startMs, long endMs, long stepMs, long evalMs,
                       boolean expectRangeVector, boolean oldFail, boolean oldWarn, boolean oldInfo, boolean oldOrdered,
                       String oldFailMessage, com.google.re2j.Pattern oldFailRegex,
                       Map<ExpectType, List<Expect>> expects, List<ExpectedSeries> expected,
                       boolean expectScalar, double scalar, String expectedString,
                       boolean excludeFromRangeQuery) implements Command {
        public boolean isFail() {
            return oldFail || !expects.getOrDefault(ExpectType.FAIL, List.of()).isEmpty();
        }

        public boolean isOrdered() {
            return oldOrdered || !expects.getOrDefault(ExpectType.ORDERED, List.of()).isEmpty();
        }

        public List<Expect> expects(ExpectType t) {
            return expects.getOrDefault(t, List.of());
        }

        /** Whether the expected result holds a native histogram ({@code {{...}}}). */
        public boolean expectsHistogram() {
            return expected.stream().anyMatch(e -> e.series().hasHistogram());
        }
    }

    private static final Pattern SPACE = Pattern.compile("[\t ]+");
    private static final Pattern LOAD = Pattern.compile("^load(?:_(with_nhcb))?\\s+(.+?)$");
    private static final Pattern EVAL_INSTANT = Pattern.compile("^eval(?:_(fail|warn|ordered|info))?\\s+instant\\s+(?:at\\s+(.+?))?\\s+(.+)$");
    private static final Pattern EVAL_RANGE = Pattern.compile("^eval(?:_(fail|warn|info))?\\s+range\\s+from\\s+(.+)\\s+to\\s+(.+)\\s+step\\s+(.+?)\\s+(.+)$");
    private static final Pattern EXPECT = Pattern.compile("^expect\\s+(ordered|fail|warn|no_warn|info|no_info)(?:\\s+(regex|msg):(.+))?$");
    private static final Pattern EXPECT_RANGE = Pattern.compile("^expect range vector\\s+from\\s+(.+)\\s+to\\s+(.+)\\s+step\\s+(.+)$");
    private static final String RANGE_VECTOR_PREFIX = "expect range vector";
    private static final String EXPECT_STRING_PREFIX = "expect string";
    private static final Pattern SCALAR = Pattern.compile(
            "[+-]?(?:0[xX]_?[0-9a-fA-F_]+|0[oO]_?[0-7_]+|0[bB]_?[01_]+|(?:[0-9][0-9_]*\\.?[0-9_]*|\\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?"
                    + "|(?i:inf|infinity|nan))");

    /** Parses a whole script; throws {@link ScriptException} with "line N: ..." on the first error. */
    public static Script parse(String name, String text) {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i].trim();
            lines[i] = l.startsWith("#") ? "" : l;
        }
        List<Command> cmds = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (l.isEmpty()) {
                continue;
            }
            String c = SPACE.split(l, 2)[0].toLowerCase(Locale.ROOT);
            try {
                if (c.equals("clear")) {
                    cmds.add(new Clear(i + 1));
                } else if (c.startsWith("load")) {
                    i = parseLoad(lines, i, cmds);
                } else if (c.startsWith("eval")) {
                    i = parseEval(lines, i, cmds);
                } else {
                    throw new ScriptException("invalid command \"" + l + "\"");
                }
            } catch (LineException e) {
                throw new ScriptException(name + ":" + (e.line + 1) + ": " + e.getMessage());
            } catch (ScriptException e) {
                throw new ScriptException(name + ":" + (i + 1) + ": " + e.getMessage());
            }
        }
        return new Script(name, List.copyOf(cmds));
    }

    /** A ScriptException at a line other than the command's first. */
    private static final class LineException extends RuntimeException {
        final int line;

        LineException(int line, String message) {
            super(message, null, false, false);
            this.line = line;
        }
    }

    private static int parseLoad(String[] lines, int i, List<Command> cmds) {
        Matcher m = LOAD.matcher(lines[i]);
        if (!m.matches()) {
            throw new ScriptException("invalid load command. (load[_with_nhcb] <step:duration>)");
        }
        boolean nhcb = "with_nhcb".equals(m.group(1));
        long gap;
        try {
            gap = Durations.parse(m.group(2));
        } catch (ScriptException e) {
            throw new ScriptException("invalid step definition \"" + m.group(2) + "\": " + e.getMessage());
        }
        int start = i;
        List<SeriesDescription> series = new ArrayList<>();
        boolean st = false;
        while (i + 1 < lines.length) {
            i++;
            String def = lines[i];
            if (def.isEmpty()) {
                i--;
                break;
            }
            try {
                if (isStartTimestampLine(def)) {
                    st = true; // start timestamps: the samples of the next line load, their start times do not
                    continue;
                }
                SeriesDescription sd = SeriesDescription.parse(def);
                // a series given twice in one load: the later line replaces the earlier
                series.removeIf(x -> x.labels().equals(sd.labels()));
                series.add(sd);
            } catch (ScriptException e) {
                throw new LineException(i, e.getMessage());
            }
        }
        cmds.add(new Load(start + 1, gap, nhcb, List.copyOf(series), st));
        return i;
    }

    private static boolean isStartTimestampLine(String def) {
        int sp = -1;
        for (int k = 0; k < def.length(); k++) {
            if (def.charAt(k) == ' ' || def.charAt(k) == '\t') {
                sp = k;
                break;
            }
        }
        return sp >= 0 && def.substring(0, sp).endsWith("@st");
    }

    private static int parseEval(String[] lines, int i, List<Command> cmds) {
        String head = lines[i];
        Matcher inst = EVAL_INSTANT.matcher(head);
        Matcher rng = EVAL_RANGE.matcher(head);
        boolean isInstant = inst.matches();
        boolean isRange = !isInstant && rng.matches();
        if (!isInstant && !isRange) {
            throw new ScriptException("invalid evaluation command. Must be either 'eval[_fail|_warn|_ordered] instant [at <offset:duration>] <query>' or 'eval[_fail|_warn] range from <from> to <to> step <step> <query>'");
        }
        String mod = isInstant ? inst.group(1) : rng.group(1);
        String query = isInstant ? inst.group(3) : rng.group(5);
        int line = i + 1;
        long start;
        long end = 0;
        long step = 0;
        if (isInstant) {
            String at = inst.group(2) == null ? "" : inst.group(2);
            try {
                start = Durations.parse(at);
            } catch (ScriptException e) {
                throw new ScriptException("error in eval " + query + " (line " + line + "): invalid timestamp definition \"" + at + "\": " + e.getMessage());
            }
        } else {
            long[] d = parseRange(rng.group(2), rng.group(3), rng.group(4), query, line);
            start = d[0];
            end = d[1];
            step = d[2];
        }
        long evalMs = start;
        boolean fail = "fail".equals(mod);
        boolean warn = "warn".equals(mod);
        boolean info = "info".equals(mod);
        boolean ordered = "ordered".equals(mod);
        String failMessage = null;
        com.google.re2j.Pattern failRegex = null;
        Map<ExpectType, List<Expect>> expects = new EnumMap<>(ExpectType.class);
        List<ExpectedSeries> expected = new ArrayList<>();
        java.util.Set<io.sluice.promql.labels.Labels> seen = new java.util.HashSet<>();
        boolean expectScalar = false;
        double scalar = 0;
        String expectedString = null;
        boolean excludeFromRange = false;
        boolean rangeVector = false;
        for (int j = 1; i + 1 < lines.length; j++) {
            i++;
            String def = lines[i];
            if (def.isEmpty()) {
                i--;
                break;
            }
            try {
                if (fail && def.startsWith("expected_fail_message")) {
                    failMessage = def.substring("expected_fail_message".length()).trim();
                    break;
                }
                if (fail && def.startsWith("expected_fail_regexp")) {
                    String p = def.substring("expected_fail_regexp".length()).trim();
                    failRegex = compile(p, "invalid regexp '" + p + "' for expected_fail_regexp");
                    break;
                }
                if (def.startsWith(RANGE_VECTOR_PREFIX)) {
                    Matcher m = EXPECT_RANGE.matcher(def);
                    if (!m.matches()) {
                        throw new ScriptException("error in eval " + query + " (line " + line + "): invalid range vector definition \"" + def + "\"");
                    }
                    long[] d = parseRange(m.group(1), m.group(2), m.group(3), query, line);
                    rangeVector = true;
                    start = d[0];
                    end = d[1];
                    step = d[2];
                    evalMs = end;
                    excludeFromRange = true;
                    continue;
                }
                if (def.startsWith(EXPECT_STRING_PREFIX)) {
                    expectedString = parseExpectString(def, query, line);
                    excludeFromRange = true;
                    continue;
                }
                if (def.split(" ", -1)[0].equals("expect")) {
                    Expect e = parseExpect(def, query, line);
                    expects.computeIfAbsent(e.type(), k -> new ArrayList<>()).add(e);
                    j--;
                    validate(expects, query, line);
                    continue;
                }
                Double num = parseScalar(def);
                if (num != null) {
                    expectScalar = true;
                    scalar = num;
                    expected.clear();
                    break;
                }
                SeriesDescription sd = SeriesDescription.parse(def);
                if (sd.size() > 1 && isInstant && !rangeVector) {
                    throw new ScriptException("error in eval " + query + " (line " + line + "): expecting multiple values in instant evaluation not allowed. consider using 'expect range vector' directive to enable a range vector result for an instant query");
                }
                expectScalar = false;
                if (!seen.add(sd.labels())) {
                    expected.removeIf(x -> x.series().labels().equals(sd.labels()));
                }
                expected.add(new ExpectedSeries(j, sd));
            } catch (ScriptException e) {
                throw new LineException(i, e.getMessage());
            }
        }
        cmds.add(new Eval(line, query, isRange, start, end, step, evalMs, rangeVector, fail, warn, info, ordered,
                failMessage, failRegex, expects, List.copyOf(expected), expectScalar, scalar, expectedString, excludeFromRange));
        return i;
    }

    private static long[] parseRange(String from, String to, String step, String query, int line) {
        long f;
        long t;
        long s;
        String prefix = "error in eval " + query + " (line " + line + "): ";
        try {
            f = Durations.parse(from);
        } catch (ScriptException e) {
            throw new ScriptException(prefix + "invalid start timestamp definition \"" + from + "\": " + e.getMessage());
        }
        try {
            t = Durations.parse(to);
        } catch (ScriptException e) {
            throw new ScriptException(prefix + "invalid end timestamp definition \"" + to + "\": " + e.getMessage());
        }
        if (t < f) {
            throw new ScriptException(prefix + "invalid test definition, end timestamp (" + to + ") is before start timestamp (" + from + ")");
        }
        try {
            s = Durations.parse(step);
        } catch (ScriptException e) {
            throw new ScriptException(prefix + "invalid step definition \"" + step + "\": " + e.getMessage());
        }
        return new long[] {f, t, s};
    }

    private static String parseExpectString(String def, String query, int line) {
        String prefix = "error in eval " + query + " (line " + line + "): ";
        if (def.equals(EXPECT_STRING_PREFIX)) {
            throw new ScriptException(prefix + "expected string literal not valid - a quoted string literal is required");
        }
        String s = def.startsWith(EXPECT_STRING_PREFIX + " ") ? def.substring(EXPECT_STRING_PREFIX.length() + 1) : def;
        if (s.isEmpty()) {
            throw new ScriptException(prefix + "expected string literal not valid - a quoted string literal is required");
        }
        char q = s.charAt(0);
        if (s.length() < 2 || (q != '"' && q != '`') || s.charAt(s.length() - 1) != q) {
            throw new ScriptException(prefix + "expected string literal not valid - check that the string is correctly quoted");
        }
        SeriesDescription.Cursor c = new SeriesDescription.Cursor(s);
        try {
            String v = c.quoted();
            if (!c.eof()) {
                throw new ScriptException("trailing text");
            }
            return v;
        } catch (ScriptException e) {
            throw new ScriptException(prefix + "expected string literal not valid - check that the string is correctly quoted");
        }
    }

    private static Expect parseExpect(String def, String query, int line) {
        Matcher m = EXPECT.matcher(def.trim());
        String prefix = "error in eval " + query + " (line " + line + "): ";
        if (!m.matches()) {
            throw new ScriptException(prefix + "invalid expect statement, must match `expect <type> <match_type>: <string>` format");
        }
        ExpectType type = ExpectType.valueOf(m.group(1).toUpperCase(Locale.ROOT));
        if (m.group(2) == null) {
            return new Expect(type, null, null);
        }
        String arg = m.group(3).trim();
        if (m.group(2).equals("msg")) {
            return new Expect(type, arg, null);
        }
        return new Expect(type, null, compile(arg, prefix + "invalid regex " + arg + " for " + m.group(1)));
    }

    private static com.google.re2j.Pattern compile(String p, String error) {
        try {
            return com.google.re2j.Pattern.compile(p);
        } catch (RuntimeException e) {
            throw new ScriptException(error);
        }
    }

    private static void validate(Map<ExpectType, List<Expect>> ex, String query, int line) {
        String prefix = "error in eval " + query + " (line " + line + "): ";
        if (ex.containsKey(ExpectType.INFO) && ex.containsKey(ExpectType.NO_INFO)) {
            throw new ScriptException(prefix + "invalid expect lines, info and no_info cannot be used together");
        }
        if (ex.containsKey(ExpectType.WARN) && ex.containsKey(ExpectType.NO_WARN)) {
            throw new ScriptException(prefix + "invalid expect lines, warn and no_warn cannot be used together");
        }
        if (ex.getOrDefault(ExpectType.FAIL, List.of()).size() > 1) {
            throw new ScriptException(prefix + "invalid expect lines, multiple expect fail lines are not allowed");
        }
    }

    /**
     * A whole line that is a number, as Go's {@code ParseInt(s, 0, 64)} or {@code ParseFloat(s, 64)} accept it
     * (decimal, hex/octal/binary integers, floats, Inf, NaN); null when it is not one.
     */
    static Double parseScalar(String s) {
        if (!SCALAR.matcher(s).matches()) {
            return null;
        }
        boolean neg = s.startsWith("-");
        String t = (s.startsWith("-") || s.startsWith("+")) ? s.substring(1) : s;
        t = t.replace("_", "");
        String lower = t.toLowerCase(Locale.ROOT);
        double v;
        try {
            if (lower.equals("inf") || lower.equals("infinity")) {
                v = Double.POSITIVE_INFINITY;
            } else if (lower.equals("nan")) {
                v = Double.NaN;
            } else if (lower.startsWith("0x")) {
                v = new java.math.BigInteger(t.substring(2), 16).doubleValue();
            } else if (lower.startsWith("0o")) {
                v = new java.math.BigInteger(t.substring(2), 8).doubleValue();
            } else if (lower.startsWith("0b")) {
                v = new java.math.BigInteger(t.substring(2), 2).doubleValue();
            } else {
                v = SeriesDescription.parseNumberToken(t);
            }
        } catch (RuntimeException e) {
            return null;
        }
        return neg ? -v : v;
    }
}
