package io.sluice.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short {@code sluice} command (e.g. {@code wal inspect DIR}) of the server jar as a process. */
final class SluiceCli {
    record Result(int exitCode, String output) {
    }

    private SluiceCli() {
    }

    static Result run(String... args) throws IOException {
        List<String> command = new ArrayList<>(E2eEnvironment.javaCommand());
        command.addAll(List.of("-jar", E2eEnvironment.serverJar().toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(command + " did not end within 2 minutes");
            }
            return new Result(process.exitValue(), output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted", e);
        }
    }
}
