package io.sluice.promql.script;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs promqltest script files against Sluice's engine:
 * {@code java io.sluice.promql.script.PromqlTestMain FILE...}. Prints each failing eval (file:line, the
 * query, what was expected and what came back) and ends with the line {@code N passed, N failed, N
 * unsupported}; exits 0 only when nothing failed. A file that does not parse counts as one failure.
 * {@code --show-unsupported} also prints each eval not run for want of native histograms, and why.
 */
public final class PromqlTestMain {
    private PromqlTestMain() {
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: PromqlTestMain [--show-unsupported] FILE.test...");
            System.exit(2);
        }
        List<Path> files = new ArrayList<>();
        boolean showUnsupported = false;
        for (String a : args) {
            if (a.equals("--show-unsupported")) {
                showUnsupported = true;
            } else {
                files.add(Path.of(a));
            }
        }
        System.exit(run(files, new EngineScriptEngine(), System.out, showUnsupported));
    }

    /** Runs {@code files} against {@code engine}, printing to {@code out}; the exit code (0: nothing failed). */
    public static int run(List<Path> files, ScriptEngine engine, PrintStream out) {
        return run(files, engine, out, false);
    }

    /** As {@link #run(List, ScriptEngine, PrintStream)}; {@code showUnsupported} also prints why each unsupported eval is. */
    public static int run(List<Path> files, ScriptEngine engine, PrintStream out, boolean showUnsupported) {
        int passed = 0;
        int failed = 0;
        int unsupported = 0;
        ScriptRunner runner = new ScriptRunner(engine);
        for (Path f : files) {
            Script script;
            try {
                script = Script.parse(f.toString(), Files.readString(f, StandardCharsets.UTF_8));
            } catch (IOException e) {
                out.println(f + ": cannot read: " + e.getMessage());
                failed++;
                continue;
            } catch (ScriptException e) {
                out.println(e.getMessage());
                failed++;
                continue;
            }
            for (ScriptRunner.Outcome o : runner.run(script)) {
                switch (o.status()) {
                    case PASSED -> passed++;
                    case UNSUPPORTED -> {
                        unsupported++;
                        if (showUnsupported) {
                            out.println(o.file() + ":" + o.line() + ": unsupported: " + o.query());
                            out.println("    " + o.message());
                        }
                    }
                    case FAILED -> {
                        failed++;
                        out.println(o.file() + ":" + o.line() + ": " + o.query());
                        out.println("    " + o.message());
                    }
                }
            }
        }
        out.println(passed + " passed, " + failed + " failed, " + unsupported + " unsupported");
        return failed == 0 ? 0 : 1;
    }
}
