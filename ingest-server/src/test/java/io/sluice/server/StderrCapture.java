package io.sluice.server;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Tees System.err (where slf4j-simple logs in tests) into a buffer while open, so a test can check
 * what was logged: one line per burst, no stack trace.
 */
public final class StderrCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    public StderrCapture() {
        OutputStream tee = new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (captured) {
                    captured.write(b);
                }
                original.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (captured) {
                    captured.write(b, off, len);
                }
                original.write(b, off, len);
            }
        };
        System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
    }

    /** What was logged so far. */
    public String text() {
        synchronized (captured) {
            return captured.toString(StandardCharsets.UTF_8);
        }
    }

    /** Lines logged so far that contain {@code fragment}. */
    public long lines(String fragment) {
        return text().lines().filter(l -> l.contains(fragment)).count();
    }

    @Override
    public void close() {
        System.err.flush();
        System.setErr(original);
    }
}
