package io.sluice.server.kafka;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until a deadline: tests synchronise on state, never on sleeps. */
final class Await {
    static final Duration LONG = Duration.ofSeconds(180);

    private Await() {
    }

    /** Waits until {@code condition} holds; fails with {@code state} (evaluated then) after {@code timeout}. */
    static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what + "; " + state.get());
            }
            try {
                Thread.sleep(20); // poll interval, not synchronisation: the condition decides
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what, e);
            }
        }
    }

    static void until(String what, BooleanSupplier condition) {
        until(what, LONG, condition, () -> "");
    }
}
