package io.sluice.bench.wal;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.wal.Wal;
import io.sluice.wal.WalOptions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Open of a WAL at rest, as at a restart: one operation is {@code Wal.open} (lock, scan of every
 * segment with each frame's CRC, the check that the last segment's unwritten tail is zeros, the
 * writer's mapping) and {@code close}. The WAL is written once per trial, with the segments as the
 * WAL creates them, and stays in the page cache: one full 128 MiB segment of 16 KiB records and a
 * last segment holding {@code lastSegmentMiB} of them, the rest of it preallocated and unwritten.
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class WalOpenBenchmark extends AbstractBenchmark {
    private static final int RECORD_BYTES = 16 << 10;

    @Param({"1", "64"})
    public int lastSegmentMiB;

    private Path dir;
    private WalOptions options;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = BenchDirectory.create("wal-open-");
        options = WalOptions.builder(dir).segmentSizeBytes(WalOptions.DEFAULT_SEGMENT_SIZE_BYTES).build();
        long logBytes = WalOptions.DEFAULT_SEGMENT_SIZE_BYTES + ((long) lastSegmentMiB << 20);
        try (Wal wal = Wal.open(options); Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(RECORD_BYTES, 8);
            long records = 0;
            for (long written = 0; written < logBytes; written += RECORD_BYTES + 16) {
                payload.set(ValueLayout.JAVA_LONG, 0, records);
                payload.set(ValueLayout.JAVA_LONG, RECORD_BYTES - 8, ~records);
                wal.append(1 + (int) (records++ % 255), payload);
            }
            wal.sync();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        BenchDirectory.delete(dir);
    }

    /** Returns the records open found, so the scan is not optimized away. */
    @Benchmark
    public long open() throws IOException {
        try (Wal wal = Wal.open(options)) {
            return wal.openReport().records();
        }
    }
}
