package io.sluice.core.head.records;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.records.SamplesWorkload.Record;
import io.sluice.core.head.records.SamplesWorkload.Sample;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link SamplesRecord.Decoder#decodeAll} (replay's tight loop, writing into {@link ReplayRuns})
 * against the encoder and against {@link SamplesRecord.Decoder#next} (the reference): the same
 * samples of every series in the same order, the same counts and malformed verdicts, the same state
 * afterwards; runs long, short (filling mid-record) and absent (nothing buffered); nothing allocated
 * per record.
 */
class SamplesDecodeAllTest {
    /** Room for one record of the workload (at most 300 entries). */
    private static final int RECORD_BYTES = SamplesRecord.maxPayloadBytes(300);
    /**
     * CRC32C and byte count of {@link SamplesWorkload#records}(42, 400, 1000) encoded one after the
     * other, computed with main's encoder (67f13ea, three parallel state arrays) before this
     * decoder existed: the encoder must keep writing the very same bytes.
     */
    private static final long MAIN_ENCODER_CRC = 1_417_368_870L;
    private static final long MAIN_ENCODER_BYTES = 593_783L;

    private final MemorySegment buffer = Arena.ofAuto().allocate(RECORD_BYTES * 400L);

    /** Encodes {@code records} back to back from offset 0; returns each record's [offset, length]. */
    private static int[][] encodeAll(MemorySegment target, List<Record> records) {
        SamplesRecord.Encoder encoder = new SamplesRecord.Encoder(new SeriesCodecState(1));
        int[][] extents = new int[records.size()][];
        long offset = 0;
        for (int i = 0; i < records.size(); i++) {
            Record r = records.get(i);
            encoder.begin(target, offset, r.walSegment(), r.samples().getFirst().t());
            for (Sample s : r.samples()) {
                encoder.add(s.id(), s.t(), s.bits());
            }
            extents[i] = new int[] {(int) offset, encoder.length()};
            offset += encoder.length();
        }
        return extents;
    }

    /**
     * Run budgets: long runs (16 MiB: 128 samples per series of 1,024), runs of 2 and 3 (they fill
     * mid-record, so the loop stops and resumes after a flush), and none (16 B: entry by entry).
     */
    private static final long[] BUDGETS = {16L << 20, 2L * 16 * 1024, 3L * 16 * 1024, 16};

    /** What a {@link ReplayRuns} hands on, per series in the order given. */
    private static final class Collected {
        final Map<Integer, List<Sample>> bySeries = new TreeMap<>();
        final ReplayRuns runs;

        Collected(long budgetBytes) {
            runs = new ReplayRuns(budgetBytes, (id, ts, vs, from, to) -> {
                assertThat(to - from).as("a run of series %d", id).isPositive();
                for (int i = from; i < to; i++) {
                    add(new Sample(id, ts[i], vs[i]));
                }
            }, (id, t, v) -> add(new Sample(id, t, v)));
        }

        void add(Sample sample) {
            bySeries.computeIfAbsent(sample.id(), k -> new ArrayList<>()).add(sample);
        }

        /** Everything handed on so far plus what is still buffered. */
        Map<Integer, List<Sample>> all() {
            runs.flushAll();
            return bySeries;
        }
    }

    private static Map<Integer, List<Sample>> bySeries(List<Sample> samples) {
        Map<Integer, List<Sample>> grouped = new TreeMap<>();
        for (Sample s : samples) {
            grouped.computeIfAbsent(s.id(), k -> new ArrayList<>()).add(s);
        }
        return grouped;
    }

    private static int decodeAll(SamplesRecord.Decoder decoder, ReplayRuns runs, MemorySegment source, int[] extent, int walSegment, int maxId) {
        decoder.wrap(source, extent[0], extent[1], walSegment);
        return decoder.decodeAll(runs, maxId);
    }

    private static List<Sample> decodeByNext(SamplesRecord.Decoder decoder, MemorySegment source, int[] extent, int walSegment, int maxId) {
        List<Sample> out = new ArrayList<>();
        decoder.wrap(source, extent[0], extent[1], walSegment);
        while (decoder.next(maxId)) {
            out.add(new Sample(decoder.seriesId(), decoder.timestamp(), decoder.valueBits()));
        }
        return out;
    }

    @Test
    void roundTripsEveryControlByteAcrossSegmentsAndPredictionMisses() {
        for (long seed : new long[] {1, 2, 3}) {
            List<Record> records = SamplesWorkload.records(seed, 300, 1000);
            int[][] extents = encodeAll(buffer, records);
            List<Sample> written = new ArrayList<>();
            records.forEach(r -> written.addAll(r.samples()));
            for (long budget : BUDGETS) {
                SamplesRecord.Decoder decoder = new SamplesRecord.Decoder(new SeriesCodecState(1));
                Collected collected = new Collected(budget);
                for (int i = 0; i < records.size(); i++) {
                    Record r = records.get(i);
                    assertThat(decodeAll(decoder, collected.runs, buffer, extents[i], r.walSegment(), 999))
                            .as("seed %d budget %d record %d", seed, budget, i).isEqualTo(r.samples().size());
                    assertThat(decoder.isMalformed()).isFalse();
                }
                assertThat(collected.all()).as("seed %d budget %d", seed, budget).isEqualTo(bySeries(written));
            }
            assertThat(controlBytes(buffer, extents)).as("seed %d: every control byte was written", seed)
                    .containsAll(allControlBytes());
        }
    }

    @Test
    void encoderWritesTheBytesMainWrote() {
        List<Record> records = SamplesWorkload.records(42, 400, 1000);
        int[][] extents = encodeAll(buffer, records);
        int[] last = extents[extents.length - 1];
        long bytes = last[0] + last[1];
        CRC32C crc = new CRC32C();
        crc.update(buffer.asSlice(0, bytes).asByteBuffer());
        assertThat(new long[] {crc.getValue(), bytes}).isEqualTo(new long[] {MAIN_ENCODER_CRC, MAIN_ENCODER_BYTES});
    }

    @Test
    void decodeAllMatchesTheReferenceDecoderOnIntactAndDamagedRecords() {
        for (long budget : BUDGETS) {
            long seed = 17;
            SplittableRandom random = new SplittableRandom(seed);
            List<Record> records = SamplesWorkload.records(seed, 200, 500);
            int[][] extents = encodeAll(buffer, records);
            SamplesRecord.Decoder fast = new SamplesRecord.Decoder(new SeriesCodecState(1));
            SamplesRecord.Decoder reference = new SamplesRecord.Decoder(new SeriesCodecState(1));
            Collected collected = new Collected(budget);
            List<Sample> expected = new ArrayList<>();
            MemorySegment damaged = Arena.ofAuto().allocate(RECORD_BYTES);
            int malformed = 0;
            for (int i = 0; i < records.size(); i++) {
                int[] extent = extents[i];
                int walSegment = records.get(i).walSegment();
                // A damaged copy (flipped bytes, a cut, or a smaller id bound), then the intact record:
                // both decoders must agree on the damaged one and be left in the same state for the next.
                MemorySegment.copy(buffer, extent[0], damaged, 0, extent[1]);
                int length = extent[1];
                int maxId = 499;
                switch (random.nextInt(4)) {
                    case 0 -> flip(damaged, length, random);
                    case 1 -> length = random.nextInt(length + 1);
                    case 2 -> maxId = random.nextInt(500);
                    default -> { }
                }
                int[] damagedExtent = {0, length};
                List<Sample> reference1 = decodeByNext(reference, damaged, damagedExtent, walSegment, maxId);
                expected.addAll(reference1);
                assertThat(decodeAll(fast, collected.runs, damaged, damagedExtent, walSegment, maxId))
                        .as("budget %d record %d damaged", budget, i).isEqualTo(reference1.size());
                assertThat(fast.isMalformed()).as("budget %d record %d", budget, i).isEqualTo(reference.isMalformed());
                assertThat(new long[] {fast.seriesId(), fast.timestamp(), fast.valueBits()}).as("the last entry, budget %d record %d", budget, i)
                        .isEqualTo(new long[] {reference.seriesId(), reference.timestamp(), reference.valueBits()});
                malformed += reference.isMalformed() ? 1 : 0;
                List<Sample> reference2 = decodeByNext(reference, buffer, extent, walSegment, 499);
                expected.addAll(reference2);
                assertThat(decodeAll(fast, collected.runs, buffer, extent, walSegment, 499)).isEqualTo(reference2.size());
            }
            assertThat(collected.all()).as("budget %d", budget).isEqualTo(bySeries(expected));
            assertThat(malformed).as("the damage was seen").isGreaterThan(20);
        }
    }

    @Test
    void bothVarintPeeksAgreeWithTheCursor() {
        SplittableRandom random = new SplittableRandom(23);
        MemorySegment bytes = Arena.ofAuto().allocate(64);
        RecordCursor cursor = new RecordCursor();
        for (int i = 0; i < 20_000; i++) {
            for (int b = 0; b < 32; b++) {
                bytes.set(ValueLayout.JAVA_BYTE, b, (byte) random.nextInt()); // what follows the varint: garbage
            }
            long value = i % 4 == 0 ? random.nextLong() >>> random.nextInt(64) : random.nextLong(1L << (7 * random.nextInt(1, 9)));
            int length = (int) (Varint.writeUnsigned(bytes, 0, value));
            cursor.wrap(bytes, 0, 24);
            byte[] array = cursor.array();
            long peeked = Varint.peek(array, 0);
            assertThat(Varint.peekBranchless(array, 0)).as("value %d", value).isEqualTo(peeked);
            if (length <= 7) {
                assertThat(Varint.peekedValue(peeked)).isEqualTo(value).isEqualTo(cursor.readUnsigned());
                assertThat(Varint.peekedLength(peeked)).isEqualTo(length);
            } else {
                assertThat(peeked).as("value %d, %d bytes: left to the cursor", value, length).isEqualTo(-1);
            }
        }
    }

    @Test
    void decodeAllAllocatesNothingPerRecordAfterWarmUp() {
        List<Record> records = SamplesWorkload.records(5, 100, 2000);
        int[][] extents = encodeAll(buffer, records);
        SamplesRecord.Decoder decoder = new SamplesRecord.Decoder(new SeriesCodecState(1));
        long[] sum = new long[1];
        // Runs of 4 (1,024 series' worth of budget), so runs fill and are handed on all the time.
        ReplayRuns sink = new ReplayRuns(4L * 16 * 1024, (id, ts, vs, from, to) -> sum[0] += id + ts[from] + vs[to - 1],
                (id, t, v) -> sum[0] += id);
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int warm = 0; warm < 200; warm++) {
            decodeEvery(decoder, records, extents, sink);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        int rounds = 50;
        for (int round = 0; round < rounds; round++) {
            decodeEvery(decoder, records, extents, sink);
        }
        long perRecord = (threads.getCurrentThreadAllocatedBytes() - before) / ((long) rounds * records.size());
        assertThat(perRecord).as("bytes allocated per record (sum %d)", sum[0]).isZero();
    }

    private void decodeEvery(SamplesRecord.Decoder decoder, List<Record> records, int[][] extents, ReplayRuns sink) {
        for (int i = 0; i < extents.length; i++) {
            decoder.wrap(buffer, extents[i][0], extents[i][1], records.get(i).walSegment());
            decoder.decodeAll(sink, 1999);
        }
    }

    private static void flip(MemorySegment segment, int length, SplittableRandom random) {
        for (int k = 0; k < 1 + random.nextInt(3) && length > 0; k++) {
            long at = random.nextInt(length);
            segment.set(ValueLayout.JAVA_BYTE, at, (byte) (segment.get(ValueLayout.JAVA_BYTE, at) ^ (1 + random.nextInt(255))));
        }
    }

    /** The control bytes of every value in the records, walked with the format's grammar. */
    private static TreeSet<Integer> controlBytes(MemorySegment source, int[][] extents) {
        TreeSet<Integer> seen = new TreeSet<>();
        RecordCursor cursor = new RecordCursor();
        for (int[] extent : extents) {
            cursor.wrap(source, extent[0], extent[1]);
            cursor.readSigned();
            while (cursor.hasRemaining()) {
                cursor.readSigned();
                cursor.readSigned();
                int control = cursor.readUnsignedByte();
                seen.add(control);
                if (control >= ValueCodec.DECIMAL) {
                    cursor.readSigned();
                } else {
                    cursor.skip(control & 0x0F);
                }
            }
        }
        return seen;
    }

    private static List<Integer> allControlBytes() {
        List<Integer> all = new ArrayList<>(List.of(ValueCodec.SAME));
        for (int leading = 0; leading < 8; leading++) {
            for (int significant = 1; leading + significant <= 8; significant++) {
                all.add(leading << 4 | significant);
            }
        }
        for (int places = 0; places <= ValueCodec.MAX_DECIMAL_PLACES; places++) {
            all.add(ValueCodec.DECIMAL | places);
        }
        return all;
    }
}
