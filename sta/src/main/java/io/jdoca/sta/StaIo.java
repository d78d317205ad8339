package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.exec.TaskQueue;
import io.jdoca.sta.backend.StaStats;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvmf.NvmfBackendChannels;
import io.jdoca.sta.nvmf.NvmfPollGroup;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.NvmfTransportType;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmReject;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaConnectRequest;
import io.jdoca.sta.nvmf.rdma.NvmfRdmaTransport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.ByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * A DOCA STA IO context ({@code doca_sta_io}): one IO engine thread with its own progress engine.
 * It owns the QPs allocated on it ({@link #qpAlloc}, {@link #qpAccept}, {@link #qpConnect}), runs
 * their transports (any registered {@link NvmfTransportType}: NVMe/TCP, NVMe/RDMA) and executes
 * offloaded I/O; it delivers the other commands to the non-offload callback and executes the
 * application's answers (non-offload tasks), QP disconnects and destroys. Its parts:
 * {@link NvmfPollGroup} (the command layer's per-engine state: back-end channels, counters),
 * {@link StaQpGroup} (the live QPs its progress polls), {@link StaIoWait} (how it sleeps: sockets,
 * RDMA completion channel, back-end completions) and {@link NonOffloadTasks}.
 *
 * <p>Created only while the {@link Sta} main context is RUNNING; must be stopped before it.
 *
 * <p><b>Threads.</b> Ctx rules: everything on this context's PE thread, except {@link #qpAlloc},
 * {@link #qpAccept}, {@link #qpConnect}, {@link #qpDestroy}, {@link #post} and {@link #wakeup},
 * which any thread may call (they hand over to the PE thread through a core {@code CommandQueue}
 * whose waker ends its sleep).
 */
public final class StaIo extends Ctx {
    private static final System.Logger LOG = System.getLogger(StaIo.class.getName());

    private final Sta sta;
    private final int index;
    private final Arena arena = Arena.ofShared();
    private final NvmfPollGroup pollGroup;
    private final TaskPool<StaIoTaskDisconnect> disconnectPool;
    private final TaskPool<StaIoTaskNonOffloadSend> sendPool;
    private final TaskPool<StaIoTaskNonOffloadWriteSend> writeSendPool;
    private final TaskPool<StaIoTaskNonOffloadRead> readPool;
    private final TaskQueue queued = new TaskQueue();
    /** Hand-overs from other threads (new QPs, posted actions). */
    private final StaIoInbox inbox;
    private final Consumer<Object> takeOver = this::takeOver;
    private final StaQpGroup group = new StaQpGroup(queued);
    private final StaIoWait wait = new StaIoWait();
    private StaNonOffloadCallback nonOffloadCb;
    private long nonOffloadUd;
    private StaTransportErrorCallback transportErrorCb;
    private int maxQueueSize = Sta.MAX_IO_QUEUE_SIZE;

    // Engine statistics: written by the engine thread only, read racily by stats().
    long qpsAccepted;
    long qpsClosed;

    private StaIo(Sta sta, int index) {
        super("sta_io" + index);
        this.inbox = new StaIoInbox("sta_io" + index, this::wakeup);
        this.sta = sta;
        this.index = index;
        this.pollGroup = new NvmfPollGroup(index, arena, sta.getMaxIoSize(), sta.backendTimeouts());
        this.disconnectPool = registerTaskType("disconnect", StaIoTaskDisconnect::new);
        this.sendPool = registerTaskType("non_offload_send", StaIoTaskNonOffloadSend::new);
        this.writeSendPool = registerTaskType("non_offload_write_send", StaIoTaskNonOffloadWriteSend::new);
        this.readPool = registerTaskType("non_offload_read", StaIoTaskNonOffloadRead::new);
    }

    /**
     * {@code doca_sta_io_create}: BAD_STATE unless the main context is RUNNING, FULL beyond {@link Sta#getMaxStaIo()}.
     */
    public static StaIo create(Sta sta) {
        synchronized (sta) {
            if (sta.state() != CtxState.RUNNING) {
                throw new DocaException(DocaError.BAD_STATE, "create IO contexts after the main context runs");
            }
            if (sta.ios.size() >= sta.getMaxStaIo()) {
                throw new DocaException(DocaError.FULL, "max_sta_io is " + sta.getMaxStaIo());
            }
            // The lowest index no live engine has: per-engine counter blocks need one writer each.
            int index = 0;
            while (indexTaken(sta, index)) {
                index++;
            }
            StaIo io = new StaIo(sta, index);
            sta.ios.add(io);
            return io;
        }
    }

    private static boolean indexTaken(Sta sta, int index) {
        for (StaIo io : sta.ios) {
            if (io.index == index) {
                return true;
            }
        }
        return false;
    }

    /** {@code doca_sta_io_destroy}: IDLE only. */
    public DocaError destroy() {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        sta.ios.remove(this);
        return DocaError.SUCCESS;
    }

    public Sta sta() {
        return sta;
    }

    /** This engine's index (selects back-end queues: {@code index % numQueues}). */
    public int index() {
        return index;
    }

    /** Largest submission queue a QP of this context may be given. */
    int maxQueueSize() {
        return maxQueueSize;
    }

    /** How the engine sleeps (its RDMA completion channel is made there). */
    StaIoWait waiter() {
        return wait;
    }

    /** The command layer's per-engine state (back-end channels, counters). */
    NvmfPollGroup pollGroup() {
        return pollGroup;
    }

    /** {@code doca_sta_io_non_offload_register_cb}; IDLE only. */
    public DocaError nonOffloadRegisterCb(StaNonOffloadCallback cb, long userData) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.nonOffloadCb = cb;
        this.nonOffloadUd = userData;
        return DocaError.SUCCESS;
    }

    /** {@code doca_sta_event_io_transport_error_register_cb}; IDLE only. */
    public DocaError eventTransportErrorRegisterCb(StaTransportErrorCallback cb) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.transportErrorCb = cb;
        return DocaError.SUCCESS;
    }

    /** Largest submission queue a QP may be given (transfer tags per QP); IDLE only. */
    public DocaError setMaxQueueSize(int entries) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (entries < 2 || entries > Sta.MAX_IO_QUEUE_SIZE) {
            return DocaError.INVALID_VALUE;
        }
        maxQueueSize = entries;
        return DocaError.SUCCESS;
    }

    // ------------------------------------------------------------------ QPs

    /**
     * {@code doca_sta_io_qp_alloc}: a queue pair handle of this IO context without a connection
     * (ALLOCATED); {@link #qpAccept} attaches one, {@link #qpDestroy} frees it. Any thread. Throws
     * BAD_STATE unless RUNNING.
     */
    public StaQp qpAlloc() {
        if (state() != CtxState.RUNNING) {
            throw new DocaException(DocaError.BAD_STATE, "IO context not running");
        }
        return new StaQp(this);
    }

    /**
     * {@code doca_sta_io_qp_accept} for an accepted TCP connection: the engine sets it non-blocking
     * and serves NVMe/TCP on it. Any thread (a listener's). Throws BAD_STATE (not RUNNING, or the
     * QP already has a connection), FULL (too many QPs), OPERATING_SYSTEM.
     */
    public StaQp qpAccept(StaQp qp, ByteChannel channel) {
        StaQpAccept.configure(channel);
        return qpAccept(qp, (Object) channel);
    }

    /**
     * {@code doca_sta_io_qp_accept} for an NVMe/RDMA connection request the application's rdma_cm
     * listener received (the seed's RDMA connect flow): validates the host's private data (a bad
     * one is rejected with the NVMe/RDMA reject status), refuses a request that arrived on a device
     * not added to the main context, creates the queue pair (CQ on this engine's completion channel,
     * RC QP, registered capsule, response and data buffers for HSQSIZE + 1 commands), posts the
     * receives and accepts with CRQSIZE. Report its establishment with {@link #qpEstablished} and its
     * end with {@link #qpDisconnected}. Any thread (the listener's). Throws (after rejecting) when the
     * request is refused; the listener frees the id after acknowledging the event.
     */
    public StaQp qpAccept(StaQp qp, NvmeRdmaConnectRequest req) {
        return StaQpAccept.acceptRdma(this, qp, req);
    }

    /**
     * {@code doca_sta_io_qp_accept} for any registered transport: {@code connection} is what the
     * transport serves (a {@link ByteChannel} for TCP, an {@link NvmfRdmaTransport.Connection} for
     * RDMA, or another transport's). The transport's buffers are allocated here, then the QP is handed
     * to the engine. Any thread. Throws BAD_STATE, FULL, NOT_SUPPORTED (no transport serves it), or
     * the transport's error (the connection is left to the caller).
     */
    public StaQp qpAccept(StaQp qp, Object connection) {
        return handOverQp(StaQpAccept.attach(this, qp, connection));
    }

    /** {@code doca_sta_io_qp_connect}: {@link #qpAlloc} and {@link #qpAccept} in one call (TCP). Any thread. */
    public StaQp qpConnect(ByteChannel channel) {
        return qpAccept(qpAlloc(), channel);
    }

    /**
     * {@code doca_sta_io_qp_connect} for any registered transport's connection (see {@link #qpAccept(StaQp, Object)}).
     */
    public StaQp qpConnect(Object connection) {
        return qpAccept(qpAlloc(), connection);
    }

    /**
     * {@code doca_sta_io_qp_connect} for NVMe/RDMA: {@link #qpAlloc} and {@link #qpAccept} of the
     * connection request in one call, as DOCA's {@code rdma_offload.c} uses it on an rdma_cm connect
     * request (the library accepts with the CRQSIZE of the queue it made). Any thread.
     */
    public StaQp qpConnect(NvmeRdmaConnectRequest req) {
        StaQp qp;
        try {
            qp = qpAlloc();
        } catch (DocaException e) {
            req.reject(NvmeRdmaCmReject.STS_NO_RSC);
            throw e;
        }
        return qpAccept(qp, req);
    }

    /**
     * {@code doca_sta_io_qp_destroy}: an ALLOCATED QP is freed at once. A connected one stops taking
     * commands; its outstanding commands are completed (back-end I/O in flight finishes and is
     * answered) or failed (a command still waiting for host data, or for a back-end slot, is answered
     * with Command Aborted due to SQ Deletion); then its connection closes and its buffers go, on the
     * engine thread, without a transport-error event. BAD_STATE when already destroyed or closed.
     * Any thread.
     */
    public DocaError qpDestroy(StaQp qp) {
        if (qp == null || qp.io() != this) {
            return DocaError.INVALID_VALUE;
        }
        NvmfQpairState s = qp.state();
        if (s == NvmfQpairState.ALLOCATED) {
            return qp.qpair().transition(NvmfQpairState.CLOSED);
        }
        if (s == NvmfQpairState.CLOSED || qp.destroying) {
            return DocaError.BAD_STATE;
        }
        qp.destroying = true;
        post(() -> group.startDestroy(qp));
        return DocaError.SUCCESS;
    }

    /** Engine thread: a destroyed QP drained (or ran out of time): closed without a transport-error event. */
    void finishDestroy(StaQp qp) {
        qp.appInitiatedClose = true;
        teardown(qp, "recv", DocaError.SHUTDOWN, 0);
    }

    /**
     * The rdma_cm ESTABLISHED event of an accepted NVMe/RDMA queue pair (the seed's connect-established). Any thread.
     */
    public void qpEstablished(StaQp qp) {
        post(() -> {
            if (qp.state() == NvmfQpairState.CONNECTING) {
                qp.qpair().transition(NvmfQpairState.READY);
            }
        });
    }

    /** The rdma_cm DISCONNECTED (or error) event of an NVMe/RDMA queue pair: the engine closes it. Any thread. */
    public void qpDisconnected(StaQp qp) {
        post(() -> teardown(qp, "rdma_cm", DocaError.CONNECTION_RESET, 0));
    }

    /** {@code doca_sta_io_qp_add_subsystem}: after a valid Connect, lets the QP execute I/O on the subsystem. */
    public DocaError qpAddSubsystem(StaQp qp, StaSubsystem subsystem) {
        if (qp == null || qp.io() != this || subsystem == null) {
            return DocaError.INVALID_VALUE;
        }
        if (qp.state() != NvmfQpairState.READY) {
            return DocaError.BAD_STATE;
        }
        qp.bind(subsystem);
        return DocaError.SUCCESS;
    }

    /** {@code doca_sta_io_qp_connect_set_sq_size}: the submission queue size granted at Connect (entries). */
    public DocaError qpConnectSetSqSize(StaQp qp, int entries) {
        if (qp == null || qp.io() != this) {
            return DocaError.INVALID_VALUE;
        }
        if (entries < 2 || entries > maxQueueSize) {
            return DocaError.INVALID_VALUE;
        }
        qp.qpair().setSqSize(entries);
        return DocaError.SUCCESS;
    }

    /** Live QPs of this engine (control path). */
    public List<StaQp> qps() {
        return new ArrayList<>(Arrays.asList(group.all()));
    }

    /** Runs {@code r} on this context's PE thread during progress. Any thread; control path. */
    public void post(Runnable r) {
        inbox.handOver(r);
    }

    /** {@link #handOver} for a new QP: one the engine cannot take is closed and released before the error. */
    private StaQp handOverQp(StaQp qp) {
        try {
            return inbox.handOver(qp);
        } catch (DocaException e) {
            discard(qp);
            throw e;
        }
    }


    /**
     * Ends the engine thread's sleep in {@link #waitForIo} (or in its PE's notification wait) early,
     * or makes the next one return at once. Any thread; allocation-free.
     */
    public void wakeup() {
        ProgressEngine p = pe();
        if (p != null) {
            p.notifyWork();
        }
        wait.wakeup();
    }

    /**
     * For an idle IO thread: blocks until a QP's socket is readable, work is handed over
     * ({@link #qpAccept}, {@link #post}) or {@code timeoutNanos} passes (millisecond granularity,
     * at least 1 ms). Returns at once when work is pending or unsent data waits for the socket.
     * The socket-aware counterpart of the PE's notification mode: an idle engine burns no CPU and
     * wakes as soon as a host sends. PE thread only.
     */
    public void waitForIo(long timeoutNanos) {
        if (wait.ready() && !hasPendingWork()) {
            wait.await(timeoutNanos, group.all(), pollGroup.backendChannels());
        }
    }

    // ------------------------------------------------------------------ tasks

    public DocaError taskDisconnectSetConf(TaskCallback<StaIoTaskDisconnect> ok, TaskCallback<StaIoTaskDisconnect> err,
            int n) {
        return disconnectPool.setConf(ok, err, n);
    }

    /** {@code doca_sta_io_task_disconnect_alloc_init}. */
    public StaIoTaskDisconnect taskDisconnectAllocInit(StaQp qp, long userData) {
        StaIoTaskDisconnect t = disconnectPool.alloc();
        return t == null ? null : t.init(qp, userData);
    }

    public DocaError taskNonOffloadSendSetConf(TaskCallback<StaIoTaskNonOffloadSend> ok,
                                               TaskCallback<StaIoTaskNonOffloadSend> err, int n) {
        return sendPool.setConf(ok, err, n);
    }

    /** Sends the completion of non-offloaded command {@code cid} (NVMe status field, DW0, DW1). */
    public StaIoTaskNonOffloadSend taskNonOffloadSendAllocInit(StaQp qp, int cid, int status, int dw0, int dw1,
            long userData) {
        StaIoTaskNonOffloadSend t = sendPool.alloc();
        return t == null ? null : t.init(qp, cid, status, dw0, dw1, userData);
    }

    public DocaError taskNonOffloadWriteSendSetConf(TaskCallback<StaIoTaskNonOffloadWriteSend> ok,
                                                    TaskCallback<StaIoTaskNonOffloadWriteSend> err, int n) {
        return writeSendPool.setConf(ok, err, n);
    }

    /** Returns {@code len} bytes of {@code data} to the host, then the completion. */
    public StaIoTaskNonOffloadWriteSend taskNonOffloadWriteSendAllocInit(StaQp qp, int cid, MemorySegment data,
            long offset, int len, int status, int dw0, int dw1, long userData) {
        StaIoTaskNonOffloadWriteSend t = writeSendPool.alloc();
        return t == null ? null : t.init(qp, cid, data, offset, len, status, dw0, dw1, userData);
    }

    public DocaError taskNonOffloadReadSetConf(TaskCallback<StaIoTaskNonOffloadRead> ok,
                                               TaskCallback<StaIoTaskNonOffloadRead> err, int n) {
        return readPool.setConf(ok, err, n);
    }

    /** Fetches {@code len} bytes of command {@code cid}'s host data into {@code dst}. */
    public StaIoTaskNonOffloadRead taskNonOffloadReadAllocInit(StaQp qp, int cid, MemorySegment dst, long offset,
            int len, long userData) {
        StaIoTaskNonOffloadRead t = readPool.alloc();
        return t == null ? null : t.init(qp, cid, dst, offset, len, userData);
    }

    // ------------------------------------------------------------------ stats

    /** Engine counters ({@code doca_sta_stats} for an EU). */
    public StaStats stats() {
        NvmfPollGroup g = pollGroup;
        return StaStats.of("engine", name(), "reads", g.reads(), "writes", g.writes(), "read_bytes", g.readBytes(),
                "write_bytes", g.writeBytes(), "non_offloaded", g.nonOffloaded(), "io_errors", g.ioErrors(),
                "digest_errors", g.digestErrors(), "protocol_errors", g.protocolErrors(),
                "qps_accepted", qpsAccepted, "qps_closed", qpsClosed, "qps_live", (long) group.size());
    }

    // ------------------------------------------------------------------ engine internals

    boolean deliverNonOffload(StaQp qp, NvmeCommand cmd, MemorySegment payload, int len, boolean valid) {
        StaNonOffloadCallback cb = nonOffloadCb;
        if (cb == null) {
            return false;
        }
        try {
            cb.onCommand(qp, cmd, payload, len, valid, nonOffloadUd);
        } catch (RuntimeException e) {
            // An application bug must not kill the engine that serves every other QP.
            LOG.log(System.Logger.Level.ERROR, "non-offload callback failed on " + qp, e);
        }
        return true;
    }

    void completeTask(Task t, DocaError status) {
        complete(t, status);
    }

    void teardown(StaQp qp, String op, DocaError why, int detail) {
        if (qp.state() == NvmfQpairState.CLOSED) {
            return;
        }
        qp.close();
        qp.abortRequests(why);
        qpsClosed++;
        uncount(qp);
        group.remove(qp);
        if (!qp.appInitiatedClose && transportErrorCb != null) {
            transportErrorCb.onTransportError(qp, op, why, op.equals("protocol") ? qp.qpair().lastFes() : detail);
        }
        // Queued tasks may still reference the QP; its buffers go when nothing can touch them.
        group.release(qp);
    }

    @Override
    protected DocaError onStart() {
        if (sta.state() != CtxState.RUNNING) {
            return DocaError.BAD_STATE;
        }
        wait.open(); // without a selector, waitForIo returns at once
        pollGroup.backendChannels().watcher(wait::watchBackend);
        return DocaError.SUCCESS;
    }

    @Override
    protected void onStop() {
        for (StaQp qp : group.all()) {
            qp.appInitiatedClose = true;
            teardown(qp, "recv", DocaError.SHUTDOWN, 0);
        }
        Object o;
        while ((o = inbox.poll()) != null) {
            if (o instanceof StaQp qp) {
                discard(qp);
            }
        }
    }

    @Override
    protected void onIdle() {
        pollGroup.close();
        group.releaseAll();
        wait.close();
    }

    @Override
    protected DocaError validateTask(Task t) {
        return NonOffloadTasks.validate(this, t, sta.getMaxIoSize());
    }

    @Override
    protected DocaError onSubmit(Task t) {
        if (t instanceof StaIoTaskDisconnect d) {
            d.deadline = System.nanoTime() + 5_000_000_000L;
        }
        queued.add(t);
        return DocaError.SUCCESS;
    }

    @Override
    public boolean hasPendingWork() {
        return !queued.isEmpty() || !inbox.isEmpty();
    }

    @Override
    public long maxSleepNanos() {
        // Sockets do not wake the engine: bound the sleep while connections exist. Back-end completions that
        // cannot join the engine's selector bound it shorter.
        NvmfBackendChannels bech = pollGroup.backendChannels();
        if (bech.busy() > 0 && !bech.selectable()) {
            return NvmfBackendChannels.WAIT_NANOS;
        }
        return group.size() == 0 && queued.isEmpty() ? Long.MAX_VALUE : 200_000L;
    }

    @Override
    protected int work() {
        int n = 0;
        boolean afterSelect = wait.takeAfterSelect();
        n += inbox.drain(takeOver);
        NvmfBackendChannels bech = pollGroup.backendChannels();
        if (bech.busy() > 0) {
            n += bech.poll();
        }
        n += group.poll(afterSelect);
        if (bech.busy() > 0) {
            // Submit what this cycle's commands queued now (one io_uring_enter), not a cycle later.
            n += bech.poll();
        }
        if (!queued.isEmpty()) {
            n += runTasks();
        }
        if (group.hasDestroying()) {
            n += group.reapDestroyed(this);
        }
        if (group.hasPendingRelease()) {
            group.releasePending();
        }
        return n;
    }

    /** One hand-over, on the PE thread: a new QP joins the group, a posted action runs. */
    private void takeOver(Object o) {
        if (o instanceof StaQp qp) {
            if (state() != CtxState.RUNNING) {
                discard(qp);
                return;
            }
            group.add(qp);
            qpsAccepted++;
            wait.watch(qp);
        } else if (o instanceof Runnable r) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "posted action failed", e);
            }
        }
    }

    /** A QP handed over but never started (the engine stopped first). */
    private void discard(StaQp qp) {
        qp.close();
        qp.releaseMemory();
        uncount(qp);
    }

    /** The QP leaves the main context's live count (once). */
    private void uncount(StaQp qp) {
        if (qp.counted) {
            qp.counted = false;
            sta.liveQps.decrementAndGet();
        }
    }

    private int runTasks() {
        return NonOffloadTasks.run(this, queued, state() == CtxState.STOPPING);
    }
}
