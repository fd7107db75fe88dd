package io.sluice.server.http;

import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many blocking routes work at once ({@code http.threads}). Each blocking request runs on its
 * own virtual thread, which holds a permit while it works; a streamed reply whose client does not take
 * its bytes gives its permit back while it waits ({@link ChunkedBodyStream}), so a client that stops
 * reading holds a connection and a bounded buffer, never one of the query slots. Fair: requests start
 * in arrival order.
 */
final class QueryPermits {
    private final Semaphore permits;
    private final int count;
    private final long maxWaitMs;
    private final AtomicInteger waitingForClients = new AtomicInteger();

    /** {@code maxWaitMs}: the longest a writer waits for one write (the connection's idle timeout closes it sooner). */
    QueryPermits(int count, long maxWaitMs) {
        this.count = count;
        this.maxWaitMs = maxWaitMs;
        this.permits = new Semaphore(count, true);
    }

    void acquire() throws InterruptedException {
        permits.acquire();
    }

    void release() {
        permits.release();
    }

    /**
     * Waits, without a permit, until {@code written} is done (the client took the bytes before it), then
     * takes a permit again. Called by a permit holder.
     *
     * @throws IOException if the write failed (the connection closed, e.g. by the idle timeout) or did
     *                     not finish in the longest wait
     */
    void awaitClient(Future<?> written) throws IOException {
        permits.release();
        waitingForClients.incrementAndGet();
        boolean done;
        try {
            done = written.await(maxWaitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the client", e);
        } finally {
            waitingForClients.decrementAndGet();
            permits.acquireUninterruptibly();
        }
        if (!done) {
            throw new IOException("the client read nothing for " + maxWaitMs + " ms");
        }
        if (!written.isSuccess()) {
            throw new IOException("writing to the client failed: " + written.cause(), written.cause());
        }
    }

    /** Streamed replies waiting for their client to read (each without a permit). */
    int waitingForClients() {
        return waitingForClients.get();
    }

    /** Permits held now (requests working, not those waiting for a client). */
    int inUse() {
        return count - permits.availablePermits();
    }
}
