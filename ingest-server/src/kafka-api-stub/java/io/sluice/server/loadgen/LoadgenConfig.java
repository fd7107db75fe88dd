package io.sluice.server.loadgen;

import io.sluice.server.format.PayloadFormat;

/**
 * STUB of the kafka branch's API (see ingest-server/pom.xml, profile kafka-api-stub); deleted at merge.
 * The brief names only {@code Loadgen.run(LoadgenConfig)}; these components are the CLI's options.
 */
public record LoadgenConfig(String bootstrapServers, String topic, PayloadFormat format, int series, long samples,
                            double samplesPerSecond) {
}
