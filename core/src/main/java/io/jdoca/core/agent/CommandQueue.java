package io.jdoca.core.agent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A bounded many-producer, single-consumer queue through which other threads hand commands to an
 * agent (Vyukov's bounded queue: one sequence number per slot, producers claim a slot with a CAS on
 * the tail). Slots are allocated once at construction; {@link #offer} and {@link #poll} allocate
 * nothing and take no lock, so the agent may drain it in every duty cycle.
 *
 * <p>Threads: {@link #offer} from any thread; {@link #poll} and {@link #drain} only from the consumer
 * (the agent's thread). An optional waker (e.g. {@code pe::notifyWork}) runs after every successful
 * offer so a consumer sleeping in its idle strategy sees the command at once.
 */
public final class CommandQueue<T> {
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle TAIL;
    private static final VarHandle HEAD;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TAIL = l.findVarHandle(CommandQueue.class, "tail", long.class);
            HEAD = l.findVarHandle(CommandQueue.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long[] sequences;
    private final Object[] slots;
    private final int mask;
    private final Runnable waker;
    @SuppressWarnings("unused") // through TAIL
    private volatile long tail;
    @SuppressWarnings("unused") // through HEAD: written by the consumer only, read by size()
    private volatile long head;

    /** A queue of {@code capacity} slots (rounded up to a power of two, at least 2), without a waker. */
    public CommandQueue(int capacity) {
        this(capacity, null);
    }

    /** A queue of {@code capacity} slots (rounded up to a power of two, at least 2); {@code waker} may be null. */
    public CommandQueue(int capacity, Runnable waker) {
        if (capacity < 1 || capacity > 1 << 30) {
            throw new IllegalArgumentException("capacity: " + capacity + " is not between 1 and 2^30");
        }
        // At least 2: with one slot, "published" (t + 1) and "free for the next lap" (t + size) collide.
        int size = Math.max(2, Integer.highestOneBit(capacity));
        if (size < capacity) {
            size <<= 1;
        }
        this.sequences = new long[size];
        this.slots = new Object[size];
        this.mask = size - 1;
        this.waker = waker;
        for (int i = 0; i < size; i++) {
            sequences[i] = i;
        }
    }

    /** Slots in the queue. */
    public int capacity() {
        return slots.length;
    }

    /** Adds {@code command}; returns false if the queue is full. Any thread; allocation-free. */
    public boolean offer(T command) {
        Objects.requireNonNull(command, "command");
        long t = (long) TAIL.getVolatile(this);
        while (true) {
            int i = (int) t & mask;
            long seq = (long) SEQ.getAcquire(sequences, i);
            long diff = seq - t;
            if (diff == 0) {
                if (TAIL.weakCompareAndSet(this, t, t + 1)) {
                    slots[i] = command; // published by the release below
                    SEQ.setRelease(sequences, i, t + 1);
                    Runnable w = waker;
                    if (w != null) {
                        w.run();
                    }
                    return true;
                }
                t = (long) TAIL.getVolatile(this);
            } else if (diff < 0) {
                return false; // the slot still holds an element a lap behind: full
            } else {
                t = (long) TAIL.getVolatile(this);
            }
        }
    }

    /** Takes the oldest command, or null if none is ready. Consumer thread only; allocation-free. */
    @SuppressWarnings("unchecked")
    public T poll() {
        long h = (long) HEAD.getOpaque(this);
        int i = (int) h & mask;
        long seq = (long) SEQ.getAcquire(sequences, i);
        if (seq != h + 1) {
            return null; // empty, or a producer has claimed the slot but not published yet
        }
        T c = (T) slots[i];
        slots[i] = null;
        SEQ.setRelease(sequences, i, h + slots.length);
        HEAD.setRelease(this, h + 1);
        return c;
    }

    /**
     * Hands up to {@code limit} commands to {@code handler} in order; returns how many. Consumer
     * thread only; allocation-free when {@code handler} is a field, not a capturing lambda per call.
     */
    public int drain(Consumer<? super T> handler, int limit) {
        int n = 0;
        T c;
        while (n < limit && (c = poll()) != null) {
            handler.accept(c);
            n++;
        }
        return n;
    }

    /** Commands waiting (a snapshot; exact only on the consumer thread with producers quiet). */
    public int size() {
        long s = (long) TAIL.getVolatile(this) - (long) HEAD.getVolatile(this);
        return (int) Math.max(0, Math.min(s, slots.length));
    }

    public boolean isEmpty() {
        return size() == 0;
    }
}
