package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.sta.StaIoTaskDisconnect;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfQpairState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NvmfTarget}'s controller registry (SPDK's {@code nvmf_subsystem} controller list and
 * keep-alive poller): controller ids (CNTLID 1..0xFFEF), asynchronous events for namespace
 * changes, the teardown of a controller with its queues (subsystem deleted, host removed, admin
 * queue closed, keep-alive timeout).
 *
 * <p><b>Threads.</b> Any thread: the registry is a concurrent map; a QP is answered or disconnected
 * through its IO engine's {@code post}. {@link #checkKeepAlive} runs on the main agent's thread.
 */
final class NvmfControllers {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfControllers.class);

    private final Map<Integer, NvmfController> controllers = new ConcurrentHashMap<>();
    private final AtomicInteger nextCntlid = new AtomicInteger(1);

    /** A new controller for a Connect on {@code adminQp}, or null when every CNTLID is taken. */
    NvmfController create(NvmfSubsystem s, String hostNqn, byte[] hostId, StaQp adminQp, long kato) {
        for (int i = 0; i < 0xffef; i++) {
            int id = nextCntlid.getAndIncrement();
            if (id > 0xffef) {
                nextCntlid.set(1);
                continue;
            }
            NvmfController c = new NvmfController(id, s, hostNqn, hostId, adminQp, kato, NvmfTarget.MAX_IO_QUEUES);
            if (controllers.putIfAbsent(id, c) == null) {
                return c;
            }
        }
        return null;
    }

    NvmfController get(int cntlid) {
        return controllers.get(cntlid);
    }

    List<NvmfController> all() {
        return new ArrayList<>(controllers.values());
    }

    /** Namespace attribute changed: record it on every controller of the subsystem and notify hosts. */
    void namespaceChanged(NvmfSubsystem s, int nsid) {
        for (NvmfController c : controllers.values()) {
            if (c.subsystem() == s && c.namespaceChanged(nsid)) {
                deliverEvents(c);
            }
        }
    }

    /** Completes outstanding AERs with pending events, on the admin QP's IO thread. */
    void deliverEvents(NvmfController c) {
        StaQp qp = c.adminQp();
        qp.io().post(() -> {
            int[] pair;
            while ((pair = c.takeAerAndEvent()) != null) {
                AdminHandler.send(qp.io(), qp, pair[0], NvmeStatus.SUCCESS, pair[1], 0);
            }
        });
    }

    /** Disconnects one QP (IO thread of the QP). */
    void disconnectQp(StaQp qp) {
        qp.io().post(() -> {
            if (qp.state() == NvmfQpairState.CLOSED) {
                return;
            }
            StaIoTaskDisconnect t = qp.io().taskDisconnectAllocInit(qp, 0);
            if (t == null) {
                return;
            }
            if (t.submit() != DocaError.SUCCESS) {
                t.free();
            }
        });
    }

    /** Tears down every controller {@code which} selects (e.g. of a deleted subsystem). */
    void killAll(Predicate<NvmfController> which, String why) {
        for (NvmfController c : controllers.values()) {
            if (which.test(c)) {
                kill(c, why);
            }
        }
    }

    private void kill(NvmfController c, String why) {
        if (controllers.remove(c.cntlid(), c)) {
            c.markDead();
            LOG.info("{}: torn down ({})", c, why);
            for (StaQp qp : c.ioQps()) {
                disconnectQp(qp);
            }
            disconnectQp(c.adminQp());
        }
    }

    /** A QP died (peer closed it, or a fatal error): an admin QP takes its controller with it. */
    void qpGone(StaQp qp, String why) {
        Object o = qp.userObject();
        if (o instanceof NvmfController c) {
            if (c.adminQp() == qp) {
                kill(c, "admin queue closed: " + why);
            } else {
                c.removeIoQp(qp);
            }
        }
        LOG.debug("{} closed: {}", qp, why);
    }

    /**
     * The keep-alive deadline, checked by the main agent every {@link NvmfMain#KEEP_ALIVE_PERIOD_NANOS}:
     * a controller silent for twice its KATO at {@code now} is torn down.
     */
    void checkKeepAlive(long now) {
        for (NvmfController c : controllers.values()) {
            long kato = c.katoMs();
            // NVMe Base 2.0 §3.9: the controller may add slack; Linux sends Keep Alive every KATO/2.
            if (kato > 0 && now - c.lastKeepAliveNanos() > TimeUnit.MILLISECONDS.toNanos(kato * 2)) {
                kill(c, "keep-alive timeout (" + kato + " ms)");
            }
        }
    }
}
