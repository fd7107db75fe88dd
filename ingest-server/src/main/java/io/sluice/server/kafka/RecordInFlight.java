package io.sluice.server.kafka;

import io.sluice.core.labels.LabelsStatus;

/**
 * The record {@link RecordRouter} is routing: where it comes from, which decoding pass runs, how far
 * the pass got (the current series, the samples and series seen) and why it stopped writing. One per
 * router, reset for every pass; owned by the router's consumer thread.
 */
final class RecordInFlight {
    /** Decoding passes over one record. */
    enum Pass {
        /** Into batches that must hold the record whole. */
        WHOLE,
        /** Validation only: nothing is written. */
        VALIDATE,
        /** Into batches handed over as they fill (the record is split). */
        SPLIT
    }

    /** The sink's state while decoding one record: anything but WRITING stops writing into batches. */
    enum SinkState {
        WRITING,
        /** A series' labels are invalid: the record is rejected. */
        LABEL_ERROR,
        /** A batch is full (or, validating, a series fits no batch). */
        OVERFLOW,
        /** A shard had no free batch: the record is blocked. */
        NO_BATCH
    }

    int streamId;
    long offset;
    Pass pass;
    SinkState state;
    int stateShard;              // the shard the state is about; -1 none
    int seriesShard = -1;        // the shard of the current series' samples; -1 = dropped
    long seriesHash;
    boolean seriesEntryPending;  // the current series has no entry in its shard's batch yet
    long samples;
    long series;
    LabelsStatus labelError;
    long labelErrorSeries;       // the series (0-based) the record stopped at

    /** A new decoding pass over the record: writing, nothing seen yet. */
    void startPass(Pass newPass) {
        pass = newPass;
        state = SinkState.WRITING;
        seriesShard = -1;
        samples = 0;
        series = 0;
    }

    /** Stops writing for the rest of the pass; {@code shard} is the shard it is about, or -1. */
    void stop(SinkState newState, int shard) {
        state = newState;
        stateShard = shard;
        seriesShard = -1;
    }
}
