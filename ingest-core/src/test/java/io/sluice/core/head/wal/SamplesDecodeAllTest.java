package io.sluice.core.head.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.head.wal.SamplesWorkload.Record;
import io.sluice.core.head.wal.SamplesWorkload.Sample;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link SamplesRecord.Decoder#decodeAll} (replay's tight loop) against the encoder and against
 * {@link SamplesRecord.Decoder#next} (the reference): same samples, same malformed verdicts, same
 * state afterwards; nothing allocated per record.
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

    private static List<Sample> decodeAll(SamplesRecord.Decoder decoder, MemorySegment source, int[] extent, int walSegment, int maxId) {
        List<Sample> out = new ArrayList<>();
        decoder.wrap(source, extent[0], extent[1], walSegment);
        int count = decoder.decodeAll((id, t, bits) -> out.add(new Sample(id, t, bits)), maxId);
        assertThat(count).isEqualTo(out.size());
        return out;
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
            SamplesRecord.Decoder decoder = new SamplesRecord.Decoder(new SeriesCodecState(1));
            for (int i = 0; i < records.size(); i++) {
                Record r = records.get(i);
                assertThat(decodeAll(decoder, buffer, extents[i], r.walSegment(), 999)).as("seed %d record %d", seed, i)
                        .isEqualTo(r.samples());
                assertThat(decoder.isMalformed()).isFalse();
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
        long seed = 17;
        SplittableRandom random = new SplittableRandom(seed);
        List<Record> records = SamplesWorkload.records(seed, 200, 500);
        int[][] extents = encodeAll(buffer, records);
        SamplesRecord.Decoder fast = new SamplesRecord.Decoder(new SeriesCodecState(1));
        SamplesRecord.Decoder reference = new SamplesRecord.Decoder(new SeriesCodecState(1));
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
            List<Sample> expected = decodeByNext(reference, damaged, damagedExtent, walSegment, maxId);
            assertThat(decodeAll(fast, damaged, damagedExtent, walSegment, maxId)).as("seed %d record %d damaged", seed, i)
                    .isEqualTo(expected);
            assertThat(fast.isMalformed()).as("seed %d record %d", seed, i).isEqualTo(reference.isMalformed());
            malformed += reference.isMalformed() ? 1 : 0;
            assertThat(decodeAll(fast, buffer, extent, walSegment, 499))
                    .isEqualTo(decodeByNext(reference, buffer, extent, walSegment, 499));
        }
        assertThat(malformed).as("the damage was seen").isGreaterThan(20);
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
        SamplesRecord.Sink sink = (id, t, bits) -> sum[0] += id + t + bits;
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

    private void decodeEvery(SamplesRecord.Decoder decoder, List<Record> records, int[][] extents, SamplesRecord.Sink sink) {
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
