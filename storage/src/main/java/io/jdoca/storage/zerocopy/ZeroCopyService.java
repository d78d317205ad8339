package io.jdoca.storage.zerocopy;

import io.jdoca.comch.ComchIdentity;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.DevRep;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.rdma.RdmaPeerAddresses;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.ComchControlChannel;
import io.jdoca.storage.common.ControlService;
import io.jdoca.storage.common.DataPathMetrics;
import io.jdoca.storage.common.SessionWorkers;
import io.jdoca.storage.common.ServiceControlState;
import io.jdoca.storage.common.TcpControlChannel;
import io.jdoca.storage.wire.ConnectionRole;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The zero-copy storage service (DOCA's {@code comch_to_rdma_zero_copy}, reference §6): a Comch
 * server for one initiator and a TCP client of one target. It forwards the control sequence with
 * its own message ids and the initiator's correlation ids (reference §1), re-exports the initiator's
 * PCI-exported memory for RDMA so the target moves data straight to and from host memory, and relays
 * IO messages through {@link ZeroCopyWorker}s without copying them. Runs on the calling thread.
 *
 * <p>A session is one initiator (one Comch client): it ends with its shutdown_request or when it
 * leaves. Either way the relay releases what the session held (workers, RDMA connections, the
 * imported host map), ends the target's session too (stop and shutdown relayed if needed, then the
 * TCP control connection closed), prints the session's statistics and waits for the next initiator;
 * it reconnects to the target when that one queries. A second concurrent initiator is refused by
 * the Comch server. Only an abort ends the process, or with {@link Config#once()} (DOCA's behaviour)
 * the end of the first session.
 */
public final class ZeroCopyService extends ControlService<ServiceControlState> {
    private static final Logger LOG = LoggerFactory.getLogger(ZeroCopyService.class);

    /**
     * DOCA's flags (reference §6) and jdoca's: {@code --once}, {@code --listen-address} (its RDMA
     * listeners; null: 127.0.0.1) and {@code --allow-peer} (addresses the target's RDMA blobs may
     * name besides the target's own), {@code -g/--gid-index} ({@code gidIndex}: the RDMA contexts' GID
     * index, -1 for the device's default; checked here and against the device at start).
     */
    public record Config(String device, String representor, List<Integer> cpus, String storageServer,
            String commandChannelName, long controlTimeoutNanos, boolean once, InetAddress listenAddress,
            List<InetAddress> allowedPeers, int gidIndex) {
        public Config {
            allowedPeers = allowedPeers == null ? List.of() : List.copyOf(allowedPeers);
            AppSupport.checkGidIndex(gidIndex);
        }

        /** As the canonical constructor, with the device's default GID index ({@code gidIndex} -1). */
        public Config(String device, String representor, List<Integer> cpus, String storageServer,
                String commandChannelName, long controlTimeoutNanos, boolean once, InetAddress listenAddress,
                List<InetAddress> allowedPeers) {
            this(device, representor, cpus, storageServer, commandChannelName, controlTimeoutNanos, once,
                    listenAddress, allowedPeers, -1);
        }

        /** DOCA's one-session relay (in-process tests and benchmarks). */
        public Config(String device, String representor, List<Integer> cpus, String storageServer,
                String commandChannelName, long controlTimeoutNanos) {
            this(device, representor, cpus, storageServer, commandChannelName, controlTimeoutNanos, true, null,
                    List.of());
        }
    }

    private final Config cfg;
    private final SessionWorkers<ZeroCopyWorker> workers;
    /** The RDMA device ({@code -d}): the workers' RDMA contexts and the host map's RDMA re-export. */
    private Dev dev;
    /** Comch ({@code dev} itself, or the software device when {@code -d} names an RDMA device). */
    private Dev comchDev;
    private MemoryMap hostMap;
    private TcpControlChannel target;
    private InetSocketAddress targetAddress;
    private ComchControlChannel comch;
    /** The target's answer to the query sent when the connection was made, not yet given to an initiator. */
    private ControlPayload.StorageInfo targetInfo;
    private int nextMessageId;

    public ZeroCopyService(Config cfg, AtomicBoolean abort) {
        super("zero-copy", ServiceControlState.WAIT_QUERY, cfg.cpus(), cfg.once(), abort,
                new DataPathMetrics("zero-copy", DataPathMetrics.DATA_PATH_WORKER));
        this.cfg = cfg;
        this.workers = new SessionWorkers<>(metrics);
    }

    @Override
    public int run(PrintStream out) {
        InetSocketAddress addr = AppSupport.parseAddress(cfg.storageServer());
        dev = Devices.open(cfg.device());
        AppSupport.checkGidIndex(dev, cfg.gidIndex());
        // Comch stays on shared memory (the software device owning -r); only the RDMA moves to a verbs device.
        comchDev = AppSupport.localDevice(dev, cfg.representor());
        DevRep rep = cfg.representor() == null ? null : Devices.findRepresentor(cfg.representor()).open();
        long timeout = cfg.controlTimeoutNanos();
        targetAddress = addr;
        try {
            // The channel is claimed first: a second relay on a taken name stops here, naming the holder.
            comch = ComchControlChannel.server(comchDev, rep, cfg.commandChannelName(),
                    ComchIdentity.of("zero-copy", "storage " + cfg.storageServer() + " (connecting)"));
            target = TcpControlChannel.client(addr, Math.max(timeout, 10_000_000_000L));
            target.setTimeoutFlag(AppSupport.CONTROL_TIMEOUT_FLAG);
            // The first request goes at once (the target closes a silent connection at its handshake
            // deadline); its answer is the initiator's first query's.
            targetInfo = target.request(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, id(), 0), timeout)
                    .asStorageInfo();
            comch.setIdentity(ComchIdentity.of("zero-copy", String.format(Locale.ROOT,
                    "storage %s, %d blocks of %d bytes",
                    cfg.storageServer(), targetInfo.totalSize() / Math.max(1, targetInfo.blockSize()),
                    targetInfo.blockSize())));
            out.println("zero-copy: " + AppSupport.rdmaLine(dev, cfg.gidIndex()) + "; Comch on "
                    + comchDev.devInfo().name());
            out.println(String.format(Locale.ROOT, "zero-copy: connected to storage %s (%d blocks of %d bytes); serving"
                    + " comch channel '%s'", cfg.storageServer(), targetInfo.totalSize() / Math.max(1,
                    targetInfo.blockSize()),
                    targetInfo.blockSize(), cfg.commandChannelName()));
            out.flush();
            return serve(comch, out);
        } finally {
            workers.closeAll();
            if (hostMap != null) {
                hostMap.close();
            }
            if (comch != null) {
                comch.close();
            }
            if (target != null) {
                target.close();
            }
        }
    }

    /** A target that went away is reconnected at the next session's query (with once, the service ends). */
    @Override
    protected int afterPoll(ControlMessage m, PrintStream out) {
        if (m == null && target != null && target.wasDisconnected() && !target.isConnected()) {
            out.println("zero-copy: the storage target disconnected");
            out.flush();
            if (once) {
                workers.closeAll();
                workers.printStats(out, cpus);
                return 1;
            }
            target.close();
            target = null;
        }
        return CONTINUE;
    }

    /**
     * Ends the current session: the target's session is ended too (best effort), the workers and
     * the imported map are released, the statistics printed (when {@code printStats}) and the
     * target control connection closed (the relay reconnects at the next query).
     */
    @Override
    protected void endSession(PrintStream out, boolean printStats) {
        if (state != ServiceControlState.SHUT_DOWN) {
            bestEffortTargetShutdown();
        }
        workers.endSession(out, cpus, printStats);
        if (hostMap != null) {
            hostMap.close();
            hostMap = null;
        }
        if (!once && target != null) {
            target.close();
            target = null;
        }
        backToWaitQuery();
    }

    @Override
    protected ControlMessage step(ControlMessage m) {
        return switch (state) {
            case WAIT_QUERY -> {
                ControlPayload.StorageInfo info = targetInfo;
                targetInfo = null; // answered once: a later session queries its new target connection
                if (info == null || target == null) {
                    info = forward(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, id(), m.correlationId()))
                            .asStorageInfo();
                }
                yield new ControlMessage(ControlMessageType.QUERY_STORAGE_RESPONSE, m.messageId(), m.correlationId(),
                        info);
            }
            case WAIT_INIT -> init(m);
            case WAIT_START -> start(m);
            case RUNNING -> {
                for (ZeroCopyWorker w : workers) {
                    w.stopDataPath();
                }
                forward(ControlMessage.of(ControlMessageType.STOP_STORAGE_REQUEST, id(), m.correlationId()));
                yield m.emptyResponse();
            }
            case STOPPED -> {
                forward(ControlMessage.of(ControlMessageType.SHUTDOWN_REQUEST, id(), m.correlationId()));
                workers.closeAll();
                yield m.emptyResponse();
            }
            case SHUT_DOWN -> throw new IllegalStateException("shut down");
        };
    }

    @Override
    protected ServiceControlState nextState() {
        return state.next();
    }

    private int id() {
        return nextMessageId++;
    }

    private ControlMessage forward(ControlMessage req) {
        if (target == null) {
            if (req.type() != ControlMessageType.QUERY_STORAGE_REQUEST) {
                throw new DocaException(DocaError.NOT_CONNECTED, "the storage target " + cfg.storageServer()
                        + " disconnected during this session");
            }
            // A new session (or the target came back): connect again, within the control timeout.
            target = TcpControlChannel.client(targetAddress, cfg.controlTimeoutNanos());
            target.setTimeoutFlag(AppSupport.CONTROL_TIMEOUT_FLAG);
        }
        return target.request(req, cfg.controlTimeoutNanos());
    }

    private ControlMessage init(ControlMessage m) {
        ControlPayload.InitStorage p = checkInit(m, 8192);
        int cores = p.coreCount();
        // Import the host's IO memory (PCI export) and re-export it for RDMA: the target reaches host memory directly.
        // On a verbs device the re-export registers this process's mapping under the host's addresses (iova).
        MemoryMap imported = MemoryMap.createFromExport(p.mmapExport(), dev);
        try {
            byte[] rdmaBlob = imported.exportRdma(dev);
            forward(new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, id(), m.correlationId(),
                    new ControlPayload.InitStorage(p.transactionCount() * 2, cores, rdmaBlob)));
            for (int i = 0; i < cores; i++) {
                ZeroCopyWorker zw = new ZeroCopyWorker(i, dev, p.transactionCount(), comch.connection(), rdmaBind(),
                        cfg.gidIndex());
                workers.add(zw);
                zw.pin(cpus.get(i)); // --cpu: the worker really runs there
            }
            for (ZeroCopyWorker w : workers) {
                for (ConnectionRole role : ConnectionRole.values()) {
                    byte[] mine = w.export(role);
                    ControlMessage r = forward(new ControlMessage(ControlMessageType.CREATE_RDMA_CONNECTION_REQUEST,
                            id(),
                            m.correlationId(), new ControlPayload.RdmaConnection(w.index(), role, mine)));
                    byte[] blob = r.asRdmaConnection().connectionDetails();
                    checkPeerBlob(blob);
                    w.connect(role, blob);
                }
            }
        } catch (RuntimeException e) {
            workers.closeAll();
            workers.clearStats();
            imported.close();
            throw e;
        }
        hostMap = imported;
        LOG.info("init: {} cores x {} transactions relayed to {}", cores, p.transactionCount(), cfg.storageServer());
        return m.emptyResponse();
    }

    /** Where the RDMA contexts' TCP listeners bind: {@code --listen-address}, else 127.0.0.1. */
    private InetAddress rdmaBind() {
        return cfg.listenAddress() == null ? AppSupport.defaultListenAddress() : cfg.listenAddress();
    }

    /**
     * The target's blob may name only the target's own address (the {@code --storage-server} this relay
     * connected to) or an {@code --allow-peer} one (issue 29 item 3); NOT_PERMITTED naming both otherwise.
     */
    private void checkPeerBlob(byte[] blob) {
        List<InetAddress> allowed = new java.util.ArrayList<>(cfg.allowedPeers());
        allowed.addFirst(target.peerAddress());
        String refused = RdmaPeerAddresses.refusal(blob, allowed);
        if (refused != null) {
            throw new DocaException(DocaError.NOT_PERMITTED, "zero-copy connects only to its target's address or to"
                    + " --allow-peer addresses: " + refused);
        }
    }

    private ControlMessage start(ControlMessage m) {
        int cores = workers.size();
        if (!comch.progressUntil(() -> comch.remoteConsumerIds().size() >= cores, cfg.controlTimeoutNanos())) {
            throw new DocaException(DocaError.TIME_OUT, "the initiator announced " + comch.remoteConsumerIds().size()
                    + " of "
                    + cores + " consumers" + AppSupport.raisedBy(AppSupport.CONTROL_TIMEOUT_FLAG,
                    cfg.controlTimeoutNanos()));
        }
        forward(ControlMessage.of(ControlMessageType.START_STORAGE_REQUEST, id(), m.correlationId()));
        for (ZeroCopyWorker w : workers) {
            awaitReady(w::isReady, cfg.controlTimeoutNanos(), "RDMA connections of worker " + w.index()
                    + " not established"
                    + AppSupport.raisedBy(AppSupport.CONTROL_TIMEOUT_FLAG, cfg.controlTimeoutNanos()));
        }
        List<Integer> remote = comch.remoteConsumerIds();
        for (int i = 0; i < cores; i++) {
            workers.get(i).startDataPath(remote.get(i));
        }
        workers.dataPathStarted();
        return m.emptyResponse();
    }

    private void bestEffortTargetShutdown() {
        if (target == null || !target.isConnected()) {
            return;
        }
        if (state == ServiceControlState.RUNNING) {
            workers.stopDataPaths();
        }
        try {
            if (state == ServiceControlState.RUNNING) {
                forward(ControlMessage.of(ControlMessageType.STOP_STORAGE_REQUEST, id(), 0));
            }
            if (state == ServiceControlState.RUNNING || state == ServiceControlState.STOPPED) {
                forward(ControlMessage.of(ControlMessageType.SHUTDOWN_REQUEST, id(), 0));
            }
        } catch (DocaException e) {
            LOG.warn("target shutdown: {}", e.getMessage());
        }
    }
}
