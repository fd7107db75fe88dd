package io.sluice.server.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.server.format.PayloadFormat;
import io.sluice.server.format.otlp.pb.OtlpMetrics;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OpenTelemetry path a user takes: OTLP requests through a real broker, resource attributes stored
 * as {@code target_info}, and {@code info()} over the HTTP API joining them back onto the metric's
 * series by {@code job} and {@code instance} — per service instance, and after a resource attribute
 * changed.
 */
class OtlpInfoTest {
    private static final long T = 1_700_000_000_000L;
    @TempDir
    Path dir;

    @Test
    void infoJoinsResourceAttributesBackOntoTheSeries() throws Exception {
        try (TestTopics topics = new TestTopics()) {
            String topic = topics.create("otlp-info", 1);
            topics.sendAndWait(topic, 0, request("checkout", "pod-1", "v1", T).toByteArray());
            topics.sendAndWait(topic, 0, request("checkout", "pod-2", "v1", T).toByteArray());
            topics.sendAndWait(topic, 0, request("checkout", "pod-1", "v2", T + 60_000).toByteArray()); // redeployed
            String group = SharedKafka.unique("otlp-info");
            try (IngestInstance sluice = new IngestInstance(dir, IngestInstance.headOptions(dir),
                    TestTopics.config(group, Map.of(topic, PayloadFormat.OTLP)));
                 HttpReadBack api = new HttpReadBack(sluice.head, sluice.registry)) {
                topics.awaitCommittedToEnd(group, topic, 1);

                assertThat(api.instant("queue_size", T)).containsExactly(
                        "queue_size{instance=\"pod-1\",job=\"checkout\",otel_scope_name=\"lib\"} 3",
                        "queue_size{instance=\"pod-2\",job=\"checkout\",otel_scope_name=\"lib\"} 3");
                assertThat(api.instant("info(queue_size)", T)).containsExactly(
                        "queue_size{deployment_version=\"v1\",instance=\"pod-1\",job=\"checkout\",k8s_cluster_name=\"eu-1\","
                                + "otel_scope_name=\"lib\"} 3",
                        "queue_size{deployment_version=\"v1\",instance=\"pod-2\",job=\"checkout\",k8s_cluster_name=\"eu-1\","
                                + "otel_scope_name=\"lib\"} 3");
                // A minute later pod-1 runs v2: its newer target_info sample wins; pod-2's is still in the lookback.
                assertThat(api.instant("info(queue_size, {deployment_version=~\".+\"})", T + 60_000)).containsExactly(
                        "queue_size{deployment_version=\"v1\",instance=\"pod-2\",job=\"checkout\",otel_scope_name=\"lib\"} 3",
                        "queue_size{deployment_version=\"v2\",instance=\"pod-1\",job=\"checkout\",otel_scope_name=\"lib\"} 3");
                assertThat(api.instant("sum by (deployment_version) (info(queue_size))", T + 60_000)).containsExactly(
                        "{deployment_version=\"v1\"} 3", "{deployment_version=\"v2\"} 3");
            }
        }
    }

    /** One service instance's request: a gauge of value 3 at {@code timeMs}, and its resource attributes. */
    private static OtlpMetrics.ExportMetricsServiceRequest request(String service, String instance, String version, long timeMs) {
        return OtlpMetrics.ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(OtlpMetrics.ResourceMetrics.newBuilder()
                        .setResource(OtlpMetrics.Resource.newBuilder().addAttributes(kv("service.name", service))
                                .addAttributes(kv("service.instance.id", instance)).addAttributes(kv("deployment.version", version))
                                .addAttributes(kv("k8s.cluster.name", "eu-1")))
                        .addScopeMetrics(OtlpMetrics.ScopeMetrics.newBuilder()
                                .setScope(OtlpMetrics.InstrumentationScope.newBuilder().setName("lib"))
                                .addMetrics(OtlpMetrics.Metric.newBuilder().setName("queue.size")
                                        .setGauge(OtlpMetrics.Gauge.newBuilder().addDataPoints(OtlpMetrics.NumberDataPoint.newBuilder()
                                                .setTimeUnixNano(timeMs * 1_000_000).setAsDouble(3))))))
                .build();
    }

    private static OtlpMetrics.KeyValue kv(String key, String value) {
        return OtlpMetrics.KeyValue.newBuilder().setKey(key).setValue(OtlpMetrics.AnyValue.newBuilder().setStringValue(value)).build();
    }
}
