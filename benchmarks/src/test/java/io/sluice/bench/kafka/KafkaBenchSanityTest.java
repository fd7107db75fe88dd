package io.sluice.bench.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bench.decode.DecodeCountingSink;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadException;
import io.sluice.server.format.PayloadFormat;
import io.sluice.tools.loadgen.LoadPlan;
import io.sluice.tools.loadgen.LoadgenConfig;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The Kafka harnesses compute what they claim: the records hold the planned samples, and a small run completes. */
class KafkaBenchSanityTest {
    @ParameterizedTest
    @EnumSource(value = PayloadFormat.class, names = {"PROMETHEUS_REMOTE_WRITE", "SLUICE"}) // what the load generator writes
    void encodedRecordsHoldThePlannedSamples(PayloadFormat format) throws PayloadException {
        LoadgenConfig config = LoadgenConfig.of("unused:9092", "unused", format, 1_000, 25_000).withShape(300, 4);
        List<byte[]> records = RecordSets.encode(config);
        assertThat(records).hasSize((int) LoadPlan.records(config));
        long samples = 0;
        DecodeCountingSink sink = new DecodeCountingSink();
        for (byte[] r : records) {
            sink.clear();
            format.newDecoder(DecoderLimits.DEFAULTS).decode(r, 0, r.length, 0, sink);
            samples += sink.samples();
        }
        assertThat(samples).isEqualTo(25_000);
    }

    @Test
    void theConsumerPathHarnessStoresEverySampleItRoutes() throws Exception {
        // It throws if the head appended a different number of samples than were routed.
        ConsumerPathBench.main(new String[] {"--series", "2000", "--samples", "100000", "--warmup", "20000", "--shards", "2"});
    }
}
