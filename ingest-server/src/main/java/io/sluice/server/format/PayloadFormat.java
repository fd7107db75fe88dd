package io.sluice.server.format;

import io.sluice.server.format.influx.InfluxDecoder;
import io.sluice.server.format.json.JsonDecoder;
import io.sluice.server.format.nativebatch.NativeBatchDecoder;
import io.sluice.server.format.otlp.OtlpDecoder;
import io.sluice.server.format.remotewrite.RemoteWriteDecoder;
import io.sluice.server.format.remotewrite.RemoteWriteV2Decoder;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The payload formats a topic can be configured with, by their configuration names.
 *
 * <p>Remote-write has two versions whose payloads look alike (snappy-compressed protobuf), so a record
 * may say which one it carries the way Prometheus says it over HTTP: a {@value #CONTENT_TYPE_HEADER}
 * record header. {@link #forRecord} resolves the format of one record from the topic's format and
 * that header; the consumer decodes with a decoder of the resolved format.
 */
public enum PayloadFormat {
    /** Snappy-compressed protobuf WriteRequest, remote-write 1.0, as Prometheus sends it. */
    PROMETHEUS_REMOTE_WRITE("prometheus-remote-write", RemoteWriteDecoder::new, RemoteWriteDecoder.SKIP_REASONS),
    /** Snappy-compressed protobuf {@code io.prometheus.write.v2.Request}: remote-write 2.0 (symbols table). */
    PROMETHEUS_REMOTE_WRITE_V2("prometheus-remote-write-v2", RemoteWriteV2Decoder::new, RemoteWriteDecoder.SKIP_REASONS),
    /** Sluice's native batch, docs/format/native-batch.md: the fastest path. */
    SLUICE("sluice", NativeBatchDecoder::new, List.of()),
    /** InfluxDB line protocol, as Telegraf's Kafka output writes it; nanosecond timestamps. */
    INFLUX("influx", InfluxDecoder::new, InfluxDecoder.SKIP_REASONS),
    /** OTLP {@code ExportMetricsServiceRequest} protobuf, as the Collector's Kafka exporter writes it (otlp_proto). */
    OTLP("otlp", OtlpDecoder::new, OtlpDecoder.SKIP_REASONS),
    /** One sample per JSON object, as prometheus-kafka-adapter writes it. */
    JSON("json", JsonDecoder::new, List.of());

    /**
     * The Kafka record header that selects the remote-write version of a record (its key compared
     * ignoring case, see {@link #isContentTypeHeader}); the values are Prometheus' HTTP ones.
     */
    public static final String CONTENT_TYPE_HEADER = "Content-Type";

    private final String configName;
    private final Function<DecoderLimits, PayloadDecoder> decoderFactory;
    private final List<String> skipReasons;

    PayloadFormat(String configName, Function<DecoderLimits, PayloadDecoder> decoderFactory, List<String> skipReasons) {
        this.configName = configName;
        this.decoderFactory = decoderFactory;
        this.skipReasons = skipReasons;
    }

    /**
     * The {@code reason} labels of {@code sluice_decode_skipped_total{format=configName()}}: what this
     * format's decoders skip inside records they accept; index i is {@link PayloadDecoder#skippedInLastRecord(int)}'s
     * argument. Stable across releases (dashboards use them).
     */
    public List<String> skipReasons() {
        return skipReasons;
    }

    /** Whether a record's {@value #CONTENT_TYPE_HEADER} header can change its format ({@link #forRecord}): remote-write. */
    public boolean readsContentType() {
        return this == PROMETHEUS_REMOTE_WRITE || this == PROMETHEUS_REMOTE_WRITE_V2;
    }

    /** The name in configuration, e.g. {@code prometheus-remote-write}. */
    public String configName() {
        return configName;
    }

    /** A new decoder for one consumer thread; decoders are not thread-safe. */
    public PayloadDecoder newDecoder(DecoderLimits limits) {
        return decoderFactory.apply(limits);
    }

    /**
     * The format of one record of a topic configured with this format, given the value of the record's
     * {@value #CONTENT_TYPE_HEADER} header ({@code null} when it has none). Allocates nothing.
     *
     * <ul>
     *   <li>Formats other than remote-write ignore the header and return themselves.
     *   <li>A remote-write topic without the header returns itself: the configuration decides.
     *   <li>With the header, the header decides, whichever remote-write version the topic is configured
     *       with: {@code application/x-protobuf} alone or with {@code proto=prometheus.WriteRequest} is
     *       1.0, {@code proto=io.prometheus.write.v2.Request} is 2.0 (media type and parameter names
     *       compared ignoring case, the message name exactly, other parameters ignored).
     * </ul>
     *
     * @throws PayloadException {@link PayloadException.Reason#UNSUPPORTED_CONTENT_TYPE} when a remote-write
     *     record's header names another media type or message: the record is rejected like a malformed one
     */
    public PayloadFormat forRecord(byte[] contentType) throws PayloadException {
        if (contentType == null || !readsContentType()) {
            return this;
        }
        return switch (RemoteWriteContentType.versionOf(contentType)) {
            case RemoteWriteContentType.V1 -> PROMETHEUS_REMOTE_WRITE;
            case RemoteWriteContentType.V2 -> PROMETHEUS_REMOTE_WRITE_V2;
            default -> throw new PayloadException(PayloadException.Reason.UNSUPPORTED_CONTENT_TYPE, 0,
                    "Content-Type header", "'" + RemoteWriteContentType.printable(contentType)
                    + "' is not a remote-write body; expected application/x-protobuf, optionally with"
                    + " proto=prometheus.WriteRequest or proto=io.prometheus.write.v2.Request");
        };
    }

    /** Whether a Kafka header key is {@value #CONTENT_TYPE_HEADER} (HTTP header names ignore case). */
    public static boolean isContentTypeHeader(String headerKey) {
        return CONTENT_TYPE_HEADER.equalsIgnoreCase(headerKey);
    }

    /** The format a configuration names; the message lists the valid names. */
    public static PayloadFormat fromConfigName(String name) {
        for (PayloadFormat format : values()) {
            if (format.configName.equals(name)) {
                return format;
            }
        }
        throw new IllegalArgumentException("unknown payload format '" + name + "'; known formats: "
                + Arrays.stream(values()).map(PayloadFormat::configName).collect(Collectors.joining(", ")));
    }
}
