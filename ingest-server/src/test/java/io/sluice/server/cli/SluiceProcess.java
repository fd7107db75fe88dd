package io.sluice.server.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of `sluice` as its own JVM: this JVM's java, the test classpath, the flags of ./sluice. */
final class SluiceProcess {
    private SluiceProcess() {
    }

    /** {@code java ... io.sluice.tools.Main <args>} with a heap of {@code heap} (e.g. {@code 256m}). */
    static List<String> command(String heap, List<String> args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-Xmx" + heap,
                "-cp", System.getProperty("java.class.path"), "io.sluice.tools.Main"));
        command.addAll(args);
        return command;
    }
}
