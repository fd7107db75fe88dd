package io.sluice.server.format;

import static io.sluice.server.format.PayloadFormat.PROMETHEUS_REMOTE_WRITE;
import static io.sluice.server.format.PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.format.influx.InfluxDecoder;
import io.sluice.server.format.json.JsonDecoder;
import io.sluice.server.format.nativebatch.NativeBatchDecoder;
import io.sluice.server.format.otlp.OtlpDecoder;
import io.sluice.server.format.remotewrite.RemoteWriteDecoder;
import io.sluice.server.format.remotewrite.RemoteWriteV2Decoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PayloadFormatTest {
    @Test
    void formatsAreFoundByTheirConfigurationNames() {
        assertThat(PayloadFormat.fromConfigName("prometheus-remote-write")).isEqualTo(PayloadFormat.PROMETHEUS_REMOTE_WRITE);
        assertThat(PayloadFormat.fromConfigName("sluice")).isEqualTo(PayloadFormat.SLUICE);
        for (PayloadFormat format : PayloadFormat.values()) {
            assertThat(PayloadFormat.fromConfigName(format.configName())).isSameAs(format);
        }
    }

    @Test
    void anUnknownNameListsTheKnownOnes() {
        assertThatThrownBy(() -> PayloadFormat.fromConfigName("graphite"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown payload format 'graphite'; known formats: prometheus-remote-write,"
                        + " prometheus-remote-write-v2, sluice, influx, otlp, json");
        assertThatThrownBy(() -> PayloadFormat.fromConfigName("SLUICE")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachFormatMakesAFreshDecoderOfItsKind() {
        PayloadDecoder first = PayloadFormat.SLUICE.newDecoder(DecoderLimits.DEFAULTS);
        assertThat(first).isInstanceOf(NativeBatchDecoder.class)
                .isNotSameAs(PayloadFormat.SLUICE.newDecoder(DecoderLimits.DEFAULTS));
        assertThat(PayloadFormat.PROMETHEUS_REMOTE_WRITE.newDecoder(DecoderLimits.DEFAULTS)).isInstanceOf(RemoteWriteDecoder.class);
        assertThat(PayloadFormat.PROMETHEUS_REMOTE_WRITE_V2.newDecoder(DecoderLimits.DEFAULTS)).isInstanceOf(RemoteWriteV2Decoder.class);
        assertThat(PayloadFormat.INFLUX.newDecoder(DecoderLimits.DEFAULTS)).isInstanceOf(InfluxDecoder.class);
        assertThat(PayloadFormat.OTLP.newDecoder(DecoderLimits.DEFAULTS)).isInstanceOf(OtlpDecoder.class);
        assertThat(PayloadFormat.JSON.newDecoder(DecoderLimits.DEFAULTS)).isInstanceOf(JsonDecoder.class);
    }

    private static byte[] header(String value) {
        return value.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void theContentTypeHeaderSelectsTheRemoteWriteVersionOfARecord() throws PayloadException {
        for (PayloadFormat topic : new PayloadFormat[] {PROMETHEUS_REMOTE_WRITE, PROMETHEUS_REMOTE_WRITE_V2}) {
            assertThat(topic.forRecord(null)).as("no header: the configuration decides").isSameAs(topic);
            assertThat(topic.forRecord(header("application/x-protobuf"))).isSameAs(PROMETHEUS_REMOTE_WRITE);
            assertThat(topic.forRecord(header("application/x-protobuf;proto=prometheus.WriteRequest")))
                    .isSameAs(PROMETHEUS_REMOTE_WRITE);
            assertThat(topic.forRecord(header("application/x-protobuf;proto=io.prometheus.write.v2.Request")))
                    .isSameAs(PROMETHEUS_REMOTE_WRITE_V2);
            assertThat(topic.forRecord(header(" Application/X-Protobuf ; charset=x ; PROTO=\"io.prometheus.write.v2.Request\" ;")))
                    .as("case, white space, quotes and other parameters").isSameAs(PROMETHEUS_REMOTE_WRITE_V2);
        }
        for (PayloadFormat other : new PayloadFormat[] {PayloadFormat.SLUICE, PayloadFormat.INFLUX, PayloadFormat.OTLP, PayloadFormat.JSON}) {
            assertThat(other.forRecord(header("application/x-protobuf;proto=io.prometheus.write.v2.Request")))
                    .as("other formats ignore the header").isSameAs(other);
        }
        assertThat(PayloadFormat.isContentTypeHeader("content-type")).isTrue();
        assertThat(PayloadFormat.isContentTypeHeader("Content-Encoding")).isFalse();
    }

    @Test
    void anUnknownContentTypeRejectsTheRecordInsteadOfGuessingItsVersion() {
        String[] unknown = {"", "application/json", "application/x-protobuf;proto=io.prometheus.write.v3.Request",
            "application/x-protobuf;proto=IO.prometheus.write.v2.Request", "application/x-protobuffer",
            "application/x-protobuf;proto", "application/x-protobuf;proto=", "application/x-protobuf proto=x",
            "application/x-protobuf;proto=\"io.prometheus.write.v2.Request", "text/plain\u0001"};
        for (String value : unknown) {
            assertThatThrownBy(() -> PROMETHEUS_REMOTE_WRITE.forRecord(header(value))).as("'%s'", value)
                    .isInstanceOfSatisfying(PayloadException.class, e -> {
                        assertThat(e.reason()).isEqualTo(PayloadException.Reason.UNSUPPORTED_CONTENT_TYPE);
                        assertThat(e.getMessage()).contains("Content-Type header").doesNotContain("\u0001");
                    });
        }
    }

    @Test
    void limitsMustBePositiveAndReasonsHaveStableLabels() {
        assertThatThrownBy(() -> new DecoderLimits(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DecoderLimits(1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(PayloadException.Reason.BAD_MAGIC.label()).isEqualTo("bad_magic");
        PayloadException e = new PayloadException(PayloadException.Reason.TRUNCATED, 12, "record", "sampleCount needs 4 bytes, 1 left");
        assertThat(e).hasMessage("truncated at byte 12 of the record: sampleCount needs 4 bytes, 1 left");
        assertThat(e.getStackTrace()).as("no stack trace for bad input").isEmpty();
    }
}
