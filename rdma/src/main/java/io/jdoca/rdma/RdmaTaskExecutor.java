package io.jdoca.rdma;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.Task;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.MmapExport;
import io.jdoca.core.ring.SpmcRing;
import io.jdoca.rdma.wire.RdmaConnectionBlob;

/**
 * Task execution of one {@link Rdma} context: checks a task against both sides' rules, posts
 * receives to the context-wide receive queue, hands every other task to its connection's
 * endpoint, and runs the context's duty cycle over the endpoints (completions, doorbell batching,
 * the flush of posted receives on stop) and its sleep rules.
 *
 * <p>Threads: engine thread only; {@link #pollPostedRecv()} may be called by a transport's own
 * thread (the posted receives are a multi-consumer ring).
 */
final class RdmaTaskExecutor {
    private final Rdma rdma;
    private final RdmaConnections conns;
    /** Receives posted to the context (SHM, TCP; VERBS posts to its shared receive queue). */
    private SpmcRing postedRecvs;
    /**
     * True while {@link #work()} runs (engine thread): a transport may hold back what tasks
     * submitted from completion callbacks write, and send it all in {@link RdmaEndpoint#afterWork()}.
     */
    boolean inWork;

    RdmaTaskExecutor(Rdma rdma, RdmaConnections conns) {
        this.rdma = rdma;
        this.conns = conns;
    }

    /** Start of a run: an empty receive queue of the configured depth. */
    void reset(int recvQueueSize) {
        postedRecvs = new SpmcRing(recvQueueSize);
    }

    /** Takes a posted receive (any consumer thread); null if none. */
    RdmaTaskReceive pollPostedRecv() {
        return (RdmaTaskReceive) postedRecvs.poll();
    }

    boolean hasPostedRecvs() {
        return !postedRecvs.isEmpty();
    }

    /** The context's {@code validateTask}: a task's shape against this context's configuration. */
    DocaError validate(Task t) {
        RdmaTask r = (RdmaTask) t;
        if (r.local == null) {
            return DocaError.INVALID_VALUE;
        }
        if (r.kind == RdmaTask.K_RECV) {
            return r.local.listLen() > rdma.recvDstBufListLen ? DocaError.INVALID_VALUE : DocaError.SUCCESS;
        }
        if (r.conn == null || r.conn.rdma != rdma) {
            return DocaError.INVALID_VALUE;
        }
        if (r.local.listLen() > rdma.maxSendBufListLen) {
            return DocaError.INVALID_VALUE;
        }
        switch (r.kind) {
            case RdmaTask.K_READ, RdmaTask.K_WRITE, RdmaTask.K_WRITE_IMM, RdmaTask.K_CAS, RdmaTask.K_FADD -> {
                if (r.remote == null) {
                    return DocaError.INVALID_VALUE;
                }
            }
            case RdmaTask.K_SE_GET, RdmaTask.K_SE_SET, RdmaTask.K_SE_ADD -> {
                if (r.event == null) {
                    return DocaError.INVALID_VALUE;
                }
            }
            default -> {
            }
        }
        return DocaError.SUCCESS;
    }

    /** The context's {@code onSubmit}: a receive is posted, anything else goes to its connection's endpoint. */
    DocaError submit(Task t) {
        RdmaTask r = (RdmaTask) t;
        r.reset();
        if (r.kind == RdmaTask.K_RECV) {
            if (r.local == null) {
                r.result = DocaError.INVALID_VALUE;
            }
            if (rdma.verbs != null) {
                return rdma.verbs.postRecv((RdmaTaskReceive) r);
            }
            if (!postedRecvs.offer(r)) {
                return DocaError.AGAIN;
            }
            conns.recvPosted();
            return DocaError.SUCCESS;
        }
        RdmaConnection c = r.conn;
        if (c == null || c.rdma != rdma) {
            return DocaError.INVALID_VALUE;
        }
        if (c.endpoint == null || c.state() != RdmaConnectionState.ESTABLISHED) {
            return DocaError.NOT_CONNECTED;
        }
        r.result = resolve(r);
        return c.endpoint.submit(r);
    }

    /**
     * Checks a task against the rules of both sides before anything is touched, and computes the
     * remote target. Allocation-free.
     */
    DocaError resolve(RdmaTask t) {
        Buf local = t.local;
        if (local == null || local.mmap() == null) {
            return DocaError.INVALID_VALUE;
        }
        if (local.listLen() > rdma.maxSendBufListLen) {
            return DocaError.INVALID_VALUE;
        }
        RdmaConnectionBlob peer = t.conn.peer;
        int need;
        switch (t.kind) {
            case RdmaTask.K_SEND, RdmaTask.K_SEND_IMM -> {
                t.len = local.listDataLen();
                if (t.len > Rdma.MAX_MESSAGE_SIZE) {
                    return DocaError.TOO_BIG;
                }
                return BufCopy.readableList(local) ? DocaError.SUCCESS : DocaError.NOT_SUPPORTED;
            }
            case RdmaTask.K_WRITE, RdmaTask.K_WRITE_IMM -> {
                t.len = local.listDataLen();
                if (t.len > Rdma.MAX_MESSAGE_SIZE) {
                    return DocaError.TOO_BIG;
                }
                if (!BufCopy.readableList(local)) {
                    return DocaError.NOT_SUPPORTED;
                }
                if (t.len > t.remote.tailroomLen()) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.remote.data() + t.remote.dataLen();
                need = AccessFlags.RDMA_WRITE;
            }
            case RdmaTask.K_READ -> {
                t.len = t.remote.dataLen();
                if (t.len > Rdma.MAX_MESSAGE_SIZE) {
                    return DocaError.TOO_BIG;
                }
                if (!BufCopy.writableList(local)) {
                    return DocaError.NOT_PERMITTED;
                }
                if (t.len > local.listTailroomLen()) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.remote.data();
                need = AccessFlags.RDMA_READ;
            }
            case RdmaTask.K_CAS, RdmaTask.K_FADD -> {
                t.len = 8;
                if (!BufCopy.writableList(local)) {
                    return DocaError.NOT_PERMITTED;
                }
                if (local.tailroomLen() < 8 || t.remote.addr() + t.remote.len() - t.remote.data() < 8) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.remote.data();
                need = AccessFlags.RDMA_ATOMIC;
            }
            case RdmaTask.K_SE_GET, RdmaTask.K_SE_ADD -> {
                // Both land the event's 8-byte value (the value read, the value before the add) locally.
                t.len = 8;
                if (!BufCopy.writableList(local)) {
                    return DocaError.NOT_PERMITTED;
                }
                if (local.tailroomLen() < 8) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.event.address();
                need = t.kind == RdmaTask.K_SE_GET ? AccessFlags.RDMA_READ : AccessFlags.RDMA_ATOMIC;
            }
            case RdmaTask.K_SE_SET -> {
                t.len = 8;
                if (local.dataLen() < 8 || local.segment() == null) {
                    return DocaError.INVALID_VALUE;
                }
                t.rAddr = t.event.address();
                need = AccessFlags.RDMA_WRITE;
            }
            default -> {
                return DocaError.UNEXPECTED;
            }
        }
        MemoryMap rm = t.remote != null ? t.remote.mmap() : t.event.mmap();
        if (rm == null || !rm.isStarted()) {
            return DocaError.BAD_STATE;
        }
        MmapExport ex = rm.importedFrom();
        // The remote memory must be the peer's, exported for RDMA: anything else is not this connection's to touch.
        if (ex == null || ex.kind() != MmapExport.Kind.RDMA || ex.pid() != peer.pid() || !ex.hostId()
                .equals(peer.hostId())) {
            return DocaError.NOT_PERMITTED;
        }
        if ((ex.permissions() & need) == 0 || (peer.permissions() & need) == 0) {
            return DocaError.NOT_PERMITTED;
        }
        if (!rm.contains(t.rAddr, t.len)) {
            return DocaError.INVALID_VALUE;
        }
        if (t.len == 8 && t.kind != RdmaTask.K_READ && t.kind != RdmaTask.K_WRITE && t.kind != RdmaTask.K_WRITE_IMM
                && (t.rAddr & 7) != 0) {
            return DocaError.INVALID_VALUE;
        }
        t.rMap = rm;
        t.rMapId = ex.mapId();
        t.rCap0 = ex.cap0();
        t.rCap1 = ex.cap1();
        return DocaError.SUCCESS;
    }

    /** The context's duty cycle (engine thread). */
    int work() {
        int n = conns.work();
        TcpTransportAgent agent = conns.invokedAgent();
        if (agent != null) {
            // INVOKER: the transport's duty cycle runs here first, so what it completed is delivered below.
            n += agent.invoke();
        }
        VerbsTransport vt = rdma.verbs;
        if (vt != null) {
            n += vt.poll();
            if (rdma.state() == CtxState.IDLE) {
                return n;
            }
        }
        RdmaConnection[] cs = conns.active;
        inWork = true;
        try {
            for (int i = 0; i < cs.length; i++) {
                n += cs[i].endpoint.work();
                if (rdma.state() == CtxState.IDLE) {
                    // The last completion freed the last task: resources are released already.
                    return n;
                }
            }
        } finally {
            inWork = false;
            RdmaConnection[] now = conns.active;
            for (int i = 0; i < now.length; i++) {
                now[i].endpoint.afterWork();
            }
        }
        if (agent != null && agent.owed()) {
            // What the callbacks submitted leaves now, not at the next pass.
            n += agent.invoke();
        }
        if (rdma.stopping) {
            Object o;
            while ((o = postedRecvs.poll()) != null) {
                rdma.done((RdmaTaskReceive) o, rdma.fatal == null ? DocaError.SHUTDOWN : rdma.fatal);
                n++;
            }
            vt = rdma.verbs;
            if (vt != null && vt.hasPostedRecvs() && conns.allDrained()) {
                // Every QP is flushed: no message can still land in a posted receive.
                n += vt.flushRecvs(rdma.fatal == null ? DocaError.SHUTDOWN : rdma.fatal);
            }
        }
        return n;
    }

    boolean hasPendingWork() {
        if (conns.hasCmEvents()) {
            return true;
        }
        TcpTransportAgent agent = conns.invokedAgent();
        if (agent != null && agent.owed()) {
            return true;
        }
        VerbsTransport vt = rdma.verbs;
        if (vt != null && (vt.hasPendingWork() || rdma.stopping && vt.hasPostedRecvs() && conns.allDrained())) {
            return true;
        }
        RdmaConnection[] cs = conns.active;
        for (int i = 0; i < cs.length; i++) {
            if (cs[i].endpoint.hasPendingWork()) {
                return true;
            }
        }
        return rdma.stopping && postedRecvs != null && !postedRecvs.isEmpty();
    }

    void beforeWait() {
        VerbsTransport vt = rdma.verbs;
        if (vt != null) {
            vt.beforeWait();
        }
        RdmaConnection[] cs = conns.active;
        for (int i = 0; i < cs.length; i++) {
            if (cs[i].endpoint instanceof TcpEndpoint t) {
                t.beforeWait();
            }
        }
    }

    long maxSleepNanos() {
        long s = conns.setupPending() ? 1_000_000L : 100_000_000L;
        RdmaConnection[] cs = conns.active;
        for (int i = 0; i < cs.length; i++) {
            s = Math.min(s, cs[i].endpoint.maxSleepNanos());
        }
        TcpTransportAgent agent = conns.invokedAgent();
        if (agent != null) {
            s = Math.min(s, agent.maxSleepNanos());
        }
        VerbsTransport vt = rdma.verbs;
        if (vt != null) {
            s = Math.min(s, vt.maxSleepNanos());
        }
        return s;
    }
}
