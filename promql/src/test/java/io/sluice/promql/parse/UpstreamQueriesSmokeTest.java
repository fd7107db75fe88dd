package io.sluice.promql.parse;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.promql.ParseException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Parses every query of Prometheus' own promqltest files (read from the Go module cache when it holds
 * {@code github.com/prometheus/prometheus@v0.314.0}; skipped with a notice when it does not, since the
 * repository must not carry those files). Prints how many parse and lists those that do not.
 *
 * <p>promqltest treats a query its parser refuses as a broken script, so every query there is meant to
 * parse ({@code expect fail} marks evaluation errors). The test fails when one does not, unless it uses
 * syntax Prometheus itself calls experimental and that Sluice leaves off (none of these is in the stable
 * float files): duration expressions ({@code [5m+1m]}, {@code step()}), {@code anchored}/{@code smoothed},
 * {@code fill()} on operators, and
 * the native-histogram trim operators {@code </} and {@code >/}.
 */
class UpstreamQueriesSmokeTest {
    private static final String MODULE = "github.com/prometheus/prometheus@v0.314.0";
    private static final Set<String> STABLE_FILES = Set.of("aggregators.test", "at_modifier.test", "collision.test",
            "functions.test", "histograms.test", "literals.test", "operators.test", "range_queries.test",
            "selectors.test", "staleness.test", "subquery.test", "trig_functions.test");
    private static final Pattern EVAL = Pattern.compile(
            "^eval(_fail|_warn|_info|_ordered)?\\s+(?:instant\\s+at\\s+\\S+|range\\s+from\\s+\\S+\\s+to\\s+\\S+\\s+step\\s+\\S+)\\s+(.*)$");

    static Path testdata() {
        List<Path> roots = new ArrayList<>();
        String prop = System.getProperty("promql.upstream.testdata");
        if (prop != null) {
            return Path.of(prop);
        }
        String gomodcache = System.getenv("GOMODCACHE");
        if (gomodcache != null && !gomodcache.isEmpty()) {
            roots.add(Path.of(gomodcache));
        }
        String gopath = System.getenv("GOPATH");
        if (gopath != null && !gopath.isEmpty()) {
            roots.add(Path.of(gopath.split(java.io.File.pathSeparator)[0], "pkg", "mod"));
        }
        roots.add(Path.of(System.getProperty("user.home"), "go", "pkg", "mod"));
        for (Path root : roots) {
            Path p = root.resolve(MODULE).resolve("promql/promqltest/testdata");
            if (Files.isDirectory(p)) {
                return p;
            }
        }
        return null;
    }

    record Query(String file, int line, String text, boolean expectFail) {
    }

    static List<Query> queries(Path dir) throws IOException {
        List<Query> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".test")).sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher m = EVAL.matcher(lines.get(i).strip());
                    if (!m.matches()) {
                        continue;
                    }
                    boolean fail = "_fail".equals(m.group(1));
                    for (int j = i + 1; j < lines.size() && lines.get(j).strip().startsWith("expect"); j++) {
                        if (lines.get(j).strip().startsWith("expect fail")) {
                            fail = true;
                        }
                    }
                    out.add(new Query(f.getFileName().toString(), i + 1, m.group(2), fail));
                }
            }
        }
        return out;
    }

    static boolean experimentalSyntax(String query, String error) {
        return error.contains("experimental") || error.contains("<op:</>") || error.contains("<op:>/>");
    }

    @Test
    void everyUpstreamQueryParses() throws IOException {
        Path dir = testdata();
        if (dir == null) {
            System.out.println("NOTICE: Prometheus' promqltest files not in the Go module cache (" + MODULE
                    + "); upstream query smoke test skipped");
            Assumptions.abort("upstream test files absent");
        }
        List<Query> all = queries(dir);
        int parsed = 0;
        int expectedFailures = 0;
        List<String> experimental = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        for (Query q : all) {
            try {
                Parser.parse(q.text());
                parsed++;
            } catch (ParseException e) {
                String where = q.file() + ":" + q.line() + ": " + q.text() + "  ->  " + e.getMessage();
                if (experimentalSyntax(q.text(), e.getMessage())) {
                    experimental.add(where);
                } else if (q.expectFail()) {
                    expectedFailures++;
                } else {
                    unexpected.add(where);
                }
            }
        }
        System.out.printf("upstream queries: %d, parsed %d, failed as marked (expect fail) %d, experimental syntax left off %d,"
                + " unexpected failures %d%n", all.size(), parsed, expectedFailures, experimental.size(), unexpected.size());
        experimental.forEach(s -> System.out.println("  experimental: " + s));
        unexpected.forEach(s -> System.out.println("  FAILED: " + s));
        assertThat(all).hasSizeGreaterThan(1000);
        assertThat(unexpected).isEmpty();
        assertThat(expectedFailures).as("queries Prometheus parses (their failure is at evaluation)").isZero();
        assertThat(experimental).noneMatch(s -> STABLE_FILES.contains(s.substring(0, s.indexOf(':'))));
    }
}
