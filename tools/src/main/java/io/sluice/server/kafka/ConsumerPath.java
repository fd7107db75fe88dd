package io.sluice.server.kafka;

import io.sluice.core.head.Head;
import io.sluice.core.labels.LabelLimits;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadFormat;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * A consumer thread's decode → route → batch path without Kafka: the same {@link RecordRouter} and
 * decoders, fed record values by the caller. For benchmarks and tools that drive a head from
 * records they hold; the caller's thread plays the consumer thread (not thread-safe).
 */
public final class ConsumerPath {
    private static final long PARK_NS = 20_000;
    private final RecordRouter router;
    private final PayloadDecoder[] decoders = new PayloadDecoder[PayloadFormat.values().length];
    private int[] streams = new int[0];
    private long[] handled = new long[0];

    public ConsumerPath(Head head, LabelLimits labelLimits, DecoderLimits decoderLimits) {
        this.router = new RecordRouter(head, labelLimits, decoderLimits.maxRecordBytes(), PayloadFormat.values().length);
        for (PayloadFormat format : PayloadFormat.values()) {
            decoders[format.ordinal()] = format.newDecoder(decoderLimits);
        }
    }

    /**
     * Routes one record value of {@code streamId} at {@code offset}, spinning while a shard has no free
     * batch (backpressure). Returns the samples routed, or -1 if the record was rejected.
     */
    public long route(PayloadFormat format, int streamId, long offset, byte[] value) {
        RecordRouter.Outcome outcome;
        while ((outcome = router.route(decoders[format.ordinal()], format.ordinal(), streamId, offset, value, 0))
                == RecordRouter.Outcome.BLOCKED) {
            router.flush();
            while (!router.tryUnblock()) {
                LockSupport.parkNanos(PARK_NS); // parked, not spinning: the thread's CPU time stays the path's own
            }
        }
        handled(streamId, offset);
        return outcome == RecordRouter.Outcome.ROUTED ? router.recordSamples() : -1;
    }

    /** Hands every stream's handled offset to every shard and submits the batches, as a consumer does after a poll. */
    public void endPoll() {
        while (!router.handOffWatermarks(streams, streams.length, handled)) {
            router.flush();
            LockSupport.parkNanos(PARK_NS);
        }
        router.flush();
    }

    /** Why the last rejected record was rejected. */
    public String lastRejectReason() {
        return router.rejectReason();
    }

    private void handled(int streamId, long offset) {
        if (streamId >= handled.length) {
            int old = handled.length;
            handled = Arrays.copyOf(handled, streamId + 1);
            Arrays.fill(handled, old, handled.length, -1L);
        }
        if (!known(streamId)) {
            streams = Arrays.copyOf(streams, streams.length + 1);
            streams[streams.length - 1] = streamId;
        }
        handled[streamId] = offset;
    }

    private boolean known(int streamId) {
        for (int s : streams) {
            if (s == streamId) {
                return true;
            }
        }
        return false;
    }
}
