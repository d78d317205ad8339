package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A fixed array of {@code struct pollfd} ({@link VerbsLayouts#POLLFD}) and {@code poll(2)} over it: how a
 * single-threaded verbs program (rping, the NVMe/RDMA host) sleeps until its CM event channel or its
 * completion channel has something. Slots are set on the control path; {@link #poll} and {@link #readable}
 * allocate nothing.
 *
 * <p>Thread rules: one owner thread.
 */
public final class PollSet {
    private static final long FD = VerbsLayouts.offset(VerbsLayouts.POLLFD, "fd");
    private static final long EVENTS = VerbsLayouts.offset(VerbsLayouts.POLLFD, "events");
    private static final long REVENTS = VerbsLayouts.offset(VerbsLayouts.POLLFD, "revents");
    private static final long SIZE = VerbsLayouts.POLLFD.byteSize();

    private final MemorySegment fds;
    private final int capacity;
    private int used;

    /** Room for {@code capacity} descriptors, none set. */
    public PollSet(int capacity) {
        this.capacity = capacity;
        this.fds = Arena.ofAuto().allocate(VerbsLayouts.POLLFD, capacity);
        for (int i = 0; i < capacity; i++) {
            fds.set(JAVA_INT, i * SIZE + FD, -1); // poll(2) ignores a negative fd
        }
    }

    /** Watches {@code fd} for input in slot {@code slot} (a negative fd clears the slot). */
    public PollSet set(int slot, int fd) {
        if (slot < 0 || slot >= capacity) {
            throw new IllegalArgumentException("slot " + slot + " of " + capacity);
        }
        fds.set(JAVA_INT, slot * SIZE + FD, fd);
        fds.set(JAVA_SHORT, slot * SIZE + EVENTS, (short) VerbsConstants.POLLIN);
        used = Math.max(used, slot + 1);
        return this;
    }

    /**
     * {@code poll(2)} over the slots set so far, at most {@code timeoutMs} (-1: no bound). Returns the number of
     * ready slots, 0 on timeout, -1 on error (EINTR included: callers loop). Allocation-free.
     */
    public int poll(int timeoutMs) {
        for (int i = 0; i < used; i++) {
            fds.set(JAVA_SHORT, i * SIZE + REVENTS, (short) 0);
        }
        return Libc.poll(fds, used, timeoutMs);
    }

    /** True when slot {@code slot} was readable (or in error: the read then reports it) after the last poll. */
    public boolean readable(int slot) {
        int r = fds.get(JAVA_SHORT, slot * SIZE + REVENTS);
        return (r & (VerbsConstants.POLLIN | VerbsConstants.POLLERR | VerbsConstants.POLLHUP)) != 0;
    }
}
