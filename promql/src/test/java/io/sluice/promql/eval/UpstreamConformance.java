package io.sluice.promql.eval;

import io.sluice.promql.Engine;
import io.sluice.promql.EngineOptions;
import io.sluice.promql.QueryLimits;
import io.sluice.promql.QueryResult;
import io.sluice.promql.script.Script;
import io.sluice.promql.script.ScriptEngine;
import io.sluice.promql.script.ScriptRunner;
import io.sluice.promql.storage.Queryable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A developer's tool: runs promqltest files through {@link Engine} and prints each failure and the
 * passed/failed/unsupported counts per file. {@code java ... UpstreamConformance FILE...}
 */
public final class UpstreamConformance {
    private UpstreamConformance() {
    }

    /** The engine as the script runner sees it. */
    public static ScriptEngine scriptEngine() {
        Engine engine = new Engine(EngineOptions.DEFAULTS);
        return new ScriptEngine() {
            @Override
            public QueryResult instant(Queryable storage, String query, long timeMs) {
                return engine.instant(storage, query, timeMs, 0, QueryLimits.NONE);
            }

            @Override
            public QueryResult range(Queryable storage, String query, long startMs, long endMs, long stepMs) {
                return engine.range(storage, query, startMs, endMs, stepMs, 0, QueryLimits.NONE);
            }
        };
    }

    public static void main(String[] args) throws Exception {
        boolean verbose = Boolean.getBoolean("verbose");
        for (String f : args) {
            Path p = Path.of(f);
            Script s = Script.parse(p.getFileName().toString(), Files.readString(p));
            List<ScriptRunner.Outcome> out = new ScriptRunner(scriptEngine()).run(s);
            int pass = 0;
            int fail = 0;
            int unsup = 0;
            for (ScriptRunner.Outcome o : out) {
                switch (o.status()) {
                    case PASSED -> pass++;
                    case FAILED -> {
                        fail++;
                        if (verbose) {
                            System.out.println(o);
                        }
                    }
                    case UNSUPPORTED -> unsup++;
                }
            }
            System.out.printf("%s: %d passed, %d failed, %d unsupported%n", p.getFileName(), pass, fail, unsup);
        }
    }
}
