package io.sluice.core.head.chunkfiles;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;

/** Drops files from the page cache, so a test can read them cold: fsync, then {@code posix_fadvise(DONTNEED)}. */
final class PageCacheTesting {
    private static final int POSIX_FADV_DONTNEED = 4;
    private static final int O_RDONLY = 0;

    private PageCacheTesting() {
    }

    /** Every regular file of {@code dir}, written back and dropped from the page cache. */
    static void evictAll(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(Files::isRegularFile).toList();
        }
        for (Path file : files) {
            evict(file);
        }
    }

    static void evict(Path file) throws IOException {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
            c.force(true); // dirty pages are not dropped: write them back first
        }
        Linker linker = Linker.nativeLinker();
        MethodHandle open = linker.downcallHandle(linker.defaultLookup().find("open").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        MethodHandle fadvise = linker.downcallHandle(linker.defaultLookup().find("posix_fadvise").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_INT));
        MethodHandle close = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) open.invokeExact(arena.allocateFrom(file.toString()), O_RDONLY);
            assertThat(fd).as("open " + file).isNotNegative();
            int result = (int) fadvise.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED);
            int closed = (int) close.invokeExact(fd);
            assertThat(result).isZero();
            assertThat(closed).isZero();
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }
}
