package io.sluice.core.head.records;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link SeriesCodecState}: predictions and previous values per WAL segment, the reset on a segment change, growth. */
class SeriesCodecStateTest {
    @Test
    void predictionsAndValuesLastForTheirSegmentOnly() {
        SeriesCodecState state = new SeriesCodecState(16);
        state.enterSegment(3);
        assertThat(state.predictNext(-1)).as("a record's first entry").isZero();
        assertThat(state.predictNext(5)).as("no prediction: the next id").isEqualTo(6);
        state.update(-1, 5, 55L);
        state.update(5, 2, 22L);
        state.update(2, 2, 23L); // a series following itself
        assertThat(state.predictNext(5)).isEqualTo(2);
        assertThat(state.predictNext(2)).isEqualTo(2);
        assertThat(state.lastValue(2)).isEqualTo(23L);
        state.enterSegment(3); // the same segment: nothing changes
        assertThat(state.predictNext(5)).isEqualTo(2);
        assertThat(state.lastValue(5)).isEqualTo(55L);
        for (int segment : new int[] {4, 3}) { // a new segment, and back to an earlier one: both reset
            state.update(5, 9, 99L);
            state.enterSegment(segment);
            assertThat(state.predictNext(5)).as("segment %d", segment).isEqualTo(6);
            assertThat(state.predictNext(2)).isEqualTo(3);
            assertThat(state.lastValue(5)).isZero();
            assertThat(state.lastValue(9)).isZero();
        }
    }

    @Test
    void growingKeepsTheStateAndResetsTheFormerScratchSlot() {
        SeriesCodecState state = new SeriesCodecState(16);
        state.enterSegment(0);
        state.update(-1, 3, 33L);
        state.update(3, 15, 1515L);
        int scratch = state.nextOffsets().length - 1;
        assertThat(scratch).isEqualTo(state.capacity()).isEqualTo(16);
        state.nextOffsets()[scratch] = 1_000; // what the decoder's loop leaves there for a record's first entry
        state.update(15, 40, 4040L); // grows past 16: slot 16 becomes series 16
        assertThat(state.capacity()).isGreaterThan(40);
        assertThat(state.nextOffsets()).hasSize(state.capacity() + 1);
        assertThat(state.predictNext(16)).as("series 16, never touched").isEqualTo(17);
        assertThat(state.predictNext(3)).isEqualTo(15);
        assertThat(state.predictNext(15)).isEqualTo(40);
        assertThat(state.lastValue(3)).isEqualTo(33L);
        assertThat(state.lastValue(40)).isEqualTo(4040L);
        assertThat(state.lastValue(1_000_000)).as("beyond the arrays: reset").isZero();
        assertThat(state.predictNext(1_000_000)).isEqualTo(1_000_001);
    }
}
