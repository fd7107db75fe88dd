package io.sluice.e2e;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waiting for a condition with a generous deadline (a loaded 2-core machine), never a sleep as synchronisation. */
final class Poll {
    private static final long PAUSE_NS = Duration.ofMillis(50).toNanos();

    private Poll() {
    }

    /** Polls {@code condition} every 50 ms until true; on timeout fails with {@code state}'s description. */
    static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + " did not happen within " + timeout.toSeconds() + " s: " + state.get());
            }
            pause();
        }
    }

    /** Between two looks at a condition. */
    static void pause() {
        LockSupport.parkNanos(PAUSE_NS);
        if (Thread.interrupted()) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while polling");
        }
    }
}
