package io.sluice.bench.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.wal.WalInspection;
import io.sluice.wal.WalPosition;
import io.sluice.wal.WalReader;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The WAL benchmarks compute what they claim: calling their @Setup and @Benchmark methods by hand. */
class WalBenchmarksSanityTest {
    @TempDir
    Path dir;

    private WalAppendBenchmark appendBenchmark(int recordBytes, String sync) throws IOException {
        WalAppendBenchmark bench = new WalAppendBenchmark();
        bench.recordBytes = recordBytes;
        bench.sync = sync;
        bench.setUp(dir.resolve("append-" + sync), 64 << 10);
        return bench;
    }

    @Test
    void appendWritesOneRecordOfTheParameterSizePerCallAndDropsOldSegments() throws IOException {
        WalAppendBenchmark bench = appendBenchmark(1024, "100ms");
        long previous = -1;
        for (int i = 0; i < 500; i++) {
            long end = bench.append();
            assertThat(end).isGreaterThan(previous);
            previous = end;
        }
        assertThat(bench.wal().metrics().recordsWritten()).isEqualTo(500);
        assertThat(bench.wal().metrics().syncs()).as("the first maybeSync syncs").isPositive();
        assertThat(bench.wal().durablePosition()).isPositive();
        long firstSegment = WalPosition.segment(bench.wal().firstPosition());
        assertThat(firstSegment).as("segments behind the writer were deleted").isEqualTo(WalPosition.segment(previous));
        try (WalReader reader = bench.wal().openReader()) {
            assertThat(reader.next()).isTrue();
            assertThat(reader.payloadLength()).isEqualTo(1024);
            assertThat(reader.mapping().get(ValueLayout.JAVA_BYTE, reader.payloadOffset() + 3)).isEqualTo((byte) 93);
        }
        bench.tearDown();
        assertThat(dir.resolve("append-100ms")).doesNotExist();
    }

    @Test
    void appendWithoutSyncNeverSyncsOutsideRolls() throws IOException {
        WalAppendBenchmark bench = appendBenchmark(64, "none");
        for (int i = 0; i < 100; i++) {
            bench.append();
        }
        assertThat(bench.wal().metrics().syncs()).isZero();
        bench.tearDown();
    }

    @Test
    void readVisitsEveryRecordAndStartsOverAtTheEnd() throws IOException {
        WalReadBenchmark bench = new WalReadBenchmark();
        bench.recordBytes = 64;
        bench.setUp(dir.resolve("read"), 64 << 10, 200_000);
        long records = bench.records();
        WalInspection inspection = WalInspection.inspect(dir.resolve("read"));
        assertThat(inspection.totalRecords()).isEqualTo(records);
        long sum = 0;
        for (long i = 0; i < records; i++) {
            // type + i + ~i == type - 1
            sum += bench.read() + 1;
        }
        long expected = 0;
        for (long i = 0; i < records; i++) {
            expected += 1 + (int) (i % 255);
        }
        assertThat(sum).as("one pass returns each record once").isEqualTo(expected);
        assertThat(bench.read() + 1).as("then starts over at record 0").isEqualTo(1);
        bench.tearDown();
    }
}
