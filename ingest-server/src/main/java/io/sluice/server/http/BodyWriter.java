package io.sluice.server.http;

import java.io.OutputStream;

/**
 * Writes a streamed reply body (see {@link Reply#streamed}). Runs on a worker thread of the server;
 * what it writes reaches the client in HTTP chunks of about 64 KiB, so a large answer is never held in
 * memory whole. {@code out} blocks while the client reads slowly (backpressure).
 *
 * <p>Failure: a {@link ReplyException} thrown before the first chunk left (the first 64 KiB) turns into
 * that exception's reply, like one thrown by a route; anything thrown later cuts the connection
 * without the terminating chunk, so the client sees a truncated transfer, never a complete-looking
 * wrong answer.
 */
@FunctionalInterface
public interface BodyWriter {
    void writeTo(OutputStream out) throws Exception;
}
