package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaIoTaskDisconnect;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.nvmf.NvmfQpairState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NvmfTarget}'s controller registry (SPDK's {@code nvmf_subsystem} controller list,
 * the qpair-to-controller binding and the keep-alive poller): controller ids (CNTLID 1..0xFFEF),
 * which controller each connected QP belongs to, asynchronous events for namespace changes, the
 * teardown of a controller with its queues (subsystem deleted, host removed, admin queue closed,
 * keep-alive timeout).
 *
 * <p>Threads: {@code sta-main} only (plain maps, no lock). A QP is answered or disconnected by
 * posting to its IO context ({@code StaIo.post}), never touched from here directly.
 */
final class NvmfControllers {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfControllers.class);
    static final int MAX_CNTLID = 0xffef;

    private final Map<Integer, NvmfController> controllers = new HashMap<>();
    /** The controller each connected QP (admin or I/O) belongs to. */
    private final Map<StaQp, NvmfController> owners = new IdentityHashMap<>();
    /** Per subsystem, the next controller id to try (ids go round within its range). */
    private final Map<NvmfSubsystem, Integer> nextCntlid = new IdentityHashMap<>();
    /** Per IO context, queue pairs ever connected: {admin, io} (nvmf_get_stats' cumulative admin_qpairs, io_qpairs). */
    private final Map<StaIo, long[]> connected = new IdentityHashMap<>();

    /**
     * A new controller for a Connect on {@code adminQp} that came in on listener {@code listenerKey},
     * with an id from the subsystem's range (SPDK's min_cntlid..max_cntlid, so two targets serving
     * one NQN never hand out the same id), or null when every id of the range is taken. Ids are
     * unique in the whole target, so an I/O-queue Connect finds its controller by id alone.
     */
    NvmfController create(NvmfSubsystem s, String hostNqn, byte[] hostId, StaQp adminQp, long kato,
                          String listenerKey) {
        int min = s.minCntlid();
        int max = s.maxCntlid();
        int next = nextCntlid.getOrDefault(s, min);
        for (int i = 0; i <= max - min; i++) {
            int id = next < min || next > max ? min : next;
            next = id >= max ? min : id + 1;
            if (!controllers.containsKey(id)) {
                nextCntlid.put(s, next);
                NvmfController c = new NvmfController(id, s, hostNqn, hostId, adminQp, kato, NvmfTarget.MAX_IO_QUEUES,
                        listenerKey);
                controllers.put(id, c);
                owners.put(adminQp, c);
                connected.computeIfAbsent(adminQp.io(), k -> new long[2])[0]++;
                return c;
            }
        }
        return null;
    }

    NvmfController get(int cntlid) {
        return controllers.get(cntlid);
    }

    /** The controller {@code qp} was connected to, or null (no Connect yet). */
    NvmfController owner(StaQp qp) {
        return owners.get(qp);
    }

    /** An I/O queue joined {@code c}. */
    void addIoQp(NvmfController c, StaQp qp) {
        owners.put(qp, c);
        c.addIoQp(qp);
        connected.computeIfAbsent(qp.io(), k -> new long[2])[1]++;
    }

    /** Admin and I/O queue pairs ever connected on {@code io}: {admin, io}. */
    long[] connectedTotals(StaIo io) {
        long[] t = connected.get(io);
        return t == null ? new long[2] : t.clone();
    }

    List<NvmfController> all() {
        List<NvmfController> l = new ArrayList<>(controllers.values());
        l.sort((a, b) -> Integer.compare(a.cntlid(), b.cntlid()));
        return l;
    }

    /** Namespace attribute changed: record it on every controller of the subsystem and notify hosts. */
    void namespaceChanged(NvmfSubsystem s, int nsid) {
        for (NvmfController c : controllers.values()) {
            if (c.subsystem() == s && c.namespaceChanged(nsid)) {
                c.deliverEvents();
            }
        }
    }

    /** The ANA states of {@code s} changed on listener {@code listenerKey}: notify its controllers there. */
    void anaChanged(NvmfSubsystem s, String listenerKey) {
        for (NvmfController c : controllers.values()) {
            if (c.subsystem() == s && c.listenerKey().equals(listenerKey) && c.anaChanged()) {
                c.deliverEvents();
            }
        }
    }

    /** Forgets the id cursor of a deleted subsystem. */
    void subsystemDeleted(NvmfSubsystem s) {
        nextCntlid.remove(s);
    }

    /** Closes {@code qp}: a disconnect task submitted on its IO thread. Any thread. */
    static void disconnect(StaQp qp) {
        NvmfMain.post(qp.io(), () -> submitDisconnect(qp));
    }

    /** Submits a disconnect task for {@code qp}. The QP's IO thread. */
    static void submitDisconnect(StaQp qp) {
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
    }

    /** Tears down every controller {@code which} selects (e.g. of a deleted subsystem). */
    void killAll(Predicate<NvmfController> which, String why) {
        for (NvmfController c : new ArrayList<>(controllers.values())) {
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
                owners.remove(qp);
                disconnect(qp);
            }
            owners.remove(c.adminQp());
            disconnect(c.adminQp());
        }
    }

    /**
     * A QP is gone (the peer closed it, a fatal error, a Fabrics Disconnect): an admin QP takes its
     * controller with it, an I/O QP leaves its controller.
     */
    void qpGone(StaQp qp, String why) {
        NvmfController c = owners.remove(qp);
        if (c != null) {
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
        for (NvmfController c : new ArrayList<>(controllers.values())) {
            long kato = c.katoMs();
            // NVMe Base 2.0 §3.9: the controller may add slack; Linux sends Keep Alive every KATO/2.
            if (kato > 0 && now - c.lastKeepAliveNanos() > TimeUnit.MILLISECONDS.toNanos(kato * 2)) {
                kill(c, "keep-alive timeout (" + kato + " ms)");
            }
        }
    }
}
