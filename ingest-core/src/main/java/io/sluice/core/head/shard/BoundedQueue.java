package io.sluice.core.head.shard;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A bounded, lock-free, many-producer many-consumer array queue that never allocates after
 * construction and never blocks: a full queue makes {@link #offer} return false (the caller
 * applies backpressure), an empty one makes {@link #poll} return null.
 *
 * <p>Each slot carries a sequence number (the classic bounded-MPMC design): a producer may fill
 * slot {@code i} when its sequence equals the producer's ticket, a consumer may empty it when the
 * sequence equals ticket + 1. The element is written before the sequence is published with release
 * semantics and read after it is read with acquire semantics, so handing an object through the
 * queue also publishes everything written to it before {@code offer}.
 */
public final class BoundedQueue<E> {
    private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(BoundedQueue.class, "head", long.class);
            TAIL = lookup.findVarHandle(BoundedQueue.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Object[] elements;
    private final long[] sequences;
    private final int mask;
    @SuppressWarnings("unused") // accessed through HEAD
    private volatile long head;
    @SuppressWarnings("unused") // accessed through TAIL
    private volatile long tail;

    /** @param capacity rounded up to a power of two, at least 2 */
    public BoundedQueue(int capacity) {
        int size = Math.max(2, Integer.highestOneBit(capacity - 1) << 1);
        elements = new Object[size];
        sequences = new long[size];
        mask = size - 1;
        for (int i = 0; i < size; i++) {
            sequences[i] = i;
        }
    }

    public int capacity() {
        return elements.length;
    }

    /** Adds {@code e}; false if the queue is full. */
    public boolean offer(E e) {
        if (e == null) {
            throw new NullPointerException("null element");
        }
        while (true) {
            long ticket = (long) TAIL.getVolatile(this);
            int slot = (int) ticket & mask;
            long sequence = (long) SEQUENCE.getAcquire(sequences, slot);
            if (sequence == ticket) {
                if (TAIL.compareAndSet(this, ticket, ticket + 1)) {
                    elements[slot] = e;
                    SEQUENCE.setRelease(sequences, slot, ticket + 1);
                    return true;
                }
            } else if (sequence < ticket) {
                return false; // the slot still holds an element from the previous lap: full
            }
            Thread.onSpinWait();
        }
    }

    /** Removes the oldest element, or returns null if there is none. */
    @SuppressWarnings("unchecked")
    public E poll() {
        while (true) {
            long ticket = (long) HEAD.getVolatile(this);
            int slot = (int) ticket & mask;
            long sequence = (long) SEQUENCE.getAcquire(sequences, slot);
            if (sequence == ticket + 1) {
                if (HEAD.compareAndSet(this, ticket, ticket + 1)) {
                    E e = (E) elements[slot];
                    elements[slot] = null;
                    SEQUENCE.setRelease(sequences, slot, ticket + elements.length);
                    return e;
                }
            } else if (sequence < ticket + 1) {
                return null; // not yet filled: empty
            }
            Thread.onSpinWait();
        }
    }

    /** Elements in the queue at some moment during the call (exact when quiescent). */
    public int size() {
        long h = (long) HEAD.getVolatile(this);
        long t = (long) TAIL.getVolatile(this);
        return (int) Math.max(0, Math.min(elements.length, t - h));
    }
}
