package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskQueue;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.NvmfTransport;

/**
 * Execution of an IO context's tasks ({@link StaIo}): the application's answers to non-offloaded
 * commands (send, write + send, fetch host data) and QP disconnects. A task that cannot proceed
 * yet (no room on the wire, no free request, a disconnect still draining) is queued again.
 *
 * <p>Not thread-safe: the IO context's progress-engine thread.
 */
final class NonOffloadTasks {
    private NonOffloadTasks() {
    }

    static StaQp qpOf(Task t) {
        if (t instanceof StaIoTaskNonOffloadSend s) {
            return s.qp;
        }
        if (t instanceof StaIoTaskNonOffloadWriteSend w) {
            return w.qp;
        }
        if (t instanceof StaIoTaskNonOffloadRead r) {
            return r.qp;
        }
        if (t instanceof StaIoTaskDisconnect d) {
            return d.qp;
        }
        return null;
    }

    /** A task submitted to {@code io}: its QP must be {@code io}'s, its buffer ranges inside their segments. */
    static DocaError validate(StaIo io, Task t, int maxIo) {
        StaQp qp = qpOf(t);
        if (qp == null || qp.io() != io) {
            return DocaError.INVALID_VALUE;
        }
        if (t instanceof StaIoTaskNonOffloadWriteSend w && (w.dataLen < 0 || (w.dataLen > 0 && w.data == null)
                || (w.data != null && w.dataOffset + w.dataLen > w.data.byteSize()))) {
            return DocaError.INVALID_VALUE;
        }
        if (t instanceof StaIoTaskNonOffloadRead r && (r.dst == null || r.len <= 0
                || r.dstOffset + r.len > r.dst.byteSize() || r.len > maxIo)) {
            return DocaError.INVALID_VALUE;
        }
        return DocaError.SUCCESS;
    }

    /** Runs the queued tasks once each; those that cannot proceed yet are queued again. Returns tasks completed. */
    static int run(StaIo io, TaskQueue queued, boolean stopping) {
        int n = 0;
        int size = queued.size();
        for (int i = 0; i < size; i++) {
            Task t = queued.poll();
            StaQp qp = qpOf(t);
            if (stopping) {
                if (t instanceof StaIoTaskDisconnect && qp != null && qp.state() == NvmfQpairState.CLOSED) {
                    io.completeTask(t, DocaError.SUCCESS);
                } else {
                    io.completeTask(t, DocaError.SHUTDOWN);
                }
                n++;
                continue;
            }
            if (t instanceof StaIoTaskDisconnect d) {
                if (qp.state() == NvmfQpairState.CLOSED) {
                    io.completeTask(t, DocaError.SUCCESS);
                    n++;
                    continue;
                }
                qp.startDisconnect();
                if (qp.transport() != null) {
                    qp.transport().flush();
                }
                if (qp.drained() || System.nanoTime() - d.deadline > 0) {
                    qp.appInitiatedClose = true;
                    io.teardown(qp, "recv", DocaError.SHUTDOWN, 0);
                    io.completeTask(t, DocaError.SUCCESS);
                    n++;
                } else {
                    queued.add(t);
                }
                continue;
            }
            if (qp.state() == NvmfQpairState.CLOSED || qp.state() == NvmfQpairState.TERMINATING) {
                io.completeTask(t, DocaError.NOT_CONNECTED);
                n++;
                continue;
            }
            if (t instanceof StaIoTaskNonOffloadSend s) {
                NvmfTransport tr = qp.transport();
                if (!tr.reserve(0)) {
                    queued.add(t);
                    continue;
                }
                DocaError e = qp.executor().answer(s.cid, null, 0, 0, s.status, s.dw0, s.dw1);
                tr.flush();
                io.completeTask(t, e);
                n++;
            } else if (t instanceof StaIoTaskNonOffloadWriteSend w) {
                NvmfTransport tr = qp.transport();
                if (!tr.reserve(w.dataLen)) {
                    queued.add(t);
                    continue;
                }
                DocaError e = qp.executor().answer(w.cid, w.data, w.dataOffset, w.dataLen, w.status, w.dw0, w.dw1);
                tr.flush();
                io.completeTask(t, e);
                n++;
            } else if (t instanceof StaIoTaskNonOffloadRead r) {
                if (!qp.transport().reserve(0)) {
                    queued.add(t);
                    continue;
                }
                DocaError e = qp.executor().fetch(r.cid, r.len, r);
                if (e != DocaError.SUCCESS) {
                    io.completeTask(t, e);
                    n++;
                    continue;
                }
                qp.transport().flush();
                // completes when the host's data has arrived (NvmfHostDataSink.fetched)
            }
        }
        return n;
    }
}
