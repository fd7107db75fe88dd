package io.sluice.server;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * When to stop a long-running command (serve, demo): on SIGTERM or SIGINT, or when a test calls
 * {@link #stop}. The command's own thread then shuts down in order and returns exit code 0. And what
 * SIGHUP does: what {@link #onHangup} registers (serve: reload the web configuration), run on the
 * JVM's signal thread; a command that registers nothing keeps the JVM's default (SIGHUP stops it).
 *
 * <p>Why signal handlers and not only a shutdown hook: the JVM's default handlers exit with 143
 * (SIGTERM) or 130 (SIGINT) whatever the hooks do, and a graceful stop must exit 0. A second signal
 * while stopping exits at once with 1 (the WAL is still consistent: anything not synced is consumed
 * again from Kafka).
 */
public final class StopSignal {
    private static final Logger LOG = LoggerFactory.getLogger(StopSignal.class);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final boolean fromOs;
    private volatile Runnable onHangup;

    private StopSignal(boolean fromOs) {
        this.fromOs = fromOs;
    }

    /** A signal that no OS signal triggers; {@link #stop} does. */
    public static StopSignal manual() {
        return new StopSignal(false);
    }

    /** A signal triggered by SIGTERM and SIGINT (Ctrl-C). Installs process-wide handlers: call once. */
    public static StopSignal onTermOrInt() {
        StopSignal signal = new StopSignal(true);
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

    /**
     * Runs {@code action} on each SIGHUP from now on (or {@link #hangup()}), instead of the JVM's default
     * of stopping. Call once.
     */
    public void onHangup(Runnable action) {
        onHangup = action;
        if (fromOs) {
            try {
                Signal.handle(new Signal("HUP"), s -> hangup());
            } catch (IllegalArgumentException e) {
                LOG.warn("cannot handle SIGHUP ({}): reload the web configuration by changing its file", e.getMessage());
            }
        }
    }

    /** What a SIGHUP does: the {@link #onHangup} action; a failure is logged, never thrown. */
    public void hangup() {
        Runnable action = onHangup;
        if (action == null) {
            return;
        }
        try {
            action.run();
        } catch (RuntimeException e) {
            LOG.error("SIGHUP: {}", e.toString());
        }
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
