package io.sluice.server.config;

import io.sluice.core.head.HeadOptions;
import io.sluice.core.labels.LabelLimits;
import io.sluice.server.format.DecoderLimits;
import io.sluice.server.query.QueryOptions;
import java.nio.file.Path;

/**
 * The whole configuration of one Sluice process, typed and immutable, built once at start by
 * {@link ConfigLoader} and passed to what needs it (no global state).
 *
 * @param head          shards, WAL and queue settings; its data directory is {@code data.dir}
 * @param decoderLimits record size limits ({@code limits.record-bytes}, {@code limits.uncompressed-bytes})
 * @param labelLimits   label limits ({@code limits.labels-per-series}, ...)
 * @param query         query API limits ({@code query.max-series}, {@code query.max-samples}, {@code query.lookback-delta}, {@code query.timeout})
 * @param httpThreads   threads answering the query API ({@code http.threads})
 */
public record SluiceConfig(Path dataDir, String httpHost, int httpPort, HeadOptions head, KafkaSettings kafka,
                           DecoderLimits decoderLimits, LabelLimits labelLimits, QueryOptions query, int httpThreads) {
}
