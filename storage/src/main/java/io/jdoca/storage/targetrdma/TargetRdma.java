package io.jdoca.storage.targetrdma;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.rdma.RdmaPeerAddresses;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.ControlService;
import io.jdoca.storage.common.DataPathMetrics;
import io.jdoca.storage.common.SessionWorkers;
import io.jdoca.storage.common.TargetControlState;
import io.jdoca.storage.common.TcpControlChannel;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RDMA storage target (DOCA's {@code target_rdma_app}, seed "DOCA Storage Target RDMA"): exposes
 * its blocks to one storage service at a time over a TCP control channel, in the strict order of
 * {@link TargetControlState}, with one {@link TargetWorker} per requested core.
 *
 * <p>A <em>session</em> is one client connection: it ends with the client's shutdown_request or when
 * the client leaves (cleanly or not). Either way the session's workers, RDMA connections and
 * imported memory map are released, its statistics printed, and the next client is served; a second
 * concurrent client gets {@code error_response(IN_USE)} (see {@link TcpControlChannel}). Only an
 * abort (Ctrl-C / SIGTERM) ends the process, or, with {@link Config#once()} (DOCA's behaviour,
 * {@code --once}), the end of the first session: exit 0 after shutdown, 1 if the client left before.
 *
 * <p>{@link #run} is the whole life of the app on the calling thread (the control thread); the
 * workers own their threads. The abort flag may be set from any thread (Ctrl-C).
 */
public final class TargetRdma extends ControlService<TargetControlState> {
    private static final Logger LOG = LoggerFactory.getLogger(TargetRdma.class);

    /**
     * DOCA's flags (seed "Command-line Flags") plus jdoca's: {@code --backing-file} and its
     * {@code --durability}, {@code --listen-address} ({@code null}: 127.0.0.1), {@code --allow-peer}
     * (addresses a peer's RDMA blob may name besides the control client's own),
     * {@code --handshake-timeout-ms}, {@code --once} and {@code -g/--gid-index} ({@code gidIndex}: the
     * RDMA contexts' GID index, -1 for the device's default; checked here and against the device at start).
     */
    public record Config(String device, List<Integer> cpus, InetAddress listenAddress, int listenPort,
            Path binaryContent, int blockCount, int blockSize, Path backingFile, Durability durability,
            List<InetAddress> allowedPeers, long handshakeNanos, long startTimeoutNanos, boolean once, int gidIndex) {
        public Config {
            durability = durability == null ? Durability.SESSION : durability;
            allowedPeers = allowedPeers == null ? List.of() : List.copyOf(allowedPeers);
            AppSupport.checkGidIndex(gidIndex);
        }

        /** As the canonical constructor, with the device's default GID index ({@code gidIndex} -1). */
        public Config(String device, List<Integer> cpus, InetAddress listenAddress, int listenPort,
                Path binaryContent, int blockCount, int blockSize, Path backingFile, Durability durability,
                List<InetAddress> allowedPeers, long handshakeNanos, long startTimeoutNanos, boolean once) {
            this(device, cpus, listenAddress, listenPort, binaryContent, blockCount, blockSize, backingFile,
                    durability, allowedPeers, handshakeNanos, startTimeoutNanos, once, -1);
        }

        /** DOCA's one-session target on 127.0.0.1 (in-process tests and benchmarks). */
        public Config(String device, List<Integer> cpus, int listenPort, Path binaryContent, int blockCount,
                int blockSize,
                Path backingFile, long startTimeoutNanos) {
            this(device, cpus, null, listenPort, binaryContent, blockCount, blockSize, backingFile, Durability.SESSION,
                    List.of(), TcpControlChannel.DEFAULT_HANDSHAKE_MILLIS * 1_000_000L, startTimeoutNanos, true);
        }

        /** This configuration with {@code durability} (tests, benchmarks). */
        public Config withDurability(Durability d) {
            return new Config(device, cpus, listenAddress, listenPort, binaryContent, blockCount, blockSize,
                    backingFile, d,
                    allowedPeers, handshakeNanos, startTimeoutNanos, once, gidIndex);
        }
    }

    private final Config cfg;
    private final SessionWorkers<TargetWorker> workers;
    private Dev dev;
    private TargetStorage storage;
    private MemoryMap storageMap;
    private MemoryMap remoteMap;
    private TcpControlChannel channel;
    private int coreCount;
    private int connectionsMade;
    private volatile int boundPort;
    private volatile int sessionsEnded;

    public TargetRdma(Config cfg, AtomicBoolean abort) {
        super("target-rdma", TargetControlState.WAIT_QUERY, cfg.cpus(), cfg.once(), abort,
                new DataPathMetrics("target-rdma", DataPathMetrics.TARGET_WORKER));
        this.cfg = cfg;
        this.workers = new SessionWorkers<>(metrics);
    }

    public int boundPort() {
        return boundPort;
    }

    /** Sessions ended so far (shutdown or client gone); any thread. */
    public int sessionsEnded() {
        return sessionsEnded;
    }

    /**
     * Runs until an abort (exit 0 when no session was in progress, else 1), or with
     * {@link Config#once()} until the first session ends (0 after shutdown, 1 if the client left).
     */
    @Override
    public int run(PrintStream out) {
        dev = Devices.open(cfg.device());
        AppSupport.checkGidIndex(dev, cfg.gidIndex());
        storage = TargetStorage.open(cfg.blockSize(), cfg.blockCount(), cfg.binaryContent(), cfg.backingFile(),
                cfg.durability());
        storageMap = MemoryMap.create();
        storageMap.setMemrange(storage.segment());
        storageMap.addDev(dev);
        storageMap.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE);
        DocaException.check(storageMap.start(), "storage map start");
        try (TcpControlChannel ch = TcpControlChannel.server(cfg.listenAddress(), cfg.listenPort(),
                cfg.handshakeNanos())) {
            channel = ch;
            boundPort = ch.localPort();
            // One println, not printf: scripts parse this line, and printf hands the stream its
            // pieces one by one, so a reader could see the line without its port number.
            out.println("target-rdma: control listener on " + AppSupport.describeBind(ch.localAddress())
                    + (ch.localAddress().isLoopbackAddress()
                    ? " (this host only; --listen-address serves a network)" : ""));
            out.println("target-rdma: " + AppSupport.rdmaLine(dev, cfg.gidIndex()));
            out.println(String.format(Locale.ROOT, "target-rdma: %d blocks of %d bytes (%s); listening on TCP port %d",
                    storage.blockCount(), storage.blockSize(), storage.description(), boundPort));
            out.flush();
            return serve(ch, out);
        } finally {
            workers.closeAll();
            if (remoteMap != null) {
                remoteMap.close();
            }
            storageMap.close();
            storage.close();
        }
    }

    /** Where the control and RDMA listeners bind: {@code --listen-address}, else 127.0.0.1. */
    private InetAddress listenAddress() {
        return cfg.listenAddress() == null ? AppSupport.defaultListenAddress() : cfg.listenAddress();
    }

    @Override
    protected String clientName() {
        return "the storage service " + channel.peerName();
    }

    @Override
    protected String nextClientKind() {
        return "storage service";
    }

    /**
     * Releases everything the session held (data path, workers and their RDMA connections, the
     * imported map), prints its statistics and goes back to WAIT_QUERY.
     */
    @Override
    protected void endSession(PrintStream out, boolean printStats) {
        stopDataPaths();
        workers.endSession(out, cpus, printStats);
        if (remoteMap != null) {
            remoteMap.close();
            remoteMap = null;
        }
        storage.force();
        coreCount = 0;
        connectionsMade = 0;
        backToWaitQuery();
        sessionsEnded++;
    }

    @Override
    protected ControlMessage step(ControlMessage m) {
        return switch (state) {
            case WAIT_QUERY -> new ControlMessage(ControlMessageType.QUERY_STORAGE_RESPONSE, m.messageId(),
                    m.correlationId(), new ControlPayload.StorageInfo(storage.size(), storage.blockSize()));
            case WAIT_INIT -> init(m);
            case WAIT_RDMA_CONNECTIONS -> createConnection(m);
            case WAIT_START -> start(m);
            case RUNNING, STOPPED -> {
                stopDataPaths(); // stop; shutdown after a stop finds nothing running
                yield m.emptyResponse();
            }
            case SHUT_DOWN -> throw new IllegalStateException("shut down");
        };
    }

    @Override
    protected TargetControlState nextState() {
        return state.next(connectionsMade, coreCount * 2);
    }

    private ControlMessage init(ControlMessage m) {
        ControlPayload.InitStorage p = checkInit(m, 16384);
        MemoryMap remote = MemoryMap.createFromExport(p.mmapExport(), dev);
        try {
            for (int i = 0; i < p.coreCount(); i++) {
                TargetWorker w = new TargetWorker(i, dev, p.transactionCount(), storageMap, remote, listenAddress(),
                        cfg.gidIndex(), storage.durabilityPerWrite());
                workers.add(w);
                w.pin(cpus.get(i)); // --cpu: the worker really runs there
            }
        } catch (RuntimeException e) {
            workers.closeAll();
            workers.clearStats();
            remote.close();
            throw e;
        }
        remoteMap = remote;
        coreCount = p.coreCount();
        LOG.info("init: {} cores x {} transactions; requester memory {} bytes", coreCount, p.transactionCount(),
                remote.length());
        return m.emptyResponse();
    }

    private ControlMessage createConnection(ControlMessage m) {
        ControlPayload.RdmaConnection p = m.asRdmaConnection();
        if (p.contextIdx() < 0 || p.contextIdx() >= coreCount) {
            throw new DocaException(DocaError.INVALID_VALUE, "context index " + Integer.toUnsignedString(p.contextIdx())
                    + " outside 0.." + (coreCount - 1));
        }
        // Only the control client's own address (or one the operator allowed) may be dialled (issue 29 item 3).
        List<InetAddress> allowed = new java.util.ArrayList<>(cfg.allowedPeers());
        allowed.addFirst(channel.peerAddress());
        String refused = RdmaPeerAddresses.refusal(p.connectionDetails(), allowed);
        if (refused != null) {
            LOG.warn("create_rdma_connection from {} refused: {}", channel.peerName(), refused);
            throw new DocaException(DocaError.NOT_PERMITTED, "target-rdma connects only to its control client's address"
                    + " or to --allow-peer addresses: " + refused);
        }
        byte[] mine = workers.get(p.contextIdx()).createConnection(p.role(), p.connectionDetails());
        connectionsMade++;
        return new ControlMessage(ControlMessageType.CREATE_RDMA_CONNECTION_RESPONSE, m.messageId(), m.correlationId(),
                new ControlPayload.RdmaConnection(p.contextIdx(), p.role(), mine));
    }

    private ControlMessage start(ControlMessage m) {
        for (TargetWorker w : workers) {
            awaitReady(w::isReady, cfg.startTimeoutNanos(), "RDMA connections of worker " + w.index()
                    + " not established"
                    + AppSupport.raisedBy(AppSupport.COMMAND_TIMEOUT_FLAG, cfg.startTimeoutNanos()));
        }
        for (TargetWorker w : workers) {
            w.startDataPath();
        }
        workers.dataPathStarted();
        LOG.info("data path started on {} workers", workers.size());
        return m.emptyResponse();
    }

    private void stopDataPaths() {
        if (state == TargetControlState.RUNNING) {
            workers.stopDataPaths();
        }
    }
}
