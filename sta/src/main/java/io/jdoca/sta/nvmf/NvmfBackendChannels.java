package io.jdoca.sta.nvmf;

import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.config.StaProperties;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The asynchronous back-end side of one IO engine: its {@link StaBackendChannel}s (one per back-end
 * it has used), the operation slots (each with a data buffer of the maximum I/O size, the
 * request it serves and when it was submitted), the requests waiting for a slot, and the
 * back-end timeout watch over outstanding operations.
 *
 * <p>Slots and buffers are created when the engine opens its first channel (once per engine; a
 * control-path cost on the first I/O to an asynchronous back-end), never afterwards.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
public final class NvmfBackendChannels implements StaBackendChannel.Sink {
    private static final System.Logger LOG = System.getLogger(NvmfBackendChannels.class.getName());
    /** Operations in flight per engine (and data buffers). */
    public static final int SLOTS = 64;

    private final NvmfPollGroup group;
    private final int maxIo;
    private StaBackend[] backends = new StaBackend[0];
    private StaBackendChannel[] channels = new StaBackendChannel[0];
    private Arena arena;
    private MemorySegment[] buffers;
    private NvmfRequest[] slotReq;
    private long[] slotStart;
    private boolean[] slotReported;
    private int[] freeSlots;
    private int freeTop;
    private int busy;
    /** Requests in NEED_BUFFER waiting for a slot: an intrusive FIFO through {@link NvmfRequest#nextWaiting}. */
    private NvmfRequest waitHead;
    private NvmfRequest waitTail;
    private long nextTimeoutScan;
    /** The engine's selector registration for channels with a {@link StaBackendChannel#selectable()}. */
    private java.util.function.Predicate<StaBackendChannel> watcher = c -> false;
    /** Opened channels without a selectable: the engine's sleep must then be bounded ({@link #selectable()}). */
    private int unselectable;

    NvmfBackendChannels(NvmfPollGroup group, int maxIo) {
        this.group = group;
        this.maxIo = maxIo;
    }

    /** Where the engine watches channels' {@link StaBackendChannel#selectable()}s; set at engine start. */
    public void watcher(java.util.function.Predicate<StaBackendChannel> w) {
        this.watcher = w;
    }

    /**
     * True when every channel this engine opened signals its completions on a selectable channel the engine
     * watches: its selector then wakes it for back-end completions as for socket data, and its sleep needs no bound.
     */
    public boolean selectable() {
        return unselectable == 0;
    }

    /** The engine's channel to {@code be}, opened on first use; null when {@code be} completes inline. */
    public StaBackendChannel channel(StaBackend be) {
        StaBackend[] bs = backends;
        for (int i = 0; i < bs.length; i++) {
            if (bs[i] == be) {
                return channels[i];
            }
        }
        return open(be);
    }

    private StaBackendChannel open(StaBackend be) {
        StaBackendChannel ch = null;
        try {
            ch = be.openChannel(2 * SLOTS);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "{0}: no asynchronous channel ({1}); synchronous I/O", be,
                    e.getMessage());
        }
        if (ch != null && arena == null) {
            arena = Arena.ofShared();
            buffers = new MemorySegment[SLOTS];
            slotReq = new NvmfRequest[SLOTS];
            slotStart = new long[SLOTS];
            slotReported = new boolean[SLOTS];
            freeSlots = new int[SLOTS];
            for (int i = 0; i < SLOTS; i++) {
                buffers[i] = arena.allocate(maxIo, 4096);
                freeSlots[i] = SLOTS - 1 - i;
            }
            freeTop = SLOTS;
        }
        if (ch != null) {
            if (ch.selectable() == null || !watcher.test(ch)) {
                unselectable++;
            }
        }
        int n = backends.length;
        backends = java.util.Arrays.copyOf(backends, n + 1);
        channels = java.util.Arrays.copyOf(channels, n + 1);
        backends[n] = be;
        channels[n] = ch;
        return ch;
    }

    /** A free slot for {@code r}, or -1. */
    int acquire(NvmfRequest r) {
        if (freeTop == 0) {
            return -1;
        }
        int s = freeSlots[--freeTop];
        slotReq[s] = r;
        r.slot = s;
        return s;
    }

    void release(NvmfRequest r) {
        releaseSlot(detach(r));
    }

    /** Takes the slot away from {@code r} without handing it on yet; returns it (-1 when none). */
    int detach(NvmfRequest r) {
        int s = r.slot;
        if (s >= 0) {
            r.slot = -1;
            slotReq[s] = null;
        }
        return s;
    }

    /** Frees slot {@code s} (-1: nothing) and hands it to the oldest request waiting for one. */
    void releaseSlot(int s) {
        if (s < 0) {
            return;
        }
        freeSlots[freeTop++] = s;
        NvmfRequest w = waitHead;
        if (w != null) {
            waitHead = w.nextWaiting;
            if (waitHead == null) {
                waitTail = null;
            }
            w.nextWaiting = null;
            w.waiting = false;
            acquire(w);
            executorOf(w).backendIo().onBuffer(w);
        }
    }

    MemorySegment buffer(NvmfRequest r) {
        return buffers[r.slot];
    }

    /** Queues {@code r} (NEED_BUFFER) until a slot is free. */
    void await(NvmfRequest r) {
        r.waiting = true;
        r.nextWaiting = null;
        if (waitTail == null) {
            waitHead = r;
        } else {
            waitTail.nextWaiting = r;
        }
        waitTail = r;
    }

    /** Takes {@code r} out of the wait queue (its connection went). */
    void cancelWait(NvmfRequest r) {
        NvmfRequest prev = null;
        for (NvmfRequest w = waitHead; w != null; prev = w, w = w.nextWaiting) {
            if (w == r) {
                if (prev == null) {
                    waitHead = w.nextWaiting;
                } else {
                    prev.nextWaiting = w.nextWaiting;
                }
                if (waitTail == w) {
                    waitTail = prev;
                }
                w.nextWaiting = null;
                w.waiting = false;
                return;
            }
        }
    }

    /** Submits the slot's operation; false when the channel is full. */
    boolean submit(StaBackendChannel ch, int op, long offset, int len, NvmfRequest r) {
        int s = r.slot;
        if (!ch.submit(op, offset, buffers[s], len, s)) {
            return false;
        }
        r.opsPending = 1;
        r.opsStatus = NvmeStatus.SUCCESS;
        started(s);
        return true;
    }

    /**
     * Submits one more range operation ({@link StaBackendChannel#OP_WRITE_ZEROES},
     * {@link StaBackendChannel#OP_DEALLOCATE}) of the slot's request: the request completes when the
     * last of them does ({@link NvmfRequest#opsPending}, which the caller zeroed before the first).
     * False when the channel is full.
     */
    boolean submitRange(StaBackendChannel ch, int op, long offset, long len, NvmfRequest r) {
        int s = r.slot;
        if (!ch.submitRange(op, offset, len, s)) {
            return false;
        }
        if (r.opsPending++ == 0) {
            started(s);
        } else {
            busy++;
        }
        return true;
    }

    private void started(int s) {
        slotStart[s] = System.nanoTime();
        slotReported[s] = false;
        busy++;
    }

    /** Operations submitted and not yet completed. */
    public int busy() {
        return busy;
    }

    /**
     * Longest sleep of an engine with back-end operations outstanding: a command arriving on a
     * socket meanwhile is seen after it (plus the timer's slack) unless a back-end completion wakes
     * the engine first. {@code -Djdoca.sta.be_wait_us}.
     */
    public static final long WAIT_NANOS = StaProperties.BE_WAIT_US.asLong() * 1000L;
    /**
     * {@code -Djdoca.sta.be_wait=park}: the earlier policy (park 20 us on a timer whatever the
     * back-end), kept only so that benchmarks can compare the two in one run.
     */
    private static final boolean WAIT_PARK = "park".equals(StaProperties.BE_WAIT.asString());

    /**
     * Engine idle with operations outstanding: sleeps on the first channel that has some (io_uring:
     * in {@code io_uring_enter}, woken by the completion itself; the other channels' completions
     * are reaped on the next progress, at the latest after {@link #WAIT_NANOS}).
     */
    public void await() {
        if (WAIT_PARK) {
            java.util.concurrent.locks.LockSupport.parkNanos(20_000L);
            return;
        }
        StaBackendChannel[] cs = channels;
        for (int i = 0; i < cs.length; i++) {
            if (cs[i] != null && cs[i].outstanding() > 0) {
                cs[i].await(WAIT_NANOS);
                return;
            }
        }
    }

    /** Engine progress: reap every channel, then watch the outstanding ones for the back-end timeout. */
    public int poll() {
        int n = 0;
        StaBackendChannel[] cs = channels;
        for (int i = 0; i < cs.length; i++) {
            if (cs[i] != null && cs[i].outstanding() > 0) {
                n += cs[i].poll(this);
            }
        }
        if (busy > 0) {
            long now = System.nanoTime();
            if (now - nextTimeoutScan >= 0) {
                nextTimeoutScan = now + 1_000_000L;
                scanTimeouts(now);
            }
        }
        return n;
    }

    private static NvmfCommandExecutor executorOf(NvmfRequest r) {
        return r.pool().executor;
    }

    private void scanTimeouts(long now) {
        long limit = group.backendTimeoutNanos();
        for (int s = 0; s < SLOTS; s++) {
            NvmfRequest r = slotReq[s];
            if (r != null && !slotReported[s] && r.state() == NvmfRequestState.EXECUTING
                    && now - slotStart[s] > limit) {
                // Reported while the operation is still outstanding, once per operation.
                slotReported[s] = true;
                r.queue.counters(group.index()).timeout();
                group.reportBackendTimeout(r.queue, r.ns, r.opcode, now - slotStart[s]);
            }
        }
    }

    @Override
    public void onComplete(int tag, int nvmeStatus) {
        if (tag < 0 || tag >= SLOTS || slotReq[tag] == null) {
            LOG.log(System.Logger.Level.ERROR, "back-end completion for unknown slot {0}", tag);
            return;
        }
        busy--;
        NvmfRequest r = slotReq[tag];
        if (nvmeStatus != NvmeStatus.SUCCESS && r.opsStatus == NvmeStatus.SUCCESS) {
            r.opsStatus = nvmeStatus; // the first error wins
        }
        if (--r.opsPending > 0) {
            return; // more operations of the request (DSM ranges) are in flight
        }
        executorOf(r).backendIo().onBackendComplete(r, r.opsStatus);
    }

    /**
     * Engine stop: lets the outstanding operations finish (bounded, 5 s), delivering their
     * completions so their requests end and the namespaces' in-flight counts drain; then closes the
     * channels. Buffers the kernel may still write are not freed if an operation never finished.
     */
    void close() {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (busy > 0 && System.nanoTime() - deadline < 0) {
            if (poll() == 0) {
                Thread.yield();
            }
        }
        for (StaBackendChannel c : channels) {
            if (c != null) {
                c.close();
            }
        }
        channels = new StaBackendChannel[0];
        backends = new StaBackend[0];
        unselectable = 0;
        if (busy > 0) {
            LOG.log(System.Logger.Level.WARNING,
                    "{0} back-end operation(s) never finished; their buffers stay allocated", busy);
            for (int s = 0; s < SLOTS; s++) {
                NvmfRequest r = slotReq[s];
                if (r != null && r.state() == NvmfRequestState.EXECUTING) {
                    busy--;
                    executorOf(r).backendIo().onBackendComplete(r, NvmeStatus.ABORTED_SQ_DELETION);
                }
            }
            return;
        }
        if (arena != null) {
            arena.close();
            arena = null;
        }
    }

}
