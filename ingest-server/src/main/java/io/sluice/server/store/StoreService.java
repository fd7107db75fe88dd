package io.sluice.server.store;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.sluice.core.head.Head;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.core.index.Matcher;
import io.sluice.core.labels.LabelsView;
import io.sluice.server.config.QueryOptions;
import io.sluice.server.store.proto.LabelNamesRequest;
import io.sluice.server.store.proto.LabelNamesResponse;
import io.sluice.server.store.proto.LabelValuesRequest;
import io.sluice.server.store.proto.LabelValuesResponse;
import io.sluice.server.store.proto.SeriesRequest;
import io.sluice.server.store.proto.StoreGrpc;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The {@code thanos.Store} service over the head (docs/format/storeapi.md).
 *
 * <p>{@code Series}: every series matching the request's matchers with a chunk overlapping
 * [min_time, max_time], with its whole XOR chunks that overlap the range exactly as the head holds
 * them ({@link SeriesSnapshot#exactChunk}: Prometheus' chunk encoding, copied, never re-encoded;
 * the open chunk cut at the samples its writer had published), in label order, encoded by hand
 * ({@link SeriesResponseEncoder}, no protobuf object per series or chunk): one
 * {@code SeriesResponse} per series, or batches of {@code response_batch_size} series when the
 * request asks for more than 1 (Thanos' Querier asks for 64). With {@code skip_chunks} only the
 * labels. When labels are added (external labels) or removed ({@code without_replica_labels}) the
 * order can change, so the head's query sorts the series by their served labels
 * ({@link StoreLabels#served}, made once per series before the sort) and the answer still streams.
 * Limits ({@code query.max-series}, {@code query.max-samples}: every sample of a sent
 * chunk counts) end the call with {@code RESOURCE_EXHAUSTED}; a bad matcher with
 * {@code INVALID_ARGUMENT}. A slow reader is waited for (flow control), never buffered without
 * bound.
 *
 * <p>{@code LabelNames}/{@code LabelValues}: with matchers, from the matching series in
 * [start, end]; without, from the label index (every series held, whatever the range). External
 * labels included. Thread-safety: one call per gRPC executor thread, nothing shared but the head.
 */
final class StoreService {
    private static final Matcher ALL_SERIES = Matcher.re("__name__", ".+");
    /**
     * A stream whose client window is full polls {@code isReady()} with a short park, doubling from
     * {@value #FIRST_PARK_NANOS} ns up to {@value #MAX_PARK_NANOS} ns. The call's on-ready callback cannot
     * wake it: grpc-java runs that callback on the call's serialized executor, behind this handler, so
     * waiting for it cost a whole poll interval per window (10 ms per ~32 KB: 9 s for 10,000 series).
     */
    private static final long FIRST_PARK_NANOS = 20_000;
    private static final long MAX_PARK_NANOS = 1_000_000;
    /**
     * Bytes a {@code Series} call may have queued for the socket before it waits ({@code isReady()}
     * false). gRPC's default, 32 KiB, is less than one batch of 64 series (~200 KB of 2 h chunks), so
     * the call thread waited for the event loop to write each batch before encoding the next: the two
     * took turns. With room for a few batches they overlap; memory per call stays bounded by this.
     */
    static final int ON_READY_THRESHOLD_BYTES = 1 << 20;

    /** One encoder per call thread, reused by its calls. */
    private static final ThreadLocal<SeriesResponseEncoder> ENCODERS = ThreadLocal.withInitial(SeriesResponseEncoder::new);

    private final Head head;
    private final QueryOptions limits;
    private final StoreLabels labels;
    private final StoreApiMetrics metrics;
    private final Supplier<String> notReady;

    StoreService(Head head, QueryOptions limits, StoreLabels labels, StoreApiMetrics metrics, Supplier<String> notReady) {
        this.head = head;
        this.limits = limits;
        this.labels = labels;
        this.metrics = metrics;
        this.notReady = notReady;
    }

    /**
     * The service with {@code Series} answered through {@link EncodedMessage#MARSHALLER} (responses
     * encoded by hand), the rest through the generated protobuf marshallers.
     */
    ServerServiceDefinition bindService() {
        MethodDescriptor<SeriesRequest, EncodedMessage> seriesMethod = StoreGrpc.getSeriesMethod()
                .toBuilder(StoreGrpc.getSeriesMethod().getRequestMarshaller(), EncodedMessage.MARSHALLER).build();
        return ServerServiceDefinition.builder(StoreGrpc.SERVICE_NAME)
                .addMethod(seriesMethod, ServerCalls.asyncServerStreamingCall(this::series))
                .addMethod(StoreGrpc.getLabelNamesMethod(), ServerCalls.asyncUnaryCall(this::labelNames))
                .addMethod(StoreGrpc.getLabelValuesMethod(), ServerCalls.asyncUnaryCall(this::labelValues))
                .build();
    }

    void series(SeriesRequest request, StreamObserver<EncodedMessage> observer) {
        metrics.request("series");
        ServerCallStreamObserver<EncodedMessage> out = (ServerCallStreamObserver<EncodedMessage>) observer;
        out.setOnReadyThreshold(ON_READY_THRESHOLD_BYTES);
        SeriesResponseEncoder encoder = ENCODERS.get();
        encoder.reset(request.getResponseBatchSize());
        try {
            checkReady();
            Matcher[] matchers = matchers(request.getMatchersList());
            if (matchers == null) {
                out.onCompleted();
                return;
            }
            byte[][] without = StoreLabels.utf8(request.getWithoutReplicaLabelsList());
            long minTime = request.getMinTime();
            long maxTime = request.getMaxTime();
            boolean skipChunks = request.getSkipChunks();
            long seriesLimit = request.getLimit() > 0 ? request.getLimit() : Long.MAX_VALUE;
            long series = 0;
            long samples = 0;
            SeriesSnapshot.ExactChunk chunk = new SeriesSnapshot.ExactChunk();
            LabelsView view = new LabelsView();
            HeadQuery query = labels.external().isEmpty() && without.length == 0
                    ? head.query(minTime, maxTime, matchers)
                    : head.query(minTime, maxTime, l -> labels.served(view.wrap(l, 0, l.length), l, without), matchers);
            while (query.next() && series < seriesLimit) {
                if (out.isCancelled()) {
                    return;
                }
                SeriesSnapshot snapshot = query.snapshot();
                encoder.beginSeries();
                byte[] bytes = snapshot.labelsArray();
                for (LabelsView l = snapshot.labels(); l.next(); ) {
                    encoder.label(bytes, l.nameOffset(), l.nameLength(), l.valueOffset(), l.valueLength());
                }
                long n = 0;
                for (int c = 0; c < snapshot.chunkCount(); c++) {
                    snapshot.exactChunk(c, chunk);
                    if (chunk.maxTimeMs() < minTime || chunk.minTimeMs() > maxTime) {
                        continue;
                    }
                    n += chunk.numSamples();
                    if (!skipChunks) {
                        encoder.chunk(chunk.minTimeMs(), chunk.maxTimeMs(), chunk.bytes(), chunk.offset(), chunk.length());
                    }
                }
                if (n == 0) {
                    encoder.dropSeries();
                    continue;
                }
                if (++series > limits.maxSeries()) {
                    throw limit(StoreApiMetrics.REASON_MAX_SERIES, "the query selects more than " + limits.maxSeries()
                            + " series (query.max-series of this Sluice instance)");
                }
                if (!skipChunks) {
                    samples += n;
                    if (samples > limits.maxSamples()) {
                        throw limit(StoreApiMetrics.REASON_MAX_SAMPLES, "the query selects more than "
                                + limits.maxSamples() + " samples (query.max-samples of this Sluice instance)");
                    }
                }
                encoder.endSeries();
                if (encoder.full() && !send(out, encoder)) {
                    return;
                }
            }
            if (!encoder.isEmpty() && !send(out, encoder)) {
                return;
            }
            metrics.served(series, samples);
            out.onCompleted();
        } catch (StatusException e) {
            out.onError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.onError(Status.CANCELLED.withDescription("server shutting down").asException());
        }
    }

    /** Sends the encoder's message once the client has room; false if the call was cancelled meanwhile. */
    private static boolean send(ServerCallStreamObserver<EncodedMessage> out, SeriesResponseEncoder encoder)
            throws InterruptedException {
        long park = FIRST_PARK_NANOS;
        while (!out.isReady()) {
            if (out.isCancelled()) {
                return false;
            }
            LockSupport.parkNanos(park);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            park = Math.min(park * 2, MAX_PARK_NANOS);
        }
        out.onNext(encoder.message());
        encoder.sent();
        return true;
    }

    void labelNames(LabelNamesRequest request, StreamObserver<LabelNamesResponse> out) {
        metrics.request("label_names");
        try {
            checkReady();
            Matcher[] matchers = matchers(request.getMatchersList());
            TreeSet<String> names = new TreeSet<>(StoreLabels.UTF8_ORDER);
            if (matchers != null) {
                if (request.getMatchersCount() == 0) {
                    names.addAll(head.labelNames());
                } else {
                    HeadQuery query = head.query(request.getStart(), request.getEnd(), matchers);
                    while (query.next()) {
                        for (LabelsView l = query.labels().rewind(); l.next(); ) {
                            names.add(l.name());
                        }
                    }
                }
                if (!names.isEmpty() || request.getMatchersCount() == 0) {
                    names.addAll(labels.external().keySet());
                }
            }
            names.removeAll(request.getWithoutReplicaLabelsList());
            out.onNext(LabelNamesResponse.newBuilder().addAllNames(limited(names, request.getLimit())).build());
            out.onCompleted();
        } catch (StatusException e) {
            out.onError(e);
        }
    }

    void labelValues(LabelValuesRequest request, StreamObserver<LabelValuesResponse> out) {
        metrics.request("label_values");
        try {
            checkReady();
            String name = request.getLabel();
            if (name.isEmpty()) {
                throw invalid("label values: no label name given");
            }
            Matcher[] matchers = matchers(request.getMatchersList());
            TreeSet<String> values = new TreeSet<>(StoreLabels.UTF8_ORDER);
            String external = labels.external().get(name);
            if (matchers == null || request.getWithoutReplicaLabelsList().contains(name)) {
                // nothing here matches, or the label is one the caller leaves out
            } else if (external != null) {
                if (request.getMatchersCount() == 0 || head.query(request.getStart(), request.getEnd(), matchers).next()) {
                    values.add(external);
                }
            } else if (request.getMatchersCount() == 0) {
                values.addAll(head.labelValues(name));
            } else {
                HeadQuery query = head.query(request.getStart(), request.getEnd(), matchers);
                while (query.next()) {
                    String v = query.labels().get(name);
                    if (v != null && !v.isEmpty()) {
                        values.add(v);
                    }
                }
            }
            out.onNext(LabelValuesResponse.newBuilder().addAllValues(limited(values, request.getLimit())).build());
            out.onCompleted();
        } catch (StatusException e) {
            out.onError(e);
        }
    }

    /** The head's matchers for a request's, null when an external label rules this instance out. */
    private Matcher[] matchers(List<io.sluice.server.store.proto.LabelMatcher> requested) throws StatusException {
        List<Matcher> matchers;
        try {
            matchers = labels.headMatchers(requested);
        } catch (IllegalArgumentException e) {
            throw invalid("bad matcher: " + e.getMessage());
        }
        if (matchers == null) {
            return null;
        }
        if (matchers.isEmpty()) {
            return new Matcher[] {ALL_SERIES};
        }
        return matchers.toArray(Matcher[]::new);
    }

    private void checkReady() throws StatusException {
        String reason = notReady.get();
        if (reason != null) {
            metrics.rejected(StoreApiMetrics.REASON_NOT_READY);
            throw Status.UNAVAILABLE.withDescription("Sluice is not ready: " + reason).asException();
        }
    }

    private StatusException invalid(String message) {
        metrics.rejected(StoreApiMetrics.REASON_BAD_REQUEST);
        return Status.INVALID_ARGUMENT.withDescription(message).asException();
    }

    private StatusException limit(String reason, String message) {
        metrics.rejected(reason);
        return Status.RESOURCE_EXHAUSTED.withDescription(message
                + "; select fewer series with more label matchers or a shorter time range").asException();
    }

    private static List<String> limited(TreeSet<String> values, long limit) {
        List<String> out = new ArrayList<>(values);
        return limit > 0 && out.size() > limit ? out.subList(0, (int) limit) : out;
    }
}
