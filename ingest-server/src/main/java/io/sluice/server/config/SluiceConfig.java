package io.sluice.server.config;

import io.sluice.core.head.HeadOptions;
import io.sluice.core.labels.LabelLimits;
import io.sluice.server.format.DecoderLimits;
import java.nio.file.Path;

/**
 * The whole configuration of one Sluice process, typed and immutable, built once at start by
 * {@link ConfigLoader} and passed to what needs it (no global state).
 *
 * @param head          shards, WAL and queue settings; its data directory is {@code data.dir}
 * @param decoderLimits record size limits ({@code limits.record-bytes}, {@code limits.uncompressed-bytes})
 * @param labelLimits   label limits ({@code limits.labels-per-series}, ...)
 * @param query         query API limits ({@code query.max-series}, {@code query.max-samples}, {@code query.lookback-delta}, {@code query.timeout})
 * @param http          HTTP limits ({@code http.threads}, {@code http.max-connections}, the timeouts)
 * @param storeApi      the Thanos StoreAPI gRPC server ({@code store.*}); {@link StoreApiOptions#enabled()} false when off
 */
public record SluiceConfig(Path dataDir, String httpHost, int httpPort, HeadOptions head, KafkaSettings kafka,
                           DecoderLimits decoderLimits, LabelLimits labelLimits, QueryOptions query, HttpOptions http,
                           StoreApiOptions storeApi) {
    /** Query API requests that run at once ({@code http.threads}). */
    public int httpThreads() {
        return http.threads();
    }
}
