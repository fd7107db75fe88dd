package io.sluice.core.head.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SamplesRecordTest {
    record Sample(int id, long t, long bits) { }

    private final MemorySegment buffer = Arena.ofAuto().allocate(1 << 20);

    /** Encodes {@code samples} as one record at {@code offset}; returns its length. */
    private static int encode(SamplesRecord.Encoder encoder, MemorySegment target, long offset, int walSegment, List<Sample> samples) {
        encoder.begin(target, offset, walSegment, samples.getFirst().t());
        for (Sample s : samples) {
            encoder.add(s.id(), s.t(), s.bits());
        }
        assertThat(encoder.length()).isLessThanOrEqualTo(SamplesRecord.maxPayloadBytes(samples.size()));
        return encoder.length();
    }

    private static List<Sample> decode(SamplesRecord.Decoder decoder, MemorySegment source, long offset, int length, int walSegment) {
        List<Sample> out = new ArrayList<>();
        decoder.wrap(source, offset, length, walSegment);
        while (decoder.next(Integer.MAX_VALUE - 1)) {
            out.add(new Sample(decoder.seriesId(), decoder.timestamp(), decoder.valueBits()));
        }
        assertThat(decoder.isMalformed()).isFalse();
        return out;
    }

    /** A scrape: every series in the same order, one timestamp, gauge-like two-decimal values. */
    private static List<Sample> scrape(int[] order, long t, SplittableRandom random) {
        List<Sample> samples = new ArrayList<>();
        for (int id : order) {
            double v = Math.round((100 + id % 50 + 5 * Math.sin(t / 1e5 + id) + random.nextDouble()) * 100) / 100.0;
            samples.add(new Sample(id, t, Double.doubleToRawLongBits(v)));
        }
        return samples;
    }

    @Test
    void steadyScrapesRoundTripAndCompress() {
        long seed = 7;
        SplittableRandom random = new SplittableRandom(seed);
        int[] order = random.ints(0, 5_000).distinct().limit(1_000).toArray();
        SamplesRecord.Encoder encoder = new SamplesRecord.Encoder(new SeriesCodecState(16));
        SamplesRecord.Decoder decoder = new SamplesRecord.Decoder(new SeriesCodecState(16));
        long totalBytes = 0;
        int totalSamples = 0;
        for (int scrape = 0; scrape < 20; scrape++) {
            List<Sample> samples = scrape(order, 1_700_000_000_000L + scrape * 15_000L, random);
            int length = encode(encoder, buffer, 0, 3, samples);
            assertThat(decode(decoder, buffer, 0, length, 3)).as("seed %d scrape %d", seed, scrape).isEqualTo(samples);
            if (scrape > 0) {
                totalBytes += length;
                totalSamples += samples.size();
            }
        }
        double bytesPerSample = (double) totalBytes / totalSamples;
        assertThat(bytesPerSample).as("predicted ids, shared timestamps, decimal values").isLessThan(6.0);
    }

    @Test
    void randomSamplesRoundTrip() {
        long seed = 99;
        SplittableRandom random = new SplittableRandom(seed);
        SamplesRecord.Encoder encoder = new SamplesRecord.Encoder(new SeriesCodecState(1));
        SamplesRecord.Decoder decoder = new SamplesRecord.Decoder(new SeriesCodecState(1));
        for (int round = 0; round < 50; round++) {
            List<Sample> samples = new ArrayList<>();
            int n = 1 + random.nextInt(500);
            for (int i = 0; i < n; i++) {
                samples.add(new Sample(random.nextInt(1 << random.nextInt(1, 20)), random.nextLong(), random.nextLong()));
            }
            int length = encode(encoder, buffer, 0, 0, samples);
            assertThat(decode(decoder, buffer, 0, length, 0)).as("seed %d round %d", seed, round).isEqualTo(samples);
        }
    }

    @Test
    void eachWalSegmentDecodesOnItsOwn() {
        SplittableRandom random = new SplittableRandom(11);
        int[] order = {5, 1, 9, 2};
        SamplesRecord.Encoder encoder = new SamplesRecord.Encoder(new SeriesCodecState(16));
        List<Sample> first = scrape(order, 1000, random);
        List<Sample> second = scrape(order, 2000, random);
        int firstLength = encode(encoder, buffer, 0, 0, first);
        int secondLength = encode(encoder, buffer, 4096, 1, second); // the next WAL segment

        // A replay that starts at segment 1 (segment 0 deleted by a checkpoint) knows nothing of segment 0.
        SamplesRecord.Decoder fresh = new SamplesRecord.Decoder(new SeriesCodecState(16));
        assertThat(decode(fresh, buffer, 4096, secondLength, 1)).isEqualTo(second);
        // And one that reads both gets both.
        SamplesRecord.Decoder both = new SamplesRecord.Decoder(new SeriesCodecState(16));
        assertThat(decode(both, buffer, 0, firstLength, 0)).isEqualTo(first);
        assertThat(decode(both, buffer, 4096, secondLength, 1)).isEqualTo(second);
    }

    @Test
    void truncatedRecordsNeverThrowAndNeverInventSamples() {
        SplittableRandom random = new SplittableRandom(5);
        List<Sample> samples = scrape(new int[] {3, 4, 0, 7, 2, 2}, 123_456, random);
        SamplesRecord.Encoder encoder = new SamplesRecord.Encoder(new SeriesCodecState(16));
        int length = encode(encoder, buffer, 0, 0, samples);
        for (int cut = 0; cut < length; cut++) {
            SamplesRecord.Decoder decoder = new SamplesRecord.Decoder(new SeriesCodecState(16));
            decoder.wrap(buffer, 0, cut, 0);
            List<Sample> got = new ArrayList<>();
            while (decoder.next(Integer.MAX_VALUE - 1)) {
                got.add(new Sample(decoder.seriesId(), decoder.timestamp(), decoder.valueBits()));
            }
            assertThat(got).as("cut at %d: a prefix of what was written", cut).isEqualTo(samples.subList(0, got.size()));
            assertThat(got.size() == samples.size() && !decoder.isMalformed()).as("cut at %d", cut).isFalse();
        }
    }

    @Test
    void idsBeyondTheKnownSeriesAreMalformed() {
        SamplesRecord.Encoder encoder = new SamplesRecord.Encoder(new SeriesCodecState(16));
        int length = encode(encoder, buffer, 0, 0, List.of(new Sample(40, 1, 1)));
        SamplesRecord.Decoder decoder = new SamplesRecord.Decoder(new SeriesCodecState(16));
        decoder.wrap(buffer, 0, length, 0);
        assertThat(decoder.next(39)).isFalse();
        assertThat(decoder.isMalformed()).isTrue();
    }
}
