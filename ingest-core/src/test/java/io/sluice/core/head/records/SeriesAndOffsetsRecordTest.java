package io.sluice.core.head.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SeriesAndOffsetsRecordTest {
    private final MemorySegment buffer = Arena.ofAuto().allocate(4096);

    @Test
    void seriesEntriesRoundTripAndTruncationIsMalformed() {
        byte[] a = "\u0008__name__\u0002up".getBytes(StandardCharsets.UTF_8);
        byte[] b = new byte[300];
        long end = SeriesRecord.write(buffer, 0, 7, a, 0, a.length);
        end = SeriesRecord.write(buffer, end, 1_000_000, MemorySegment.ofArray(b), 0, b.length);
        SeriesRecord.Decoder decoder = new SeriesRecord.Decoder();
        decoder.wrap(buffer, 0, (int) end);
        assertThat(decoder.next()).isTrue();
        assertThat(decoder.seriesId()).isEqualTo(7);
        assertThat(decoder.segment().asSlice(decoder.labelsOffset(), decoder.labelsLength()).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(a);
        assertThat(decoder.next()).isTrue();
        assertThat(decoder.seriesId()).isEqualTo(1_000_000);
        assertThat(decoder.labelsLength()).isEqualTo(300);
        assertThat(decoder.next()).isFalse();
        assertThat(decoder.isMalformed()).isFalse();

        decoder.wrap(buffer, 0, (int) end - 1);
        assertThat(decoder.next()).isTrue();
        assertThat(decoder.next()).isFalse();
        assertThat(decoder.isMalformed()).isTrue();
    }

    @Test
    void offsetsEntriesRoundTrip() {
        byte[] topic = "metrics.ä".getBytes(StandardCharsets.UTF_8);
        long end = OffsetsRecord.write(buffer, 0, topic, 0, -1);
        end = OffsetsRecord.write(buffer, end, topic, 47, Long.MAX_VALUE);
        assertThat(end).isLessThanOrEqualTo(2L * OffsetsRecord.maxEntryBytes(topic.length));
        OffsetsRecord.Decoder decoder = new OffsetsRecord.Decoder();
        decoder.wrap(buffer, 0, (int) end);
        assertThat(decoder.next()).isTrue();
        assertThat(decoder.topic()).isEqualTo("metrics.ä");
        assertThat(decoder.partition()).isZero();
        assertThat(decoder.offset()).isEqualTo(-1);
        assertThat(decoder.next()).isTrue();
        assertThat(decoder.partition()).isEqualTo(47);
        assertThat(decoder.offset()).isEqualTo(Long.MAX_VALUE);
        assertThat(decoder.next()).isFalse();
        for (int cut = 1; cut < end; cut++) {
            decoder.wrap(buffer, 0, cut);
            int entries = 0;
            while (decoder.next()) {
                entries++;
            }
            assertThat(entries).as("cut %d", cut).isLessThan(2);
        }
    }
}
