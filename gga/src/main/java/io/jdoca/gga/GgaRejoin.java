package io.jdoca.gga;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.storage.wire.ConnectionRole;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/**
 * How a target that missed writes gets back into service (docs/STORAGE-GGA.md "Resync"): its dirty
 * stripes are rebuilt from the two survivors by worker 0 ({@link #resync}) before it serves a read —
 * at a session's start, or (issue 29 item 6) in the middle of a session as soon as it answers again.
 * Mid-session ({@link #poll}, from the service's control loop while the data path runs): the target's
 * control connection is opened again (with its query), its session initialised like the others', each
 * worker's two RDMA contexts for it reset, restarted and reconnected; then the data path is paused (new
 * initiator requests wait, those in flight finish), the target takes writes again, its dirty stripes
 * are rebuilt, and the data path resumes with the target UP. A target that fails any step stays out of
 * service (and is tried again later).
 *
 * <p>Not thread-safe: the service's control thread only (it drives the workers through their commands).
 */
final class GgaRejoin {
    /** How often a lost target is tried again during a session. */
    private static final long RETRY_NANOS = 2_000_000_000L;
    /** How long one try may wait for the target's TCP connect (the control loop is blocked meanwhile). */
    private static final long CONNECT_NANOS = 200_000_000L;

    private final GgaTargets targets;
    private final DirtyLog dirtyLog;
    private final List<GgaWorker> workers;
    private final PrintStream out;
    private final long timeout;
    /** The service's "target lost" path: marks it and tells the workers. */
    private final java.util.function.BiConsumer<Integer, String> lost;
    private final long[] nextTry = new long[TargetRole.COUNT];
    /** The running session's init (null outside a running data path). */
    private byte[] scratchBlob;
    private int transactions;
    private int cores;
    private int correlationId;
    private long targetCapacity;
    private int halfSize;

    GgaRejoin(GgaTargets targets, DirtyLog dirtyLog, List<GgaWorker> workers, PrintStream out, long timeoutNanos,
            java.util.function.BiConsumer<Integer, String> lost) {
        this.targets = targets;
        this.dirtyLog = dirtyLog;
        this.workers = workers;
        this.out = out;
        this.timeout = timeoutNanos;
        this.lost = lost;
    }

    /** The data path runs with this session's init: lost targets may now rejoin. */
    void sessionRunning(byte[] blob, int transactions, int cores, int correlationId, long targetCapacity,
            int halfSize) {
        this.scratchBlob = blob;
        this.transactions = transactions;
        this.cores = cores;
        this.correlationId = correlationId;
        this.targetCapacity = targetCapacity;
        this.halfSize = halfSize;
        java.util.Arrays.fill(nextTry, System.nanoTime());
    }

    /** The data path stopped: no rejoin until the next session (which reconnects every target anyway). */
    void sessionStopped() {
        scratchBlob = null;
    }

    /** While the data path runs: tries each lost target every {@link #RETRY_NANOS}. */
    void poll() {
        if (scratchBlob == null) {
            return;
        }
        for (int r = 0; r < TargetRole.COUNT; r++) {
            long now = System.nanoTime();
            if (targets.isLost(r) && now - nextTry[r] >= 0) {
                nextTry[r] = now + RETRY_NANOS;
                tryRejoin(r);
            }
        }
    }

    private void tryRejoin(int r) {
        ControlPayload.StorageInfo info;
        try {
            info = targets.open(r, CONNECT_NANOS);
        } catch (DocaException notBack) {
            targets.close(r);
            return; // not back yet: quiet, tried again later
        }
        String who = "target " + TargetRole.name(r) + " (" + targets.server(r) + ")";
        if (info.totalSize() != targetCapacity || info.blockSize() != halfSize) {
            out.printf(Locale.ROOT, "gga-offload: %s answers again, but with %d bytes in blocks of %d; it stays out of"
                    + " service%n", who, info.totalSize(), info.blockSize());
            out.flush();
            targets.close(r);
            return;
        }
        out.printf(Locale.ROOT,
                "gga-offload: %s is back mid-session: reconnecting its RDMA, then resyncing its %d dirty"
                + " stripes from the survivors (new requests wait meanwhile) before it serves reads%n", who,
                dirtyLog.pending(r));
        out.flush();
        long t0 = System.nanoTime();
        boolean paused = false;
        boolean back = false;
        try {
            targets.request(r, new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, targets.nextId(),
                    correlationId,
                    new ControlPayload.InitStorage(transactions, cores, scratchBlob)));
            for (GgaWorker w : workers) {
                reconnect(w, r);
            }
            targets.request(r, ControlMessage.of(ControlMessageType.START_STORAGE_REQUEST, targets.nextId(),
                    correlationId));
            for (GgaWorker w : workers) {
                w.call(w::pauseDataPath, timeout);
            }
            paused = true;
            for (GgaWorker w : workers) {
                awaitDrained(w);
            }
            for (GgaWorker w : workers) {
                w.call(() -> w.targetBack(r), timeout);
            }
            targets.rejoined(r);
            back = true;
            targets.setState(r, TargetState.RESYNCING);
            resync(r);
            if (targets.state(r) == TargetState.UP) {
                out.printf(Locale.ROOT, "gga-offload: %s rejoined the session in %d ms%n", who,
                        (System.nanoTime() - t0) / 1_000_000);
            }
        } catch (DocaException | IllegalStateException e) {
            out.printf(Locale.ROOT, "gga-offload: %s came back but could not rejoin: %s; it stays out of service%n",
                    who,
                    e.getMessage());
            if (back) {
                lost.accept(r, "rejoin failed");
            }
            targets.close(r);
        } finally {
            if (paused) {
                for (GgaWorker w : workers) {
                    w.call(w::resumeDataPath, timeout);
                }
            }
            out.flush();
        }
    }

    /** One worker's two RDMA contexts for target {@code r}: reset, restarted, reconnected and armed again. */
    private void reconnect(GgaWorker w, int r) {
        w.call(() -> w.resetTarget(r), timeout);
        long deadline = System.nanoTime() + timeout;
        while (!w.call(() -> w.targetIdle(r), timeout)) {
            if (System.nanoTime() - deadline > 0) {
                throw new DocaException(DocaError.TIME_OUT, "worker " + w.index() + ": the contexts of "
                        + TargetRole.name(r) + " did not stop");
            }
            pause();
        }
        w.call(() -> w.restartTarget(r), timeout);
        for (ConnectionRole role : new ConnectionRole[] {ConnectionRole.IO_DATA, ConnectionRole.IO_CONTROL}) {
            byte[] mine = w.call(() -> w.export(role, r), timeout);
            ControlMessage resp = targets.request(r,
                    new ControlMessage(ControlMessageType.CREATE_RDMA_CONNECTION_REQUEST,
                    targets.nextId(), correlationId, new ControlPayload.RdmaConnection(w.index(), role, mine)));
            byte[] peer = resp.asRdmaConnection().connectionDetails();
            targets.checkPeerBlob(r, peer);
            DocaError e = w.call(() -> w.connect(role, r, peer), timeout);
            if (e != DocaError.SUCCESS) {
                throw new DocaException(e, "worker " + w.index() + ": rdma connect " + role.wireName() + " to "
                        + TargetRole.name(r));
            }
        }
        deadline = System.nanoTime() + timeout;
        while (!w.call(w::contextsReady, timeout)) {
            if (System.nanoTime() - deadline > 0) {
                throw new DocaException(DocaError.TIME_OUT, "worker " + w.index() + " contexts not ready: "
                        + w.call(w::notReady, timeout));
            }
            pause();
        }
        w.call(() -> w.rearmTarget(r), timeout);
    }

    private void awaitDrained(GgaWorker w) {
        long deadline = System.nanoTime() + timeout;
        while (w.call(w::inflight, timeout) != 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new DocaException(DocaError.TIME_OUT, "worker " + w.index()
                        + ": requests in flight did not finish");
            }
            pause();
        }
    }

    /**
     * Rebuilds every dirty stripe of {@code role} from the two other targets (worker 0, its idle
     * transactions) while nothing else runs on the data path: before it opens, or paused. UP when every
     * stripe is rewritten; lost again (DOWN) otherwise.
     */
    void resync(int role) {
        GgaWorker w = workers.get(0);
        long todo = dirtyLog.pending(role);
        long t0 = System.nanoTime();
        w.call(() -> w.startResync(role), timeout);
        long deadline = t0 + Math.max(timeout, 60_000_000_000L);
        while (w.call(w::resyncActive, timeout) != 0) {
            if (System.nanoTime() - deadline > 0) {
                break;
            }
            pause();
        }
        long[] res = w.call(w::resyncResult, timeout);
        dirtyLog.force();
        long left = dirtyLog.pending(role);
        if (left == 0 && w.call(w::resyncActive, timeout) == 0) {
            targets.setState(role, TargetState.UP);
            out.printf(Locale.ROOT,
                    "gga-offload: target %s resynced: %d stripes rebuilt from the survivors in %d ms; UP%n",
                    TargetRole.name(role), res[0], (System.nanoTime() - t0) / 1_000_000);
        } else {
            out.printf(Locale.ROOT, "gga-offload: target %s resync incomplete (%d of %d stripes rebuilt, %d failed);"
                    + " it stays out of service%n", TargetRole.name(role), res[0], todo, res[1]);
            lost.accept(role, "resync failed");
        }
        out.flush();
    }

    /** A 2 ms pause of the control thread between two polls of a worker. */
    private static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocaException(DocaError.CONNECTION_ABORTED, "interrupted");
        }
    }
}
