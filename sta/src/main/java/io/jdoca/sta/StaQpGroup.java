package io.jdoca.sta;

import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskQueue;
import io.jdoca.sta.nvmf.NvmfQpairState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The live QPs of one {@link StaIo} engine (SPDK's {@code nvmf_poll_group}): the array its progress
 * polls, and the closed QPs whose buffers wait until no queued task references them any more.
 * The array is replaced, never changed in place, when a QP comes or goes (control-path events), so
 * a poll walks a stable snapshot and the steady state allocates nothing.
 *
 * <p>Not thread-safe: the owning engine's thread (QPs reach it through the engine's inbox).
 */
final class StaQpGroup {
    /** The engine's queued tasks: a closed QP's buffers stay while one of them names it. */
    private final TaskQueue queued;
    private StaQp[] qps = new StaQp[0];
    /** Closed QPs whose buffers wait until no queued task references them (control-path list). */
    private final List<StaQp> pendingRelease = new ArrayList<>();
    /** QPs being destroyed ({@link StaIo#qpDestroy}): closed once drained or past their deadline. */
    private final List<StaQp> destroying = new ArrayList<>();

    StaQpGroup(TaskQueue queued) {
        this.queued = queued;
    }

    /** The current snapshot (do not modify). */
    StaQp[] all() {
        return qps;
    }

    int size() {
        return qps.length;
    }

    void add(StaQp qp) {
        qps = Arrays.copyOf(qps, qps.length + 1);
        qps[qps.length - 1] = qp;
    }

    /**
     * Progress: polls every QP once; returns the work done. {@code afterSelect}: the engine's selector has just
     * returned, so a QP whose socket it did not report readable skips its read ({@link StaQp#pollAfterSelect}).
     */
    int poll(boolean afterSelect) {
        int n = 0;
        StaQp[] cur = qps;
        for (int i = 0; i < cur.length; i++) {
            n += afterSelect ? cur[i].pollAfterSelect() : cur[i].poll();
        }
        return n;
    }

    /** How long a destroyed QP may take to drain its in-flight I/O before it is closed anyway. */
    static final long DESTROY_NANOS = 5_000_000_000L;

    /**
     * The destroy of a connected QP begins ({@link StaIo#qpDestroy}): no new commands, the waiting
     * ones failed, the back-end's finish; {@link #reapDestroyed} closes it once drained. Engine thread.
     */
    void startDestroy(StaQp qp) {
        if (qp.state() == NvmfQpairState.CLOSED) {
            return;
        }
        qp.startDisconnect();
        qp.executor().failWaiting();
        qp.transport().flush();
        qp.destroyDeadline = System.nanoTime() + DESTROY_NANOS;
        destroying.add(qp);
    }

    /** True while a destroyed QP waits to drain. */
    boolean hasDestroying() {
        return !destroying.isEmpty();
    }

    /** Closes the destroyed QPs that drained or ran out of time; returns how many. Engine thread. */
    int reapDestroyed(StaIo io) {
        int n = 0;
        long now = System.nanoTime();
        for (int i = destroying.size() - 1; i >= 0; i--) {
            StaQp qp = destroying.get(i);
            if (qp.drained() || now - qp.destroyDeadline > 0 || qp.state() == NvmfQpairState.CLOSED) {
                destroying.remove(i);
                io.finishDestroy(qp);
                n++;
            }
        }
        return n;
    }

    /** Drops a closed QP from the group (its buffers stay: {@link #release}). */
    void remove(StaQp qp) {
        StaQp[] cur = qps;
        int n = 0;
        StaQp[] next = new StaQp[Math.max(cur.length - 1, 0)];
        for (StaQp q : cur) {
            if (q != qp && n < next.length) {
                next[n++] = q;
            }
        }
        qps = n == next.length ? next : Arrays.copyOf(next, n);
    }

    /** Frees a closed QP's buffers now, or once no queued task references it. */
    void release(StaQp qp) {
        if (!hasTasksFor(qp)) {
            qp.releaseMemory();
        } else {
            pendingRelease.add(qp);
        }
    }

    /** Progress: frees the buffers of closed QPs no queued task references any more. */
    void releasePending() {
        for (int i = pendingRelease.size() - 1; i >= 0; i--) {
            StaQp qp = pendingRelease.get(i);
            if (!hasTasksFor(qp)) {
                qp.releaseMemory();
                pendingRelease.remove(i);
            }
        }
    }

    boolean hasPendingRelease() {
        return !pendingRelease.isEmpty();
    }

    /** The engine is idle (no task can run any more): every waiting buffer goes. */
    void releaseAll() {
        for (StaQp qp : pendingRelease) {
            qp.releaseMemory();
        }
        pendingRelease.clear();
    }

    private boolean hasTasksFor(StaQp qp) {
        int size = queued.size();
        boolean found = false;
        for (int i = 0; i < size; i++) {
            Task t = queued.poll();
            if (NonOffloadTasks.qpOf(t) == qp) {
                found = true;
            }
            queued.add(t);
        }
        return found;
    }
}
