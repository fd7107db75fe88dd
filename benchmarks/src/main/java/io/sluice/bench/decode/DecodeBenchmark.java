package io.sluice.bench.decode;

import io.sluice.bench.AbstractBenchmark;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadDecoder;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadFormat;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Decoding one Kafka record value of {@link NodeExporterPayloads} (1,000 series, 5,500 samples) into
 * a counting sink, per format: the decode part of the consumer path, without broker, hashing or
 * routing. One operation is one sample, so the score is ns/sample and {@code -prof gc}'s
 * {@code gc.alloc.rate.norm} is B/sample.
 *
 * <ul>
 *   <li>{@code prometheus-remote-write}: snappy decompression plus protobuf parsing.
 *   <li>{@code sluice}: native batch with raw 8-byte timestamps (16 bytes a sample), the fastest path.
 *   <li>{@code sluice-deltas}: native batch with zigzag varint timestamp deltas (9–11 bytes a sample).
 *   <li>{@code sluice-crc32c}: raw timestamps and a CRC32C over the body.
 *   <li>{@code prometheus-remote-write-v2}: snappy decompression plus a symbols table and label references.
 *   <li>{@code influx}: 5,500 lines of line protocol, one sample each, nanosecond timestamps.
 *   <li>{@code otlp}: one gauge per metric family, one point a sample with nine attributes (uncompressed).
 *   <li>{@code json}: 5,500 records of one object each (one sample a Kafka record), all decoded per operation.
 * </ul>
 */
@State(Scope.Thread)
public class DecodeBenchmark extends AbstractBenchmark {
    @Param({"prometheus-remote-write", "sluice", "sluice-deltas", "sluice-crc32c", "prometheus-remote-write-v2", "influx",
        "otlp", "json"})
    public String format;

    private final DecodeCountingSink sink = new DecodeCountingSink();
    private PayloadDecoder decoder;
    private byte[] record;
    /** The records of one operation: one for every format but json, which has one a sample. */
    private byte[][] records;

    @Setup
    public void setUp() {
        NodeExporterPayloads payloads = new NodeExporterPayloads(42);
        switch (format) {
            case "prometheus-remote-write" -> record = payloads.remoteWrite();
            case "sluice" -> record = payloads.nativeBatch(false, false);
            case "sluice-deltas" -> record = payloads.nativeBatch(true, false);
            case "sluice-crc32c" -> record = payloads.nativeBatch(false, true);
            case "prometheus-remote-write-v2" -> record = payloads.remoteWriteV2();
            case "influx" -> record = payloads.influx();
            case "otlp" -> record = payloads.otlp();
            case "json" -> records = payloads.json();
            default -> throw new IllegalArgumentException("unknown format parameter " + format);
        }
        if (records == null) {
            records = new byte[][] {record};
        }
        String configName = format.startsWith("sluice") ? "sluice" : format;
        decoder = PayloadFormat.fromConfigName(configName).newDecoder(DecoderLimits.DEFAULTS);
    }

    @Benchmark
    @OperationsPerInvocation(NodeExporterPayloads.SAMPLES)
    public long decode() throws PayloadException {
        sink.clear();
        for (byte[] value : records) {
            decoder.decode(value, 0, value.length, 0, sink);
        }
        return sink.sampleChecksum();
    }

    DecodeCountingSink sink() {
        return sink;
    }

    /** The bytes of one operation's records. */
    int recordBytes() {
        int total = 0;
        for (byte[] value : records) {
            total += value.length;
        }
        return total;
    }
}
