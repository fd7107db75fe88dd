package io.sluice.e2e;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A size-limited tmpfs mounted for one test ({@code mount -t tmpfs -o size=...}, as root: CI runs as
 * root), and a filler file that takes all its free space. {@link #mount} returns null with the reason
 * when mounting is not permitted here, so the test can skip saying why. Test thread only.
 */
final class SmallFilesystem implements AutoCloseable {
    private final Path mountPoint;
    private final Path filler;

    private SmallFilesystem(Path mountPoint) {
        this.mountPoint = mountPoint;
        this.filler = mountPoint.resolve("filler");
    }

    /** Mounts a tmpfs of {@code sizeMiB} at {@code mountPoint}; throws {@link Unavailable} if not permitted. */
    static SmallFilesystem mount(Path mountPoint, int sizeMiB) throws IOException {
        Files.createDirectories(mountPoint);
        String out = run(List.of("mount", "-t", "tmpfs", "-o", "size=" + sizeMiB + "m", "tmpfs", mountPoint.toString()));
        if (out != null) {
            throw new Unavailable("cannot mount a " + sizeMiB + " MiB tmpfs at " + mountPoint + " (needs root): " + out);
        }
        return new SmallFilesystem(mountPoint);
    }

    Path path() {
        return mountPoint;
    }

    /** Writes zeros into the filler file until the file system is full; returns the bytes written. */
    long fill() throws IOException {
        byte[] block = new byte[64 * 1024];
        long written = 0;
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(block);
                written += block.length;
            }
        } catch (IOException full) {
            if (!String.valueOf(full.getMessage()).contains("No space left")) {
                throw full;
            }
        }
        return written;
    }

    /** Frees what {@link #fill()} took. */
    void free() throws IOException {
        Files.deleteIfExists(filler);
    }

    @Override
    public void close() throws IOException {
        String out = run(List.of("umount", "-l", mountPoint.toString()));
        if (out != null) {
            throw new IOException("cannot unmount " + mountPoint + ": " + out);
        }
    }

    /** Null on success, else the command's output and exit code. */
    private static String run(List<String> command) throws IOException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.getMessage();
        }
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return command + " hung";
            }
            return p.exitValue() == 0 ? null : "exit " + p.exitValue() + ": " + output;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Mounting is not permitted here (not root, or no CAP_SYS_ADMIN in a container). */
    static final class Unavailable extends IOException {
        Unavailable(String message) {
            super(message);
        }
    }
}
