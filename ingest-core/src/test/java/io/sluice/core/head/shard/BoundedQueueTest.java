package io.sluice.core.head.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BoundedQueueTest {
    @Test
    void fullQueueRefusesAndEmptyQueueReturnsNull() {
        BoundedQueue<Integer> queue = new BoundedQueue<>(4);
        assertThat(queue.capacity()).isEqualTo(4);
        assertThat(queue.poll()).isNull();
        for (int i = 0; i < 4; i++) {
            assertThat(queue.offer(i)).isTrue();
        }
        assertThat(queue.offer(99)).as("full").isFalse();
        assertThat(queue.size()).isEqualTo(4);
        for (int i = 0; i < 4; i++) {
            assertThat(queue.poll()).isEqualTo(i);
        }
        assertThat(queue.poll()).isNull();
        assertThat(new BoundedQueue<>(5).capacity()).isEqualTo(8);
    }

    @Test
    void manyProducersManyConsumersLoseAndDuplicateNothing() throws InterruptedException {
        BoundedQueue<Long> queue = new BoundedQueue<>(64);
        int producers = 3;
        int perProducer = 200_000;
        AtomicLong sum = new AtomicLong();
        AtomicLong count = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            long base = (long) p * perProducer;
            threads.add(Thread.ofPlatform().start(() -> {
                for (long i = 0; i < perProducer; i++) {
                    while (!queue.offer(base + i)) {
                        Thread.onSpinWait();
                    }
                }
            }));
        }
        long total = (long) producers * perProducer;
        for (int c = 0; c < 2; c++) {
            threads.add(Thread.ofPlatform().start(() -> {
                while (count.get() < total) {
                    Long v = queue.poll();
                    if (v != null) {
                        sum.addAndGet(v);
                        count.incrementAndGet();
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(count.get()).isEqualTo(total);
        assertThat(sum.get()).isEqualTo(total * (total - 1) / 2);
        assertThat(queue.poll()).isNull();
    }
}
