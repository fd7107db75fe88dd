package io.sluice.server.query;

import io.airlift.compress.v3.snappy.SnappyJavaCompressor;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.sluice.core.head.Head;
import io.sluice.core.head.read.HeadQuery;
import io.sluice.core.head.series.SeriesSnapshot;
import io.sluice.server.http.Reply;
import io.sluice.server.http.Route;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Map;

/**
 * {@code POST /api/v1/read}: Prometheus remote-read (docs/format/remote-read.md), so a Prometheus
 * server with {@code remote_read} pointed here runs full PromQL over Sluice's head.
 *
 * <ul>
 * <li>SAMPLES (the default): a snappy-compressed {@code ReadResponse} with one {@code QueryResult}
 * per query, each series' raw samples in [start, end] bit-exact (NaN payloads and stale markers
 * included), series in label order. Built in memory (snappy needs the whole block), within the
 * query limits.</li>
 * <li>STREAMED_XOR_CHUNKS (when the request lists it first): frames of one
 * {@code ChunkedReadResponse} each, streamed as chunks of the HTTP response: each series' whole XOR
 * chunks that overlap [start, end], copied straight from the head (they are Prometheus chunkenc
 * bytes), at most ~1 MiB of chunks per frame (a longer series continues in the next frame).</li>
 * </ul>
 * Hints are ignored. Limits: series and samples (for chunks: every sample of a sent chunk) of the
 * whole request count against {@code query.max-series} / {@code query.max-samples}.
 */
final class RemoteReadRoute implements Route {
    static final String PATH = "/api/v1/read";
    static final String SAMPLES_CONTENT_TYPE = "application/x-protobuf";
    static final String STREAMED_CONTENT_TYPE = "application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse";
    /** Prometheus' default {@code remote_read_max_bytes_in_frame}. */
    static final int MAX_FRAME_CHUNK_BYTES = 1 << 20;

    private final Head head;
    private final QueryContext context;

    RemoteReadRoute(QueryContext context) {
        this.head = context.head();
        this.context = context;
    }

    @Override
    public Reply handle(FullHttpRequest request) throws ApiError {
        byte[] body = ByteBufUtil.getBytes(request.content());
        ReadRequestDecoder.ReadRequest read = new ReadRequestDecoder().decode(body, body.length);
        QueryBudget budget = context.budget();
        if (read.responseType() == ReadRequestDecoder.STREAMED_XOR_CHUNKS) {
            return Reply.streamed(STREAMED_CONTENT_TYPE, Map.of(), out -> streamChunks(read, budget, out));
        }
        return samples(read, budget);
    }

    private Reply samples(ReadRequestDecoder.ReadRequest read, QueryBudget budget) throws ApiError {
        ReadResponseWriter writer = new ReadResponseWriter();
        for (ReadRequestDecoder.ReadQuery q : read.queries()) {
            writer.beginResult();
            HeadQuery query = head.query(q.startMs(), q.endMs(), q.matchers());
            while (query.next()) {
                SeriesSnapshot snapshot = query.snapshot();
                SeriesSnapshot.Samples s = snapshot.samples();
                if (!s.next()) {
                    continue;
                }
                budget.addSeries();
                writer.beginSeries(snapshot);
                long n = 0;
                do {
                    writer.sample(s.timestampMs(), s.valueBits());
                    n++;
                } while (s.next());
                budget.addSamples(n);
                writer.endSeries();
            }
            writer.endResult();
        }
        SnappyJavaCompressor snappy = new SnappyJavaCompressor();
        byte[] compressed = new byte[snappy.maxCompressedLength(writer.responseLength())];
        int length = snappy.compress(writer.responseBytes(), 0, writer.responseLength(), compressed, 0, compressed.length);
        return new Reply(HttpResponseStatus.OK, SAMPLES_CONTENT_TYPE, java.util.Arrays.copyOf(compressed, length),
                Map.of("Content-Encoding", "snappy"));
    }

    private void streamChunks(ReadRequestDecoder.ReadRequest read, QueryBudget budget, OutputStream out)
            throws IOException, ApiError {
        ReadResponseWriter writer = new ReadResponseWriter();
        SeriesSnapshot.ExactChunk chunk = new SeriesSnapshot.ExactChunk();
        for (int i = 0; i < read.queries().size(); i++) {
            ReadRequestDecoder.ReadQuery q = read.queries().get(i);
            HeadQuery query = head.query(q.startMs(), q.endMs(), q.matchers());
            while (query.next()) {
                SeriesSnapshot snapshot = query.snapshot();
                writer.beginChunks();
                boolean counted = false;
                for (int c = 0; c < snapshot.chunkCount(); c++) {
                    snapshot.exactChunk(c, chunk);
                    if (chunk.maxTimeMs() < q.startMs() || chunk.minTimeMs() > q.endMs()) {
                        continue;
                    }
                    if (!counted) {
                        budget.addSeries();
                        counted = true;
                    }
                    budget.addSamples(chunk.numSamples());
                    writer.chunk(chunk);
                    if (writer.chunkBytes() >= MAX_FRAME_CHUNK_BYTES) {
                        writer.writeFrame(snapshot, i, out);
                        writer.beginChunks();
                    }
                }
                if (writer.chunkBytes() > 0) {
                    writer.writeFrame(snapshot, i, out);
                }
            }
        }
    }
}
