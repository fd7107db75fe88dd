package io.sluice.server.store;

import io.grpc.stub.StreamObserver;
import io.sluice.core.head.Head;
import io.sluice.promql.labels.Labels;
import io.sluice.server.store.proto.InfoGrpc;
import io.sluice.server.store.proto.InfoRequest;
import io.sluice.server.store.proto.InfoResponse;
import io.sluice.server.store.proto.Label;
import io.sluice.server.store.proto.StoreInfo;
import io.sluice.server.store.proto.TSDBInfo;
import io.sluice.server.store.proto.ZLabelSet;
import java.util.Map;

/**
 * The {@code thanos.info.Info} service a Querier's endpoint discovery calls (every few seconds):
 * component {@code store}, the external labels as the one label set, and the time range — from the
 * first sample held (over every shard) to the end of time, since samples of any time keep arriving
 * (a partition that moves here brings its backlog); the whole range while the head holds nothing.
 * Answers during replay too, so a Querier keeps the endpoint and reports it partial until it is ready.
 */
final class InfoService extends InfoGrpc.InfoImplBase {
    /** Thanos' name for a StoreAPI-only component (what its Store Gateway and Receive also advertise as stores). */
    static final String COMPONENT_STORE = "store";

    private final Head head;
    private final ZLabelSet externalLabels;
    private final StoreApiMetrics metrics;

    InfoService(Head head, Map<String, String> externalLabels, StoreApiMetrics metrics) {
        this.head = head;
        ZLabelSet.Builder set = ZLabelSet.newBuilder();
        externalLabels.entrySet().stream()
                .sorted((a, b) -> Labels.compareUtf8(a.getKey(), b.getKey()))
                .forEach(e -> set.addLabels(Label.newBuilder().setName(e.getKey()).setValue(e.getValue())));
        this.externalLabels = set.build();
        this.metrics = metrics;
    }

    @Override
    public void info(InfoRequest request, StreamObserver<InfoResponse> out) {
        metrics.request("info");
        long[] range = head.timeRange();
        long minTime = range == null ? Long.MIN_VALUE : range[0];
        long maxTime = Long.MAX_VALUE;
        InfoResponse.Builder response = InfoResponse.newBuilder()
                .setComponentType(COMPONENT_STORE)
                .setStore(StoreInfo.newBuilder().setMinTime(minTime).setMaxTime(maxTime)
                        .setSupportsWithoutReplicaLabels(true)
                        .addTsdbInfos(TSDBInfo.newBuilder().setLabels(externalLabels).setMinTime(minTime).setMaxTime(maxTime)));
        if (externalLabels.getLabelsCount() > 0) {
            response.addLabelSets(externalLabels);
        }
        out.onNext(response.build());
        out.onCompleted();
    }
}
