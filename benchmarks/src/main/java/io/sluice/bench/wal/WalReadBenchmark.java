package io.sluice.bench.wal;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.wal.Wal;
import io.sluice.wal.WalOptions;
import io.sluice.wal.WalReader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Read throughput from the page cache: one record per operation through {@code WalReader.next()},
 * which checks the frame and its CRC32C over every payload byte, then reads the payload's first and
 * last long. The log (256 MiB over two segments) is written once per trial, so it is in the page cache;
 * at its end the reader starts over from the first record (a re-open per ~4 M small records, or
 * per 16 K large ones, amortized into the figure).
 *
 * <p>MB/s = recordBytes / (ns/op) * 1000.
 */
@State(Scope.Thread)
public class WalReadBenchmark extends AbstractBenchmark {
    static final long LOG_BYTES = 256L << 20;

    @Param({"64", "1024", "16384"})
    public int recordBytes;

    private Path dir;
    private Wal wal;
    private WalReader reader;
    private long records;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        setUp(BenchDirectory.create("wal-read-"), WalOptions.DEFAULT_SEGMENT_SIZE_BYTES, LOG_BYTES);
    }

    void setUp(Path directory, int segmentSizeBytes, long logBytes) throws IOException {
        dir = directory;
        wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(segmentSizeBytes).build());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(recordBytes, 8);
            for (long written = 0; written < logBytes; written += recordBytes + 16) {
                payload.set(ValueLayout.JAVA_LONG, 0, records);
                payload.set(ValueLayout.JAVA_LONG, recordBytes - 8, ~records);
                wal.append(1 + (int) (records % 255), payload);
                records++;
            }
        }
        reader = wal.openReader();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        BenchDirectory.closeAndDelete(dir, reader, wal);
    }

    /** Returns a value depending on the whole record, so nothing is optimized away. */
    @Benchmark
    public long read() throws IOException {
        if (!reader.next()) {
            reader.close();
            reader = wal.openReader();
            if (!reader.next()) {
                throw new IllegalStateException("the log is empty");
            }
        }
        MemorySegment mapping = reader.mapping();
        long at = reader.payloadOffset();
        return reader.type() + mapping.get(ValueLayout.JAVA_LONG, at)
                + mapping.get(ValueLayout.JAVA_LONG, at + reader.payloadLength() - 8);
    }

    long records() {
        return records;
    }
}
