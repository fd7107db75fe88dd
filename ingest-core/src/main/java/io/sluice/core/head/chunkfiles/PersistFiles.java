package io.sluice.core.head.chunkfiles;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** File-system steps shared by chunk files and checkpoints. */
public final class PersistFiles {
    private PersistFiles() {
    }

    /** Forces a directory's entries (a created, renamed or deleted file) to disk. */
    public static void syncDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
