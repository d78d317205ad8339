package io.jdoca.storage.target;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.storage.common.ControlChannel;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import io.jdoca.storage.common.TargetControlState;
import io.jdoca.storage.common.TcpControlChannel;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
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
public final class TargetRdma {
    private static final Logger LOG = LoggerFactory.getLogger(TargetRdma.class);

    /**
     * DOCA's flags (seed "Command-line Flags") plus {@code --backing-file}, {@code --listen-address}
     * ({@code null}: every address, DOCA's default) and {@code --once}.
     */
    public record Config(String device, List<Integer> cpus, java.net.InetAddress listenAddress, int listenPort,
            Path binaryContent, int blockCount, int blockSize, Path backingFile, long startTimeoutNanos, boolean once) {
        /** DOCA's one-session target on every address (in-process tests and benchmarks). */
        public Config(String device, List<Integer> cpus, int listenPort, Path binaryContent, int blockCount, int blockSize,
                Path backingFile, long startTimeoutNanos) {
            this(device, cpus, null, listenPort, binaryContent, blockCount, blockSize, backingFile, startTimeoutNanos, true);
        }
    }

    private final Config cfg;
    private final AtomicBoolean abort;
    private TargetControlState state = TargetControlState.WAIT_QUERY;
    private final List<TargetWorker> workers = new ArrayList<>();
    private Dev dev;
    private TargetStorage storage;
    private MemoryMap storageMap;
    private MemoryMap remoteMap;
    private int coreCount;
    private int transactionCount;
    private int connectionsMade;
    private volatile int boundPort;
    private volatile int sessionsEnded;
    private final io.jdoca.storage.common.DataPathMetrics metrics = new io.jdoca.storage.common.DataPathMetrics("target-rdma",
            io.jdoca.storage.common.DataPathMetrics.TARGET_WORKER);

    public TargetRdma(Config cfg, AtomicBoolean abort) {
        this.cfg = cfg;
        this.abort = abort;
    }

    public TargetControlState state() {
        return state;
    }

    public int boundPort() {
        return boundPort;
    }

    /** The data path's Prometheus metrics ({@code --metrics-port}); render from any thread. */
    public io.jdoca.storage.common.DataPathMetrics metrics() {
        return metrics;
    }

    /** Sessions ended so far (shutdown or client gone); any thread. */
    public int sessionsEnded() {
        return sessionsEnded;
    }

    /**
     * Runs until an abort (exit 0 when no session was in progress, else 1), or with
     * {@link Config#once()} until the first session ends (0 after shutdown, 1 if the client left).
     */
    public int run(PrintStream out) {
        if (cfg.cpus().isEmpty()) {
            throw new DocaException(DocaError.INVALID_VALUE, "at least one --cpu is required");
        }
        dev = Devices.open(cfg.device());
        storage = TargetStorage.open(cfg.blockSize(), cfg.blockCount(), cfg.binaryContent(), cfg.backingFile());
        storageMap = MemoryMap.create();
        storageMap.setMemrange(storage.segment());
        storageMap.addDev(dev);
        storageMap.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE);
        DocaException.check(storageMap.start(), "storage map start");
        int rc = 1;
        try (TcpControlChannel ch = TcpControlChannel.server(cfg.listenAddress(), cfg.listenPort())) {
            boundPort = ch.localPort();
            // One println, not printf: scripts parse this line, and printf hands the stream its
            // pieces one by one, so a reader could see the line without its port number.
            out.println(cfg.listenAddress() == null
                    ? "target-rdma: control listener on all interfaces (DOCA's default; --listen-address restricts it)"
                    : "target-rdma: control listener on " + ch.localAddress().getHostAddress());
            out.println(String.format(Locale.ROOT, "target-rdma: %d blocks of %d bytes (%s); listening on TCP port %d",
                    storage.blockCount(), storage.blockSize(), storage.description(), boundPort));
            out.flush();
            rc = serve(ch, out);
        } finally {
            closeWorkers();
            if (remoteMap != null) {
                remoteMap.close();
            }
            storageMap.close();
            storage.close();
        }
        return rc;
    }

    private int serve(TcpControlChannel ch, PrintStream out) {
        while (true) {
            if (abort.get()) {
                out.println("target-rdma: aborted by user");
                boolean inSession = state != TargetControlState.WAIT_QUERY;
                endSession(out);
                return inSession ? 1 : 0;
            }
            ControlMessage m = ch.receive(50_000_000L);
            if (m == null) {
                if (!ch.isConnected() && ch.wasDisconnected()) {
                    boolean held = state != TargetControlState.WAIT_QUERY;
                    if (held || cfg.once()) {
                        out.println("target-rdma: the storage service " + ch.peerName() + " disconnected before shutdown"
                                + (held ? " (in state " + state + "); its session is released" : ""));
                        out.flush();
                    } else {
                        LOG.info("client {} left without a session", ch.peerName());
                    }
                    if (held || cfg.once()) {
                        endSession(out);
                    }
                    if (cfg.once()) {
                        return 1;
                    }
                    ch.nextSession();
                }
                continue;
            }
            ControlMessage reply = handle(m);
            try {
                ch.send(reply);
            } catch (DocaException e) {
                LOG.warn("cannot reply {}: {}", reply.type().wireName(), e.getMessage());
            }
            if (state == TargetControlState.SHUT_DOWN) {
                endSession(out);
                if (cfg.once()) {
                    return 0;
                }
                out.println("target-rdma: session ended; waiting for the next storage service");
                out.flush();
            }
        }
    }

    /**
     * Releases everything the session held (data path, workers and their RDMA connections, the
     * imported map), prints its statistics and goes back to WAIT_QUERY.
     */
    private void endSession(PrintStream out) {
        stopDataPaths();
        printStats(out);
        closeWorkers();
        if (remoteMap != null) {
            remoteMap.close();
            remoteMap = null;
        }
        storage.force();
        stats.clear();
        statsCollected = false;
        coreCount = 0;
        transactionCount = 0;
        connectionsMade = 0;
        if (state != TargetControlState.WAIT_QUERY && state.canTransitionTo(TargetControlState.WAIT_QUERY)) {
            state = TargetControlState.WAIT_QUERY;
        }
        sessionsEnded++;
    }

    /** Handles one request according to the strict sequence; always returns the reply to send. */
    ControlMessage handle(ControlMessage m) {
        if (!state.accepts(m.type())) {
            LOG.warn("unexpected {} in state {}", m.type().wireName(), state);
            return m.errorResponse(DocaError.UNEXPECTED, "target-rdma expected " + state.expected().wireName() + " but got "
                    + m.type().wireName());
        }
        try {
            ControlMessage reply = switch (state) {
                case WAIT_QUERY -> new ControlMessage(ControlMessageType.QUERY_STORAGE_RESPONSE, m.messageId(),
                        m.correlationId(), new ControlPayload.StorageInfo(storage.size(), storage.blockSize()));
                case WAIT_INIT -> init(m);
                case WAIT_RDMA_CONNECTIONS -> createConnection(m);
                case WAIT_START -> start(m);
                case RUNNING -> stop(m);
                case STOPPED -> shutdown(m);
                case SHUT_DOWN -> throw new IllegalStateException();
            };
            TargetControlState next = state.next(connectionsMade, coreCount * 2);
            if (state.canTransitionTo(next)) {
                state = next;
            }
            return reply;
        } catch (DocaException e) {
            LOG.warn("{} failed: {}", m.type().wireName(), e.getMessage());
            return m.errorResponse(e.error(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("{} failed", m.type().wireName(), e);
            return m.errorResponse(DocaError.UNEXPECTED, String.valueOf(e));
        }
    }

    private ControlMessage init(ControlMessage m) {
        ControlPayload.InitStorage p = m.asInitStorage();
        if (p.coreCount() <= 0 || p.coreCount() > cfg.cpus().size()) {
            throw new DocaException(DocaError.INVALID_VALUE, "init_storage asks for " + Integer.toUnsignedString(p.coreCount())
                    + " cores but this target has " + cfg.cpus().size() + " (--cpu)");
        }
        if (p.transactionCount() <= 0 || p.transactionCount() > 16384) {
            throw new DocaException(DocaError.INVALID_VALUE, "transaction count " + Integer.toUnsignedString(p.transactionCount())
                    + " outside 1..16384");
        }
        MemoryMap remote = MemoryMap.createFromExport(p.mmapExport(), dev);
        try {
            for (int i = 0; i < p.coreCount(); i++) {
                TargetWorker w = new TargetWorker(i, dev, p.transactionCount(), storageMap, remote, cfg.listenAddress());
                workers.add(w);
                w.pin(cfg.cpus().get(i)); // --cpu: the worker really runs there
            }
        } catch (RuntimeException e) {
            closeWorkers();
            remote.close();
            throw e;
        }
        remoteMap = remote;
        coreCount = p.coreCount();
        transactionCount = p.transactionCount();
        LOG.info("init: {} cores x {} transactions; requester memory {} bytes", coreCount, transactionCount, remote.length());
        return m.emptyResponse();
    }

    private ControlMessage createConnection(ControlMessage m) {
        ControlPayload.RdmaConnection p = m.asRdmaConnection();
        if (p.contextIdx() < 0 || p.contextIdx() >= coreCount) {
            throw new DocaException(DocaError.INVALID_VALUE, "context index " + Integer.toUnsignedString(p.contextIdx())
                    + " outside 0.." + (coreCount - 1));
        }
        byte[] mine = workers.get(p.contextIdx()).createConnection(p.role(), p.connectionDetails());
        connectionsMade++;
        return new ControlMessage(ControlMessageType.CREATE_RDMA_CONNECTION_RESPONSE, m.messageId(), m.correlationId(),
                new ControlPayload.RdmaConnection(p.contextIdx(), p.role(), mine));
    }

    private ControlMessage start(ControlMessage m) {
        long deadline = System.nanoTime() + cfg.startTimeoutNanos();
        for (TargetWorker w : workers) {
            while (!w.isReady()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new DocaException(DocaError.TIME_OUT, "RDMA connections of worker " + w.index() + " not established");
                }
                sleep(2);
            }
        }
        for (TargetWorker w : workers) {
            w.startDataPath();
        }
        metrics.sessionStarted(workers);
        LOG.info("data path started on {} workers", workers.size());
        return m.emptyResponse();
    }

    private ControlMessage stop(ControlMessage m) {
        stopDataPaths();
        return m.emptyResponse();
    }

    private void stopDataPaths() {
        if (state != TargetControlState.RUNNING) {
            return;
        }
        for (TargetWorker w : workers) {
            try {
                w.stopDataPath();
            } catch (DocaException e) {
                LOG.warn("worker {}: {}", w.index(), e.getMessage());
            }
        }
    }

    private ControlMessage shutdown(ControlMessage m) {
        stopDataPaths();
        return m.emptyResponse();
    }

    private boolean statsCollected;
    private final List<long[]> stats = new ArrayList<>();

    private void closeWorkers() {
        metrics.sessionEnding();
        for (TargetWorker w : workers) {
            if (!statsCollected) {
                stats.add(new long[] {w.ops(), w.hits(), w.misses(), w.dataPathAllocatedBytes()});
            }
            w.close();
        }
        statsCollected = statsCollected || !workers.isEmpty();
        workers.clear();
    }

    private void printStats(PrintStream out) {
        if (!statsCollected) {
            for (TargetWorker w : workers) {
                stats.add(new long[] {w.ops(), w.hits(), w.misses(), w.dataPathAllocatedBytes()});
            }
        }
        out.println("+================================================+");
        out.println("| Stats");
        out.println("+================================================+");
        for (int i = 0; i < stats.size(); i++) {
            long[] s = stats.get(i);
            long t = s[1] + s[2];
            out.printf(Locale.ROOT, "| Core: %d%n", cfg.cpus().get(i));
            out.printf(Locale.ROOT, "| Operation count: %d%n", s[0]);
            out.printf(Locale.ROOT, "| PE hit rate: %.2f%% (%d:%d)%n", t == 0 ? 0.0 : 100.0 * s[1] / t, s[1], s[2]);
            out.printf(Locale.ROOT, "| Data path allocation: %d bytes (%.3f B/op)%n", s[3], s[0] == 0 ? 0.0 : (double) s[3] / s[0]);
            out.println("+------------------------------------------------+");
        }
        out.flush();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocaException(DocaError.UNEXPECTED, "interrupted");
        }
    }
}
