package io.sluice.server.format;

import io.sluice.server.format.nativebatch.NativeBatchDecoder;
import io.sluice.server.format.remotewrite.RemoteWriteDecoder;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The payload formats a topic can be configured with, by their configuration names. Formats still to
 * come ({@code influx}, {@code otlp}, {@code json}, remote-write 2.0) are added as constants here with
 * their decoder; until then their names are rejected by {@link #fromConfigName}.
 */
public enum PayloadFormat {
    /** Snappy-compressed protobuf WriteRequest, remote-write 1.0, as Prometheus sends it. */
    PROMETHEUS_REMOTE_WRITE("prometheus-remote-write") {
        @Override
        public PayloadDecoder newDecoder(DecoderLimits limits) {
            return new RemoteWriteDecoder(limits);
        }
    },
    /** Sluice's native batch, docs/format/native-batch.md: the fastest path. */
    SLUICE("sluice") {
        @Override
        public PayloadDecoder newDecoder(DecoderLimits limits) {
            return new NativeBatchDecoder(limits);
        }
    };

    private final String configName;

    PayloadFormat(String configName) {
        this.configName = configName;
    }

    /** The name in configuration, e.g. {@code prometheus-remote-write}. */
    public String configName() {
        return configName;
    }

    /** A new decoder for one consumer thread; decoders are not thread-safe. */
    public abstract PayloadDecoder newDecoder(DecoderLimits limits);

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
