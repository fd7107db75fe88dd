package io.sluice.server.format.otlp;

import io.sluice.server.format.ByteWriter;
import io.sluice.server.format.MetricSink;

/**
 * What one OTLP Resource contributes: {@code job} ({@code service.namespace/service.name}, or
 * {@code service.name}) and {@code instance} ({@code service.instance.id}) on every series, and the
 * labels of its {@code target_info} series (every other resource attribute), emitted once per
 * ResourceMetrics at the latest timestamp among its samples. Reset for each ResourceMetrics.
 *
 * <p>Not thread-safe; owned by one decoder.
 */
final class OtlpResource {
    static final byte[] SERVICE_NAME = PrometheusNames.ascii("service.name");
    static final byte[] SERVICE_NAMESPACE = PrometheusNames.ascii("service.namespace");
    static final byte[] SERVICE_INSTANCE_ID = PrometheusNames.ascii("service.instance.id");
    static final byte[] TARGET_INFO = PrometheusNames.ascii("target_info");

    final ByteWriter arena = new ByteWriter(1024);
    final OtlpLabels targetInfo = new OtlpLabels();
    private byte[] jobBuf;
    private int jobOff;
    private int jobLen = -1;
    private byte[] instanceBuf;
    private int instanceOff;
    private int instanceLen = -1;
    private boolean anySample;
    private long latestTimestampMs;

    void clear() {
        arena.reset();
        targetInfo.clear();
        jobLen = -1;
        instanceLen = -1;
        anySample = false;
    }

    void job(byte[] buf, int off, int len) {
        jobBuf = buf;
        jobOff = off;
        jobLen = len;
    }

    void instance(byte[] buf, int off, int len) {
        instanceBuf = buf;
        instanceOff = off;
        instanceLen = len;
    }

    boolean hasJob() {
        return jobLen >= 0;
    }

    boolean hasInstance() {
        return instanceLen >= 0;
    }

    /** Emits {@code job} and {@code instance}, those the resource has. */
    void emitIdentity(MetricSink sink) {
        if (jobLen >= 0) {
            sink.label(OtlpLabels.JOB, 0, OtlpLabels.JOB.length, jobBuf, jobOff, jobLen);
        }
        if (instanceLen >= 0) {
            sink.label(OtlpLabels.INSTANCE, 0, OtlpLabels.INSTANCE.length, instanceBuf, instanceOff, instanceLen);
        }
    }

    /** Notes a sample emitted for this resource, for the timestamp of target_info. */
    void sampled(long timestampMs) {
        latestTimestampMs = anySample ? Math.max(latestTimestampMs, timestampMs) : timestampMs;
        anySample = true;
    }

    /** Emits target_info (value 1) if the resource has attributes beyond its identity and any sample. */
    void emitTargetInfo(MetricSink sink) {
        if (!anySample || targetInfo.liveCount() == 0) {
            return;
        }
        sink.beginSeries();
        sink.label(OtlpLabels.METRIC_NAME, 0, OtlpLabels.METRIC_NAME.length, TARGET_INFO, 0, TARGET_INFO.length);
        emitIdentity(sink);
        targetInfo.emit(sink, null, null);
        sink.endLabels();
        sink.sample(latestTimestampMs, 1.0);
    }
}
