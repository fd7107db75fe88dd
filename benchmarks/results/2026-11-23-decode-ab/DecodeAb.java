package io.sluice.core.head;

import io.sluice.core.head.wal.SamplesRecord;
import io.sluice.core.head.wal.SeriesCodecState;
import io.sluice.core.head.wal.ReplayRuns;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.SplittableRandom;

/** Replay's decode + run buffering on in-memory records, CPU ns per sample. args: series rounds */
public final class DecodeAb {
    static long sum;
    public static void main(String[] args) {
        int series = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        int scrapes = 40, per = 2500;
        SplittableRandom random = new SplittableRandom(1);
        int recordCount = series * scrapes / per;
        MemorySegment records = Arena.ofAuto().allocate((long) SamplesRecord.maxPayloadBytes(per) * recordCount);
        int[] offsets = new int[recordCount], lengths = new int[recordCount];
        SamplesRecord.Encoder encoder = new SamplesRecord.Encoder(new SeriesCodecState(series));
        double[] level = random.doubles(series, 1, 1000).toArray();
        int offset = 0, record = 0, inRecord = 0;
        for (int scrape = 0; scrape < scrapes; scrape++) {
            long t = 1_700_000_000_000L + scrape * 15_000L;
            for (int id = 0; id < series; id++) {
                if (inRecord == 0) encoder.begin(records, offset, 0, t);
                double v = Math.round((level[id] + random.nextDouble(-5, 5)) * 100) / 100.0;
                encoder.add(id, t, Double.doubleToRawLongBits(v));
                if (++inRecord == per) {
                    offsets[record] = offset; lengths[record++] = encoder.length(); offset += encoder.length(); inRecord = 0;
                }
            }
        }
        SamplesRecord.Decoder decoder = new SamplesRecord.Decoder(new SeriesCodecState(series));
        ReplayRuns runs = new ReplayRuns(16L << 20, (id, ts, vs, from, to) -> sum += ts[from] + vs[to - 1] + to - from, (id, tt, v) -> sum += v);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 200; i++) once(decoder, runs, records, offsets, lengths, series);
        StringBuilder line = new StringBuilder("CPU ns/sample");
        for (int r = 0; r < rounds; r++) {
            long start = threads.getCurrentThreadCpuTime();
            long n = 0;
            for (int i = 0; i < 50; i++) n += once(decoder, runs, records, offsets, lengths, series);
            line.append(String.format(" %.2f", (threads.getCurrentThreadCpuTime() - start) / (double) n));
        }
        System.out.println(line + " (" + (sum & 0xFF) + ")");
    }

    static long once(SamplesRecord.Decoder decoder, ReplayRuns runs, MemorySegment records, int[] offsets, int[] lengths, int series) {
        long n = 0;
        for (int r = 0; r < offsets.length; r++) {
            decoder.wrap(records, offsets[r], lengths[r], 0);
            n += decoder.decodeAll(runs, series - 1);
        }
        runs.flushAll();
        return n;
    }
}
