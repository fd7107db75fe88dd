package io.sluice.server.kafka;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * At most one log line per key (e.g. a reject reason) per interval, with the number of lines
 * suppressed since the last one, so a topic full of bad records cannot flood the log. Thread-safe.
 */
final class RateLimitedLog {
    private final Logger log;
    private final long intervalNs;
    private final LongSupplier nanoClock;
    private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

    private static final class Window { // guarded by itself
        long lastNs;
        long suppressed;
        boolean used;
    }

    RateLimitedLog(Logger log, long interval, TimeUnit unit, LongSupplier nanoClock) {
        this.log = log;
        this.intervalNs = unit.toNanos(interval);
        this.nanoClock = nanoClock;
    }

    /** Logs {@code message} at WARN unless a line with {@code key} was logged within the interval. True if logged. */
    boolean warn(String key, String message) {
        return log(key, message, null);
    }

    /** As {@link #warn}, at ERROR and with the stack trace (an internal error). */
    boolean error(String key, String message, Throwable t) {
        return log(key, message, t);
    }

    private boolean log(String key, String message, Throwable t) {
        Window w = windows.computeIfAbsent(key, k -> new Window());
        long suppressed;
        synchronized (w) {
            long now = nanoClock.getAsLong();
            if (w.used && now - w.lastNs < intervalNs) {
                w.suppressed++;
                return false;
            }
            suppressed = w.suppressed;
            w.suppressed = 0;
            w.lastNs = now;
            w.used = true;
        }
        String line = suppressed == 0 ? message : message + " (" + suppressed + " more like it since the last report)";
        if (t == null) {
            log.warn(line);
        } else {
            log.error(line, t);
        }
        return true;
    }
}
