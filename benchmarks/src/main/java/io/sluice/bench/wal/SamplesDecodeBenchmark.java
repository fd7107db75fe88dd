package io.sluice.bench.wal;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.head.records.ReplayRuns;
import io.sluice.core.head.records.SamplesRecord;
import io.sluice.core.head.records.SeriesCodecState;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Decoding SAMPLES records as replay does, in ns per sample: {@value #SERIES} series scraped
 * {@value #SCRAPES} times in the same order (15 s apart, noisy two-decimal gauges like
 * {@code sluice bench replay}'s data), {@value #SAMPLES_PER_RECORD} samples per record, all in one WAL
 * segment. {@code decodeAll} is replay's loop ({@link SamplesRecord.Decoder#decodeAll}), which
 * writes into per-series runs ({@link ReplayRuns}, replay's 16 MiB budget);
 * {@code next} is the entry-by-entry reference ({@link SamplesRecord.Decoder#next}) feeding the same
 * runs through {@link ReplayRuns#add}. The run sink adds up a little of each run so nothing is
 * optimized away (the append itself is not part of this figure); the records are in memory (the
 * WAL's framing, CRC and page faults are not part of it either).
 */
@State(Scope.Thread)
public class SamplesDecodeBenchmark extends AbstractBenchmark {
    static final int SERIES = 10_000;
    static final int SCRAPES = 20;
    static final int SAMPLES_PER_RECORD = 2_000;
    static final int SAMPLES = SERIES * SCRAPES;

    private MemorySegment records;
    private int[] offsets;
    private int[] lengths;
    private SamplesRecord.Decoder decoder;
    private final Sum sum = new Sum();
    private final ReplayRuns runs = new ReplayRuns(16L << 20, sum, sum);

    /** The runs' sink: keeps a running sum of each run's length and ends. */
    static final class Sum implements ReplayRuns.RunSink, ReplayRuns.OneSink {
        long value;

        @Override
        public void appendRun(int seriesId, long[] timestampsMs, long[] valueBits, int from, int to) {
            value += seriesId + to - from + timestampsMs[from] + valueBits[to - 1];
        }

        @Override
        public void append(int seriesId, long timestampMs, long valueBits) {
            value += seriesId + timestampMs + valueBits;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom random = new SplittableRandom(1);
        int recordCount = SAMPLES / SAMPLES_PER_RECORD;
        records = Arena.ofAuto().allocate((long) SamplesRecord.maxPayloadBytes(SAMPLES_PER_RECORD) * recordCount);
        offsets = new int[recordCount];
        lengths = new int[recordCount];
        SamplesRecord.Encoder encoder = new SamplesRecord.Encoder(new SeriesCodecState(SERIES));
        double[] level = random.doubles(SERIES, 1, 1000).toArray();
        int offset = 0;
        int record = 0;
        for (int scrape = 0; scrape < SCRAPES; scrape++) {
            long t = 1_700_000_000_000L + scrape * 15_000L;
            for (int id = 0; id < SERIES; id++) {
                if (id % SAMPLES_PER_RECORD == 0) {
                    encoder.begin(records, offset, 0, t);
                }
                double v = Math.round((level[id] + random.nextDouble(-5, 5)) * 100) / 100.0;
                encoder.add(id, t, Double.doubleToRawLongBits(v));
                if ((id + 1) % SAMPLES_PER_RECORD == 0) {
                    offsets[record] = offset;
                    lengths[record++] = encoder.length();
                    offset += encoder.length();
                }
            }
        }
        decoder = new SamplesRecord.Decoder(new SeriesCodecState(SERIES));
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long decodeAll() {
        for (int r = 0; r < offsets.length; r++) {
            decoder.wrap(records, offsets[r], lengths[r], 0);
            decoder.decodeAll(runs, SERIES - 1);
        }
        return sum.value;
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long next() {
        for (int r = 0; r < offsets.length; r++) {
            decoder.wrap(records, offsets[r], lengths[r], 0);
            while (decoder.next(SERIES - 1)) {
                runs.add(decoder.seriesId(), decoder.timestamp(), decoder.valueBits());
            }
        }
        return sum.value;
    }
}
