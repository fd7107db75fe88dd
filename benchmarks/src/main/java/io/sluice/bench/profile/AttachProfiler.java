package io.sluice.bench.profile;

import com.sun.tools.attach.VirtualMachine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Attaches async-profiler to a running JVM (e.g. {@code sluice serve}) for a while and writes a
 * flame graph: the JDK Attach API loads the agent library into the target with a {@code start}
 * command, then again with {@code stop}, which writes the file. The agent stays loaded in the target
 * (a native agent cannot be unloaded) and idles until the next attach. Run by
 * {@code benchmarks/profile-server.sh}; the target prints a one-line warning about dynamically
 * loaded agents unless started with {@code -XX:+EnableDynamicAgentLoading}.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.sluice.bench.profile.AttachProfiler \
 *   PID SECONDS cpu|alloc|wall|itimer LIBRARY OUTPUT.html
 * </pre>
 */
public final class AttachProfiler {
    private AttachProfiler() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: AttachProfiler PID SECONDS cpu|alloc|wall|itimer LIBRARY OUTPUT.html");
            System.exit(2);
        }
        String pid = args[0];
        long seconds = Long.parseLong(args[1]);
        String event = args[2];
        Path library = Path.of(args[3]).toAbsolutePath();
        Path output = Path.of(args[4]).toAbsolutePath();
        if (!Files.isRegularFile(library)) {
            System.err.println("no async-profiler library at " + library + " (build benchmarks: ./mvnw -pl benchmarks -am package)");
            System.exit(2);
        }
        VirtualMachine vm = VirtualMachine.attach(pid);
        try {
            vm.loadAgentPath(library.toString(), startCommand(event));
        } finally {
            vm.detach();
        }
        System.out.printf("profiling %s (%s) for %d s ...%n", pid, event, seconds);
        TimeUnit.SECONDS.sleep(seconds);
        vm = VirtualMachine.attach(pid);
        try {
            vm.loadAgentPath(library.toString(), "stop,file=" + output);
        } finally {
            vm.detach();
        }
        System.out.println("flame graph: " + output);
    }

    /** The agent's start command for an event name of this tool. */
    static String startCommand(String event) {
        return switch (event) {
            case "cpu", "wall", "itimer" -> "start,event=" + event;
            // one sample per 512 KiB allocated: enough detail, negligible overhead
            case "alloc" -> "start,event=alloc,alloc=512k";
            default -> throw new IllegalArgumentException("event must be cpu, alloc, wall or itimer, not " + event);
        };
    }
}
