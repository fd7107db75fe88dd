package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The batch layout's merging of consecutive entries of one series ({@link ShardBatch#reopenSeries}). */
class ShardBatchTest {
    private static final byte[] A = "a".getBytes(StandardCharsets.UTF_8);
    private static final byte[] B = "b".getBytes(StandardCharsets.UTF_8);

    @Test
    void aSeriesThatEndsTheBatchIsExtendedInPlace() {
        ShardBatch batch = new ShardBatch(0, 4096);
        batch.record(1, 10);
        assertThat(batch.reopenSeries(1, A, 0, 1)).as("no series entry yet").isFalse();
        batch.series(1, A, 0, 1);
        batch.sample(1, 1);
        int afterOne = batch.lengthBytes();
        assertThat(batch.reopenSeries(1, A, 0, 1)).isTrue();
        batch.sample(2, 2);
        assertThat(batch.lengthBytes()).as("only the sample's bytes").isEqualTo(afterOne + ShardBatch.SAMPLE_BYTES);
        assertThat(batch.reopenSeries(2, B, 0, 1)).as("another hash").isFalse();
        assertThat(batch.reopenSeries(1, B, 0, 1)).as("same hash, other labels").isFalse();

        ShardBatch.Reader r = batch.reader();
        assertThat(r.next()).isTrue();
        assertThat(r.type()).isEqualTo(ShardBatch.RECORD);
        assertThat(r.next()).isTrue();
        assertThat(r.sampleCount()).isEqualTo(2);
        assertThat(r.timestamp(1)).isEqualTo(2);
        assertThat(r.next()).isFalse();
        assertThat(batch.sampleCount()).isEqualTo(2);
    }

    @Test
    void entriesOfTwoRecordsOrAfterAMarkNeverMerge() {
        ShardBatch batch = new ShardBatch(0, 4096);
        batch.record(1, 10);
        batch.series(1, A, 0, 1);
        batch.sample(1, 1);
        batch.record(1, 11);
        assertThat(batch.reopenSeries(1, A, 0, 1)).as("a RECORD entry lies between").isFalse();
        batch.series(1, A, 0, 1);
        batch.sample(2, 2);
        batch.mark();
        assertThat(batch.reopenSeries(1, A, 0, 1)).as("after a mark").isFalse();
        int mark = batch.lengthBytes();
        batch.series(2, B, 0, 1);
        batch.rewind(mark);
        assertThat(batch.reopenSeries(2, B, 0, 1)).as("the entry was rewound away").isFalse();
    }
}
