package io.sluice.bench.wal;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.core.head.wal.SamplesRecord;
import io.sluice.core.head.wal.SeriesCodecState;
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
 * segment. {@code decodeAll} is replay's loop ({@link SamplesRecord.Decoder#decodeAll});
 * {@code next} is the entry-by-entry reference ({@link SamplesRecord.Decoder#next}), which is what
 * replay called before. The sink adds up what it is given so nothing is optimized away; the
 * records are in memory (the WAL's framing, CRC and page faults are not part of this figure).
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

    /** The sink: keeps a running sum (one add per sample, like a buffer write). */
    static final class Sum implements SamplesRecord.Sink {
        long value;

        @Override
        public void accept(int seriesId, long timestampMs, long valueBits) {
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
            decoder.decodeAll(sum, SERIES - 1);
        }
        return sum.value;
    }

    @Benchmark
    @OperationsPerInvocation(SAMPLES)
    public long next() {
        for (int r = 0; r < offsets.length; r++) {
            decoder.wrap(records, offsets[r], lengths[r], 0);
            while (decoder.next(SERIES - 1)) {
                sum.accept(decoder.seriesId(), decoder.timestamp(), decoder.valueBits());
            }
        }
        return sum.value;
    }
}
