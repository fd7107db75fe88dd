package io.sluice.core.head.shard;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread of one shard: replays its WAL ({@link Shard#start()}), then calls
 * {@link Shard#doWork()} until stopped, backing off when idle, then drains the queue and closes
 * the shard (which syncs the WAL). The shard itself knows nothing of threads (Agrona's agent and
 * its runner), so tests drive shards by hand and production gives each its own thread.
 */
public final class ShardRunner implements Runnable {
    private static final System.Logger LOG = System.getLogger(ShardRunner.class.getName());
    /** Idle back-off: spin this many empty rounds, then park 50 µs, doubling up to 1 ms (an idle shard costs ~0.1% CPU). */
    private static final int SPINS = 100;
    private static final long MIN_PARK_NS = 50_000;
    private static final long MAX_PARK_NS = 1_000_000;

    private final Shard shard;
    private final CountDownLatch started;
    private volatile boolean running = true;
    private volatile Throwable failure;
    private Thread thread;

    public ShardRunner(Shard shard, CountDownLatch started) {
        this.shard = shard;
        this.started = started;
    }

    public void startThread() {
        thread = Thread.ofPlatform().name("sluice-shard-" + shard.index()).unstarted(this);
        shard.wakeOnSubmit(thread);
        thread.start();
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
        long parkNs = MIN_PARK_NS;
        try {
            while (running) {
                if (shard.doWork() > 0) {
                    idle = 0;
                    parkNs = MIN_PARK_NS;
                } else if (++idle < SPINS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(parkNs);
                    parkNs = Math.min(MAX_PARK_NS, parkNs * 2);
                }
            }
            // Drain what was submitted before the stop. If the WAL refuses writes (a full disk), give up:
            // those batches' offsets were never durable, so Kafka re-delivers them after the restart.
            while (shard.hasPendingWork()) {
                if (shard.doWork() == 0 && shard.walError() != null) {
                    break;
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

    public Throwable failure() {
        return failure;
    }

    public boolean isAlive() {
        return thread != null && thread.isAlive();
    }

    /** Stops after draining the queue; waits for the thread to end. */
    public void stop() throws InterruptedException {
        running = false;
        if (thread != null) {
            LockSupport.unpark(thread);
            thread.join();
        }
    }
}
