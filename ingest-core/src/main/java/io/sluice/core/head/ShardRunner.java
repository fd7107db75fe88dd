package io.sluice.core.head;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread of one shard: replays its WAL ({@link Shard#start()}), then calls
 * {@link Shard#doWork()} until stopped, backing off when idle, then drains the queue and closes
 * the shard (which syncs the WAL). The shard itself knows nothing of threads (Agrona's agent and
 * its runner), so tests drive shards by hand and production gives each its own thread.
 */
final class ShardRunner implements Runnable {
    private static final System.Logger LOG = System.getLogger(ShardRunner.class.getName());
    /** Idle back-off: spin this many empty rounds, then park. */
    private static final int SPINS = 100;
    private static final long PARK_NS = 100_000;

    private final Shard shard;
    private final CountDownLatch started;
    private volatile boolean running = true;
    private volatile Throwable failure;
    private Thread thread;

    ShardRunner(Shard shard, CountDownLatch started) {
        this.shard = shard;
        this.started = started;
    }

    void startThread() {
        thread = Thread.ofPlatform().name("sluice-shard-" + shard.index()).start(this);
    }

    @Override
    public void run() {
        try {
            shard.start();
        } catch (Throwable t) {
            failure = t;
            LOG.log(System.Logger.Level.ERROR, "shard " + shard.index() + " failed to open its WAL", t);
            return;
        } finally {
            started.countDown();
        }
        int idle = 0;
        try {
            while (running) {
                if (shard.doWork() > 0) {
                    idle = 0;
                } else if (++idle < SPINS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(PARK_NS);
                }
            }
            while (shard.queueDepth() > 0 || shard.walError() == null && shard.doWork() > 0) {
                if (shard.doWork() == 0 && shard.walError() != null) {
                    break; // cannot drain while the WAL refuses writes; the queued batches are re-consumed
                }
            }
        } catch (Throwable t) {
            failure = t;
            LOG.log(System.Logger.Level.ERROR, "shard " + shard.index() + " stopped on an internal error", t);
        } finally {
            try {
                shard.close();
            } catch (IOException | RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "shard " + shard.index() + " failed to close its WAL", e);
            }
        }
    }

    Throwable failure() {
        return failure;
    }

    boolean isAlive() {
        return thread != null && thread.isAlive();
    }

    /** Stops after draining the queue; waits for the thread to end. */
    void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            LockSupport.unpark(thread);
            thread.join();
        }
    }
}
