package io.jdoca.core.exec;

/**
 * An intrusive FIFO of tasks (linked through the task itself, so enqueue/dequeue allocate nothing).
 * A task sits in at most one TaskQueue at a time. For context implementations.
 *
 * <p>Not thread-safe: one thread only.
 */
public final class TaskQueue {
    private Task head;
    private Task tail;
    private int size;

    public void add(Task t) {
        t.nextInQueue = null;
        if (tail == null) {
            head = t;
        } else {
            tail.nextInQueue = t;
        }
        tail = t;
        size++;
    }

    /** Removes and returns the oldest task, or null. */
    public Task poll() {
        Task t = head;
        if (t != null) {
            head = t.nextInQueue;
            if (head == null) {
                tail = null;
            }
            t.nextInQueue = null;
            size--;
        }
        return t;
    }

    public Task peek() {
        return head;
    }

    public boolean isEmpty() {
        return head == null;
    }

    public int size() {
        return size;
    }
}
