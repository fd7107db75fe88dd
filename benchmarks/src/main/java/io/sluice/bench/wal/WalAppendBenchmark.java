package io.sluice.bench.wal;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.wal.Wal;
import io.sluice.wal.WalOptions;
import io.sluice.wal.WalPosition;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Append throughput: one record per operation through {@code Wal.append(type, MemorySegment)}
 * (claim, copy into the mapping, CRC32C, publish), with default 128 MiB segments so rolls and their
 * preallocation are part of the cost. {@code sync=none} never forces; {@code sync=100ms} calls
 * {@code maybeSync(System.nanoTime())} after every append, as a shard worker's loop does.
 *
 * <p>MB/s = recordBytes / (ns/op) * 1000 (payload bytes; each frame adds a 16-byte header and
 * padding to 8). Segments wholly behind the writer are deleted as it rolls (as checkpoints do), so
 * a long run does not fill the disk.
 */
@State(Scope.Thread)
@Measurement(iterations = 5, time = 2)
public class WalAppendBenchmark extends AbstractBenchmark {
    @Param({"64", "1024", "16384"})
    public int recordBytes;

    @Param({"none", "100ms"})
    public String sync;

    private Path dir;
    private Wal wal;
    private Arena arena;
    private MemorySegment payload;
    private boolean syncing;
    private int segment;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        setUp(BenchDirectory.create("wal-append-"), WalOptions.DEFAULT_SEGMENT_SIZE_BYTES);
    }

    void setUp(Path directory, int segmentSizeBytes) throws IOException {
        dir = directory;
        wal = Wal.open(WalOptions.builder(dir).segmentSizeBytes(segmentSizeBytes).syncIntervalMs(100).build());
        arena = Arena.ofShared();
        payload = arena.allocate(recordBytes, 8);
        for (int i = 0; i < recordBytes; i++) {
            payload.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
        }
        syncing = switch (sync) {
            case "none" -> false;
            case "100ms" -> true;
            default -> throw new IllegalArgumentException("sync must be none or 100ms: " + sync);
        };
        segment = WalPosition.segment(wal.writtenPosition());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        BenchDirectory.closeAndDelete(dir, wal, arena);
    }

    /** Returns the record's end position (consumed by JMH). */
    @Benchmark
    public long append() throws IOException {
        long end = wal.append(1, payload);
        if (syncing) {
            wal.maybeSync(System.nanoTime());
        }
        if (WalPosition.segment(end) != segment) {
            segment = WalPosition.segment(end);
            wal.deleteSegmentsBefore(end);
        }
        return end;
    }

    Wal wal() {
        return wal;
    }
}
