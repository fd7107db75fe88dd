package io.sluice.server.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.server.format.nativebatch.NativeBatchDecoder;
import io.sluice.server.format.remotewrite.RemoteWriteDecoder;
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
        assertThatThrownBy(() -> PayloadFormat.fromConfigName("influx"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown payload format 'influx'; known formats: prometheus-remote-write, sluice");
        assertThatThrownBy(() -> PayloadFormat.fromConfigName("SLUICE")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachFormatMakesAFreshDecoderOfItsKind() {
        PayloadDecoder first = PayloadFormat.SLUICE.newDecoder(DecoderLimits.DEFAULTS);
        assertThat(first).isInstanceOf(NativeBatchDecoder.class)
                .isNotSameAs(PayloadFormat.SLUICE.newDecoder(DecoderLimits.DEFAULTS));
        assertThat(PayloadFormat.PROMETHEUS_REMOTE_WRITE.newDecoder(DecoderLimits.DEFAULTS)).isInstanceOf(RemoteWriteDecoder.class);
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
