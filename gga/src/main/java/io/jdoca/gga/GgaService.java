package io.jdoca.gga;

import io.jdoca.comch.ComchIdentity;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.DevRep;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.ComchControlChannel;
import io.jdoca.storage.common.ControlService;
import io.jdoca.storage.common.DataPathMetrics;
import io.jdoca.storage.common.DataPathWorker;
import io.jdoca.storage.common.ServiceControlState;
import io.jdoca.storage.wire.ConnectionRole;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control side of {@code doca_storage_comch_to_rdma_gga_offload} (reference §1 and §5): connects
 * to the three targets over TCP, serves one initiator over Comch, relays query / init / start / stop
 * / shutdown with DOCA's consistency checks and id rules (own message_id, the client's
 * correlation_id), builds the workers and their two RDMA connections per target, and prints the
 * per-core statistics. Beyond DOCA it watches the targets during the run: a lost target puts the
 * service in degraded mode ({@link DegradedPolicy}).
 *
 * <p>Beyond DOCA, the service outlives its initiators: a session is one Comch client; it ends with
 * its shutdown_request or when it leaves, and either way the workers, their RDMA connections, the
 * imported host map and the scratch region are released, the targets' sessions are ended (stop and
 * shutdown relayed when due, then the TCP control connections closed), the statistics printed, and
 * the next initiator is served (targets reconnected at its query). With {@link Config#once()}
 * (DOCA's behaviour) the first session's end ends the process.
 *
 * <p>It also keeps, for its lifetime, a {@link TargetState} and a {@link DirtyStripes} log per
 * target: writes while a target is down land on the two others and are logged dirty for it; when it
 * is reachable again at a session's query it is RESYNCING, and the session's start rebuilds every
 * dirty stripe on it from the survivors before any read is served, then marks it UP.
 *
 * <p>Not thread-safe: one control thread; workers run on their own threads.
 */
public final class GgaService extends ControlService<ServiceControlState> {
    private static final Logger LOG = LoggerFactory.getLogger(GgaService.class);

    /**
     * The app's flags: DOCA's, and jdoca's {@code --once}, {@code --listen-address} (its RDMA listeners;
     * null: 127.0.0.1), {@code --allow-peer} (addresses the targets' RDMA blobs may name besides their
     * own), {@code --dirty-log} (the write-ahead dirty-stripe file; null: in memory) and {@code -g/--gid-index}
     * ({@code gidIndex}: the RDMA contexts' GID index, -1 for the device's; checked here and at start).
     */
    public record Config(String device, String representor, List<Integer> cpus, List<String> storageServers,
            EcMatrixType matrixType, String commandChannelName, long controlTimeoutNanos, int recoverEveryN,
            boolean once, InetAddress listenAddress, List<InetAddress> allowedPeers, Path dirtyLog, int gidIndex) {
        public Config {
            allowedPeers = allowedPeers == null ? List.of() : List.copyOf(allowedPeers);
            AppSupport.checkGidIndex(gidIndex);
        }

        /** As the canonical constructor, with the device's default GID index ({@code gidIndex} -1). */
        public Config(String device, String representor, List<Integer> cpus, List<String> storageServers,
                EcMatrixType matrixType, String commandChannelName, long controlTimeoutNanos, int recoverEveryN,
                boolean once, InetAddress listenAddress, List<InetAddress> allowedPeers, Path dirtyLog) {
            this(device, representor, cpus, storageServers, matrixType, commandChannelName, controlTimeoutNanos,
                    recoverEveryN, once, listenAddress, allowedPeers, dirtyLog, -1);
        }

        /** DOCA's one-session service (in-process tests and benchmarks; dirty log in memory). */
        public Config(String device, String representor, List<Integer> cpus, List<String> storageServers,
                EcMatrixType matrixType, String commandChannelName, long controlTimeoutNanos, int recoverEveryN) {
            this(device, representor, cpus, storageServers, matrixType, commandChannelName, controlTimeoutNanos,
                    recoverEveryN, true, null, List.of(), null);
        }
    }

    private final Config cfg;
    private final List<GgaWorker> workers = new ArrayList<>();

    /** gga-offload's worker series, the order of {@link GgaWorker#readCounters}. */
    static final List<DataPathMetrics.Series> METRICS = List.of(
            new DataPathMetrics.Series("jdoca_storage_requests",
                    "IO requests the data path completed, by worker (one per --cpu).", null, null),
            new DataPathMetrics.Series("jdoca_storage_ops", "Completed I/Os by worker and op (read, write).", "op",
                    "read"),
            new DataPathMetrics.Series("jdoca_storage_ops", "", "op", "write"),
            new DataPathMetrics.Series("jdoca_storage_errors", "Data-path errors by worker and kind: failed I/O, write "
                    + "refused (target out of service), write too big, illegal transaction transition.", "kind", "io"),
            new DataPathMetrics.Series("jdoca_storage_errors", "", "kind", "refused_write"),
            new DataPathMetrics.Series("jdoca_storage_errors", "", "kind", "too_big_write"),
            new DataPathMetrics.Series("jdoca_storage_errors", "", "kind", "illegal_transition"),
            new DataPathMetrics.Series("jdoca_gga_recoveries", "Reads served by recovery (EC decode), by worker.",
                    null, null),
            new DataPathMetrics.Series("jdoca_gga_degraded_reads", "Recovery reads because a target is out of "
                    + "service, by worker.", null, null),
            new DataPathMetrics.Series("jdoca_gga_refetches", "Chunk re-fetches, by worker.", null, null));

    private final List<WorkerStats> finalStats = new ArrayList<>();
    /** The workers' final figures of the last ended session ({@link #stats()} after the run; any thread reads). */
    private volatile List<WorkerStats> lastSessionStats = List.of();
    private ComchControlChannel comch;
    /** Comch, DMA, EC and compress (sw0 when {@code -d} names an RDMA device: {@link AppSupport#localDevice}). */
    private Dev dev;
    /** The {@code -d} device: the RDMA contexts and the scratch map's registration. */
    private Dev rdmaDev;
    private GgaLayout layout;
    private long targetCapacity;
    private MemoryMap hostMap;
    private MemoryMap scratchMap;
    private SharedRegion scratchRegion;
    /** The three targets: control connections, states, lost mask, message ids. */
    private GgaTargets targets;
    /** The write-ahead dirty-stripe logs (issue 29 item 6). */
    private DirtyLog dirtyLog;
    /** Resyncs at a session's start, and lost targets that come back mid-session. */
    private GgaRejoin rejoin;
    /** The scratch region's RDMA export of this session (sent again to a target that rejoins). */
    private byte[] scratchBlob;
    private String workerSetupError;
    private long runStartNanos;
    private long runNanos;
    private PrintStream out = System.out;

    public GgaService(Config cfg, AtomicBoolean abort) {
        super("gga-offload", ServiceControlState.WAIT_QUERY, cfg.cpus(), cfg.once(), abort,
                new DataPathMetrics("gga-offload", METRICS));
        this.cfg = cfg;
        if (cfg.storageServers().size() != TargetRole.COUNT) {
            throw new DocaException(DocaError.INVALID_VALUE, "three storage targets are required");
        }
        if (cfg.recoverEveryN() < 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "--trigger-recovery-read-every-n must be >= 0");
        }
    }

    /** Runs the whole life cycle; returns the exit code. */
    @Override
    public int run(PrintStream out) {
        this.out = out;
        rdmaDev = Devices.open(cfg.device());
        AppSupport.checkGidIndex(rdmaDev, cfg.gidIndex());
        dev = AppSupport.localDevice(rdmaDev, cfg.representor());
        DevRep rep = cfg.representor() == null ? null : Devices.findRepresentor(cfg.representor()).open();
        out.println("gga-offload: " + AppSupport.rdmaLine(rdmaDev, cfg.gidIndex()) + "; Comch, DMA, EC and compress on "
                + dev.devInfo().name());
        targets = new GgaTargets(cfg.storageServers(), cfg.allowedPeers(), cfg.controlTimeoutNanos(), out);
        try {
            openDirtyLog();
            rejoin = new GgaRejoin(targets, dirtyLog, workers, out, cfg.controlTimeoutNanos(), this::targetLost);
            // The channel is claimed first: a second gateway on a taken name stops here (issue 29 item 4).
            comch = ComchControlChannel.server(dev, rep, cfg.commandChannelName(),
                    identity("connecting to its targets"));
            ControlPayload.StorageInfo geometry = connectToStorage();
            comch.setIdentity(identity(geometry == null ? "targets of mismatched geometry" : String.format(Locale.ROOT,
                    "%d blocks of %d bytes", geometry.totalSize() / geometry.blockSize(), 2 * geometry.blockSize())));
            out.println(String.format(Locale.ROOT,
                    "gga-offload: connected to data_1 %s, data_2 %s, data_p %s; serving comch channel '%s'",
                    cfg.storageServers().get(0), cfg.storageServers().get(1), cfg.storageServers().get(2),
                    cfg.commandChannelName()));
            out.flush();
            return serve(comch, out);
        } finally {
            closeWorkers();
            if (comch != null) {
                comch.close();
            }
            targets.close();
            releaseSessionMemory();
            if (dirtyLog != null) {
                dirtyLog.close();
            }
        }
    }

    /**
     * Opens the write-ahead dirty-stripe log and replays it: a target with stripes left dirty by an
     * earlier run is DOWN until it rejoins, then resynced before it serves reads.
     */
    private void openDirtyLog() {
        dirtyLog = cfg.dirtyLog() == null ? DirtyLog.inMemory() : DirtyLog.open(cfg.dirtyLog(), cfg.storageServers());
        out.println("gga-offload: " + dirtyLog.describe());
        for (int r = 0; r < TargetRole.COUNT; r++) {
            long n = dirtyLog.pending(r);
            if (n > 0) {
                targets.setState(r, TargetState.DOWN);
                out.printf(Locale.ROOT, "gga-offload: the dirty-stripe log says target %s (%s) missed %d stripe writes;"
                        + " it is resynced from the survivors before it serves reads%n", TargetRole.name(r),
                        cfg.storageServers().get(r), n);
            }
        }
        out.flush();
    }

    /** What initiators see at connect: this gateway's pid, its targets and {@code storage}. */
    private ComchIdentity identity(String storage) {
        return ComchIdentity.of("gga-offload", "targets data_1 " + cfg.storageServers().get(0) + ", data_2 "
                + cfg.storageServers().get(1) + ", data_p " + cfg.storageServers().get(2) + "; " + storage);
    }

    /**
     * {@code connect_to_storage}: the targets should already run; retry until the control timeout (at
     * least 30 s). Each connection sends its query at once. Returns the common geometry, or null when
     * the targets disagree (then every session's query is refused with BAD_STATE, as DOCA's).
     */
    private ControlPayload.StorageInfo connectToStorage() {
        long timeout = Math.max(cfg.controlTimeoutNanos(), 30_000_000_000L);
        ControlPayload.StorageInfo[] infos = new ControlPayload.StorageInfo[TargetRole.COUNT];
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if (abort.get()) {
                throw new DocaException(DocaError.CONNECTION_ABORTED, "Aborted while connecting to storage");
            }
            infos[r] = targets.open(r, timeout);
        }
        ControlPayload.StorageInfo first;
        try {
            first = sameGeometry(infos);
        } catch (DocaException e) {
            // DOCA's place for this refusal is the initiator's query (BAD_STATE); say it now too.
            out.println("gga-offload: " + e.getMessage() + "; every initiator's query will be refused");
            return null;
        }
        dirtyLog.ensureGeometry(first.totalSize() / first.blockSize(), first.blockSize());
        return first;
    }

    /** Reference §1 step 4: the three targets report the same dimensions (BAD_STATE otherwise); returns them. */
    private static ControlPayload.StorageInfo sameGeometry(ControlPayload.StorageInfo[] infos) {
        ControlPayload.StorageInfo first = infos[0];
        for (int r = 1; r < TargetRole.COUNT; r++) {
            if (infos[r].totalSize() != first.totalSize() || infos[r].blockSize() != first.blockSize()) {
                throw new DocaException(DocaError.BAD_STATE, "storage targets report mismatched dimensions: data_1 "
                        + first.totalSize() + " bytes in blocks of " + first.blockSize() + ", " + TargetRole.name(r)
                        + " "
                        + infos[r].totalSize() + " bytes in blocks of " + infos[r].blockSize());
            }
        }
        if (first.blockSize() <= 0) {
            throw new DocaException(DocaError.BAD_STATE, "storage targets report a block size of " + first.blockSize());
        }
        return first;
    }

    /** The targets are watched all the time: a lost one puts the service in degraded mode. */
    @Override
    protected int afterPoll(ControlMessage m, PrintStream out) {
        tellWorkersLost(targets.watch());
        if (state == ServiceControlState.RUNNING) {
            rejoin.poll(); // a lost target that answers again is brought back in this session
        }
        return CONTINUE;
    }

    /** DOCA replies to init first, then builds the workers (the initiator waits for our consumers). */
    @Override
    protected void afterReply(ControlMessage m, ControlMessage reply) {
        if (m.type() == ControlMessageType.INIT_STORAGE_REQUEST && !reply.isError()) {
            try {
                createWorkers(m.correlationId());
            } catch (RuntimeException e) {
                workerSetupError = e.getMessage();
                LOG.warn("worker set-up failed: {}", e.getMessage());
                closeWorkers();
            }
        }
    }

    /**
     * Ends the session: targets told to stop and shut down when due, workers and memory released,
     * stats printed (when {@code print}), and (as a service) the target control connections closed
     * so every target ends its session too. Target states and dirty logs are kept.
     */
    @Override
    protected void endSession(PrintStream out, boolean print) {
        if (rejoin != null) {
            rejoin.sessionStopped();
        }
        if (state != ServiceControlState.SHUT_DOWN) {
            bestEffortTargetShutdown();
        }
        if (print) {
            printStats(out);
        } else {
            closeWorkers();
        }
        lastSessionStats = List.copyOf(finalStats);
        finalStats.clear();
        releaseSessionMemory();
        workerSetupError = null;
        runNanos = 0;
        if (!once) {
            targets.close();
        }
        backToWaitQuery();
    }

    private void releaseSessionMemory() {
        if (scratchMap != null) {
            scratchMap.stop();
            scratchMap.close();
            scratchMap = null;
        }
        if (scratchRegion != null) {
            scratchRegion.close();
            scratchRegion = null;
        }
        if (hostMap != null) {
            hostMap.close();
            hostMap = null;
        }
    }

    /** The current state of a target (control thread). */
    public TargetState targetState(int role) {
        return targets.state(role);
    }

    /** Tells every worker about the targets in {@code lostMask} (already marked lost and DOWN). */
    private void tellWorkersLost(int lostMask) {
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if ((lostMask & TargetRole.bit(r)) == 0) {
                continue;
            }
            for (GgaWorker w : workers) {
                int role = r;
                try {
                    w.call(() -> w.targetLost(role), cfg.controlTimeoutNanos());
                } catch (DocaException e) {
                    LOG.warn("worker {}: {}", w.index(), e.getMessage());
                }
            }
        }
    }

    private void targetLost(int role, String why) {
        if (targets.markLost(role, why)) {
            tellWorkersLost(TargetRole.bit(role));
        }
    }

    @Override
    protected ControlMessage step(ControlMessage m) {
        return switch (state) {
            case WAIT_QUERY -> query(m);
            case WAIT_INIT -> init(m);
            case WAIT_START -> start(m);
            case RUNNING -> stop(m);
            case STOPPED -> shutdown(m);
            case SHUT_DOWN -> throw new IllegalStateException("shut down");
        };
    }

    @Override
    protected ServiceControlState nextState() {
        return state.next();
    }

    private ControlMessage forward(int role, ControlMessage req) {
        return targets.forward(role, req);
    }

    private ControlMessage msg(ControlMessageType t, int correlationId) {
        return ControlMessage.of(t, targets.nextId(), correlationId);
    }

    /**
     * Reference §1 step 4: same dimensions everywhere (else BAD_STATE); report 2× capacity and block
     * size. A target that was DOWN and answers again is RESYNCING if it has dirty stripes, UP otherwise.
     */
    private ControlMessage query(ControlMessage m) {
        ControlPayload.StorageInfo first = sameGeometry(targets.query(m.correlationId()));
        long stripes = first.totalSize() / first.blockSize();
        dirtyLog.ensureGeometry(stripes, first.blockSize());
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if (targets.state(r) == TargetState.DOWN) {
                long n = dirtyLog.pending(r);
                targets.setState(r, n == 0 ? TargetState.UP : TargetState.RESYNCING);
                out.printf(Locale.ROOT, "gga-offload: target %s (%s) is back: %s%n", TargetRole.name(r),
                        cfg.storageServers().get(r), n == 0 ? "nothing written while it was away; UP"
                                : n + " stripes written while it was away will be resynced from the survivors before it"
                                        + " serves reads (RESYNCING)");
                out.flush();
            }
        }
        layout = new GgaLayout(first.blockSize());
        targetCapacity = first.totalSize();
        long capacity = GgaLayout.reportedCapacity(targetCapacity);
        out.printf(Locale.ROOT, "gga-offload: targets hold %d bytes in blocks of %d; the initiator sees %d bytes in"
                + " blocks of %d%n", targetCapacity, first.blockSize(), capacity, layout.blockSize());
        out.flush();
        return new ControlMessage(ControlMessageType.QUERY_STORAGE_RESPONSE, m.messageId(), m.correlationId(),
                new ControlPayload.StorageInfo(capacity, layout.blockSize()));
    }

    private int transactions;
    private int cores;

    /**
     * Reference §5 "Memory": import the host map, build and export the scratch region, relay init with 2× transactions.
     */
    private ControlMessage init(ControlMessage m) {
        ControlPayload.InitStorage p = checkInit(m, 4096);
        int c = p.coreCount();
        cores = c;
        transactions = p.transactionCount() * 2;
        MemoryMap imported = MemoryMap.createFromExport(p.mmapExport(), dev);
        if (imported.segment() == null) {
            imported.close();
            throw new DocaException(DocaError.NOT_SUPPORTED, "the initiator's memory is not reachable from this host");
        }
        hostMap = imported;
        long size = (long) cores * transactions * layout.chunkSize();
        scratchRegion = SharedMemory.allocate(size);
        scratchMap = MemoryMap.create();
        DocaException.check(scratchMap.setMemrange(scratchRegion.segment()), "scratch range");
        DocaException.check(scratchMap.addDev(dev), "scratch dev");
        if (rdmaDev != dev) {
            // The targets read and write the scratch chunks over RDMA: registered on the RDMA device at start.
            DocaException.check(scratchMap.addDev(rdmaDev), "scratch rdma dev");
        }
        DocaException.check(scratchMap.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.PCI_READ_WRITE
                | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE), "scratch permissions");
        DocaException.check(scratchMap.start(), "scratch start");
        byte[] blob = scratchMap.exportRdma(rdmaDev);
        scratchBlob = blob;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            forward(r, new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, targets.nextId(), m.correlationId(),
                    new ControlPayload.InitStorage(transactions, cores, blob)));
        }
        LOG.info("init: {} cores x {} transactions, scratch {} bytes ({} per chunk)", cores, transactions, size,
                layout.chunkSize());
        return m.emptyResponse();
    }

    /** Workers, their contexts and the 2 × 3 RDMA connections each, one worker at a time (as DOCA). */
    private void createWorkers(int correlationId) {
        long timeout = cfg.controlTimeoutNanos();
        for (int i = 0; i < cores; i++) {
            GgaWorker w = new GgaWorker(new GgaWorker.Config(i, dev, rdmaDev, layout, transactions, 2 * targetCapacity,
                    hostMap,
                    scratchMap, (long) i * transactions * layout.chunkSize(), comch.connection(), cfg.matrixType(),
                    cfg.recoverEveryN(), dirtyLog.stripes(), rdmaBind(), cfg.gidIndex()));
            workers.add(w);
            w.pin(cfg.cpus().get(i)); // --cpu: the worker really runs there
            w.call(w::createObjects, timeout);
            for (int r = 0; r < TargetRole.COUNT; r++) {
                for (ConnectionRole role : new ConnectionRole[] {ConnectionRole.IO_DATA, ConnectionRole.IO_CONTROL}) {
                    int target = r;
                    byte[] mine = w.call(() -> w.export(role, target), timeout);
                    ControlMessage resp = forward(r,
                            new ControlMessage(ControlMessageType.CREATE_RDMA_CONNECTION_REQUEST,
                            targets.nextId(), correlationId, new ControlPayload.RdmaConnection(i, role, mine)));
                    byte[] peer = resp.asRdmaConnection().connectionDetails();
                    targets.checkPeerBlob(r, peer);
                    DocaError e = w.call(() -> w.connect(role, target, peer), timeout);
                    if (e != DocaError.SUCCESS) {
                        throw new DocaException(e, "worker " + i + ": rdma connect " + role.wireName() + " to "
                                + TargetRole.name(r));
                    }
                }
            }
            long deadline = System.nanoTime() + timeout;
            while (!w.call(w::contextsReady, timeout)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new DocaException(DocaError.TIME_OUT, "worker " + i + " contexts not ready: "
                            + w.call(w::notReady, timeout) + AppSupport.raisedBy(AppSupport.CONTROL_TIMEOUT_FLAG,
                            timeout));
                }
                pause();
            }
            w.call(w::prepareTasks, timeout);
        }
        LOG.info("{} workers ready", cores);
    }

    private ControlMessage start(ControlMessage m) {
        if (workerSetupError != null || workers.size() != cores) {
            throw new DocaException(DocaError.BAD_STATE, "workers are not ready: " + workerSetupError);
        }
        if (!comch.progressUntil(() -> comch.remoteConsumerIds().size() >= cores, cfg.controlTimeoutNanos())) {
            throw new DocaException(DocaError.TIME_OUT, "the initiator announced " + comch.remoteConsumerIds().size()
                    + " of " + cores + " consumers" + AppSupport.raisedBy(AppSupport.CONTROL_TIMEOUT_FLAG,
                    cfg.controlTimeoutNanos()));
        }
        for (int r = 0; r < TargetRole.COUNT; r++) {
            forward(r, msg(ControlMessageType.START_STORAGE_REQUEST, m.correlationId()));
        }
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if (targets.state(r) == TargetState.RESYNCING) {
                rejoin.resync(r);
            }
        }
        List<Integer> remote = comch.remoteConsumerIds();
        for (int i = 0; i < cores; i++) {
            GgaWorker w = workers.get(i);
            int id = remote.get(i);
            w.call(() -> w.startDataPath(id), cfg.controlTimeoutNanos());
        }
        runStartNanos = System.nanoTime();
        rejoin.sessionRunning(scratchBlob, transactions, cores, m.correlationId(), targetCapacity, layout.halfSize());
        metrics.sessionStarted(workers);
        out.printf(Locale.ROOT, "gga-offload: data path started on %d cores%n", cores);
        out.flush();
        return m.emptyResponse();
    }

    private ControlMessage stop(ControlMessage m) {
        rejoin.sessionStopped();
        relayToSurvivors(ControlMessageType.STOP_STORAGE_REQUEST, m.correlationId());
        long deadline = System.nanoTime() + cfg.controlTimeoutNanos();
        for (GgaWorker w : workers) {
            w.stopDataPath();
            while (w.call(w::inflight, cfg.controlTimeoutNanos()) != 0 && System.nanoTime() - deadline < 0) {
                pause();
            }
        }
        runNanos = System.nanoTime() - runStartNanos;
        return m.emptyResponse();
    }

    private ControlMessage shutdown(ControlMessage m) {
        relayToSurvivors(ControlMessageType.SHUTDOWN_REQUEST, m.correlationId());
        closeWorkers();
        return m.emptyResponse();
    }

    /** Stop and shutdown go to every target still there; a lost one is skipped (degraded mode). */
    private void relayToSurvivors(ControlMessageType type, int correlationId) {
        tellWorkersLost(targets.relayToSurvivors(type, correlationId));
    }

    /** Where the workers' RDMA listeners bind: {@code --listen-address}, else 127.0.0.1. */
    private InetAddress rdmaBind() {
        return cfg.listenAddress() == null ? AppSupport.defaultListenAddress() : cfg.listenAddress();
    }

    private void bestEffortTargetShutdown() {
        // Targets closing their connections now is an orderly end, not a loss: leave the data path first.
        DataPathWorker.stopAll(workers);
        try {
            if (state == ServiceControlState.RUNNING) {
                relayToSurvivors(ControlMessageType.STOP_STORAGE_REQUEST, 0);
            }
            if (state == ServiceControlState.RUNNING || state == ServiceControlState.STOPPED) {
                relayToSurvivors(ControlMessageType.SHUTDOWN_REQUEST, 0);
            }
        } catch (DocaException e) {
            LOG.warn("target shutdown: {}", e.getMessage());
        }
    }

    private void closeWorkers() {
        metrics.sessionEnding();
        for (GgaWorker w : workers) {
            try {
                finalStats.add(w.call(w::snapshot, 5_000_000_000L));
            } catch (DocaException e) {
                LOG.warn("worker {} stats: {}", w.index(), e.getMessage());
            }
            w.close();
        }
        workers.clear();
    }

    /**
     * Snapshot of every worker: the live ones during a session, else the final figures of the last
     * session that ended (a caller reading them after {@code run} returned gets that session's counts).
     */
    public List<WorkerStats> stats() {
        if (workers.isEmpty()) {
            return lastSessionStats;
        }
        List<WorkerStats> s = new ArrayList<>();
        for (GgaWorker w : workers) {
            s.add(w.call(w::snapshot, 5_000_000_000L));
        }
        return s;
    }

    private void printStats(PrintStream out) {
        closeWorkers();
        GgaStatsTable.print(out, cfg.cpus(), finalStats, targets.lostMask(), runNanos);
    }
}
