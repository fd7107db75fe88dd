package io.sluice.server.kafka;

import io.sluice.core.labels.LabelLimits;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.format.PayloadFormat;
import java.util.Map;

/** STUB of the kafka branch's API (see ingest-server/pom.xml, profile kafka-api-stub); deleted at merge. */
public record IngestConfig(String bootstrapServers, String groupId, String groupInstanceId, int consumerThreads,
                           Map<String, PayloadFormat> formatByTopic, Map<String, String> kafkaProperties,
                           String deadLetterTopic, DecoderLimits decoderLimits, LabelLimits labelLimits,
                           long commitIntervalMs, long pollTimeoutMs) {
}
