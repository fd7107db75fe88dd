package io.sluice.tools.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the restart half of the replay benchmark in a fresh JVM (the same java, classpath and main
 * class as this process) under GNU {@code /usr/bin/time -v}, so wall and CPU time and peak RSS are
 * those of a real process start: JVM start-up, WAL open and replay, close. Without GNU time the
 * child runs bare and only its own figures are reported.
 *
 * <p>The child gets this JVM's flags except agents (a profiler attached here must not be copied),
 * plus {@code extraJvmOptions} (e.g. {@code -agentpath:...libasyncProfiler.so=start,...} to profile the replay).
 */
public final class RestartProcess {
    static final Path GNU_TIME = Path.of("/usr/bin/time");
    private static final String MAIN_CLASS = "io.sluice.tools.Main";

    private RestartProcess() {
    }

    /** The child's own report and, with GNU time, the process figures (else null). */
    public record Outcome(int exitCode, ReplayBenchRestart.Result result, TimeVerbose time, List<String> stderr) {
        /** The last lines the child itself wrote to stderr (GNU time's report, which follows them, left out). */
        public String stderrTail(int lines) {
            int end = stderr.size();
            for (int i = 0; i < stderr.size(); i++) {
                if (stderr.get(i).startsWith("\tCommand being timed:") || stderr.get(i).startsWith("Command exited with")) {
                    end = i;
                    break;
                }
            }
            return String.join(" | ", stderr.subList(Math.max(0, end - lines), end));
        }
    }

    /**
     * Starts {@code sluice <childArgs>} in a new JVM, echoes its stdout to {@code out} and waits for it.
     *
     * @throws IOException if the process cannot be started or its output read
     */
    public static Outcome run(List<String> childArgs, List<String> extraJvmOptions, PrintWriter out)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        boolean timed = Files.isExecutable(GNU_TIME);
        if (timed) {
            command.add(GNU_TIME.toString());
            command.add("-v");
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!arg.startsWith("-agentpath") && !arg.startsWith("-agentlib") && !arg.startsWith("-javaagent")) {
                command.add(arg);
            }
        }
        command.addAll(extraJvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(MAIN_CLASS);
        command.addAll(childArgs);
        Path stderrFile = Files.createTempFile("sluice-bench-restart", ".err");
        try {
            Process process = new ProcessBuilder(command).redirectError(stderrFile.toFile()).start();
            ReplayBenchRestart.Result result = null;
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = reader.readLine()) != null; ) {
                    out.println("  restart| " + line);
                    out.flush();
                    ReplayBenchRestart.Result parsed = ReplayBenchRestart.Result.parse(line);
                    result = parsed != null ? parsed : result;
                }
            }
            int exit = process.waitFor();
            List<String> stderr = Files.readAllLines(stderrFile, StandardCharsets.UTF_8);
            return new Outcome(exit, result, timed ? TimeVerbose.parse(stderr) : null, stderr);
        } finally {
            Files.deleteIfExists(stderrFile);
        }
    }
}
