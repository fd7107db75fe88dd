package io.sluice.server;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * When to stop a long-running command (serve, demo): on SIGTERM or SIGINT, or when a test calls
 * {@link #stop}. The command's own thread then shuts down in order and returns exit code 0.
 *
 * <p>Why signal handlers and not only a shutdown hook: the JVM's default handlers exit with 143
 * (SIGTERM) or 130 (SIGINT) whatever the hooks do, and a graceful stop must exit 0. A second signal
 * while stopping exits at once with 1 (the WAL is still consistent: anything not synced is consumed
 * again from Kafka).
 */
public final class StopSignal {
    private static final Logger LOG = LoggerFactory.getLogger(StopSignal.class);
    private final CountDownLatch stopped = new CountDownLatch(1);

    /** A signal that no OS signal triggers; {@link #stop} does. */
    public static StopSignal manual() {
        return new StopSignal();
    }

    /** A signal triggered by SIGTERM and SIGINT (Ctrl-C). Installs process-wide handlers: call once. */
    public static StopSignal onTermOrInt() {
        StopSignal signal = new StopSignal();
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal.handle(new Signal(name), s -> signal.onSignal("SIG" + s.getName()));
            } catch (IllegalArgumentException e) {
                LOG.warn("cannot handle SIG{} ({}); it will stop the JVM without a graceful shutdown", name, e.getMessage());
            }
        }
        return signal;
    }

    private void onSignal(String name) {
        if (stopped.getCount() == 0) {
            LOG.warn("{} again while stopping: exiting now", name);
            Runtime.getRuntime().halt(1);
        }
        LOG.info("{}: stopping", name);
        stop();
    }

    public void stop() {
        stopped.countDown();
    }

    public boolean isStopped() {
        return stopped.getCount() == 0;
    }

    /** Waits until stopped. */
    public void await() throws InterruptedException {
        stopped.await();
    }

    /** Waits until stopped or {@code timeoutMs} passed; true if stopped. */
    public boolean await(long timeoutMs) throws InterruptedException {
        return stopped.await(timeoutMs, TimeUnit.MILLISECONDS);
    }
}
