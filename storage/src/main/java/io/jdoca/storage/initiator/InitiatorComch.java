package io.jdoca.storage.initiator;

import io.jdoca.comch.ComchIdentity;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.storage.wire.BinaryContent;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.common.ComchControlChannel;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host-side storage initiator over Comch (DOCA's {@code initiator_comch_app}): connects to the
 * service, queries and initializes the storage with its PCI-exported IO region, runs one worker per
 * {@code --cpu} with the chosen execution strategy, stops, prints the statistics and shuts down.
 *
 * <p>One run per instance; the control thread is the caller's.
 */
public final class InitiatorComch {
    private static final Logger LOG = LoggerFactory.getLogger(InitiatorComch.class);

    /**
     * The initiator's configuration: DOCA's flags (reference §4) and jdoca's {@code --expect-service}
     * (a pid or an app name the service on the channel must have; null: any).
     */
    public record Config(String device, List<Integer> cpus, ExecutionStrategy strategy, Path storagePlainContent,
            long runLimitOperationCount, int transactionCount, String commandChannelName, long controlTimeoutNanos,
            long localIoRegionSize, int blocksPerIo, String expectService) {
        /** Any service (in-process tests and benchmarks). */
        public Config(String device, List<Integer> cpus, ExecutionStrategy strategy, Path storagePlainContent,
                long runLimitOperationCount, int transactionCount, String commandChannelName, long controlTimeoutNanos,
                long localIoRegionSize, int blocksPerIo) {
            this(device, cpus, strategy, storagePlainContent, runLimitOperationCount, transactionCount,
                    commandChannelName,
                    controlTimeoutNanos, localIoRegionSize, blocksPerIo, null);
        }
    }

    private final Config cfg;
    private final AtomicBoolean abort;
    private final AtomicInteger nextMessageId = new AtomicInteger();
    private InitiatorStats stats;

    public InitiatorComch(Config cfg, AtomicBoolean abort) {
        this.cfg = cfg;
        this.abort = abort;
    }

    public InitiatorStats stats() {
        return stats;
    }

    private ControlMessage req(ControlMessageType t, int correlationId) {
        return ControlMessage.of(t, nextMessageId.getAndIncrement(), correlationId);
    }

    /** Runs the whole sequence; returns the exit code (0 = success) after printing to {@code out}. */
    public int run(PrintStream out) {
        validateConfig();
        long timeout = cfg.controlTimeoutNanos();
        Dev dev = Devices.open(cfg.device());
        List<InitiatorWorker> workers = new ArrayList<>();
        ComchIdentity self = ComchIdentity.of("initiator-comch", cfg.strategy().wireName() + ", " + cfg.cpus().size()
                + " cores");
        try (ComchControlChannel ch = ComchControlChannel.client(dev, cfg.commandChannelName(), timeout, self);
                Arena arena = Arena.ofShared()) {
            ComchIdentity service = ch.peerIdentity();
            out.println("initiator-comch: connected to " + (service == null
                    ? "a service that did not say who it is" : service)
                    + " on comch channel '" + cfg.commandChannelName() + "'");
            out.flush();
            if (service == null || !service.matches(cfg.expectService())) {
                // Nothing has been sent to it: its storage is untouched.
                throw new DocaException(DocaError.NOT_PERMITTED, "comch channel '" + cfg.commandChannelName()
                        + "' is served by "
                        + (service == null ? "an unknown service" : service.app() + " (pid " + service.pid() + ")")
                        + ", not by the expected service '" + cfg.expectService()
                        + "' (--expect-service); refusing to run"
                        + " (nothing was sent to it)");
            }
            int cid = 0;
            ControlMessage q = ch.request(req(ControlMessageType.QUERY_STORAGE_REQUEST, cid), timeout);
            ControlPayload.StorageInfo info = q.asStorageInfo();
            long blockSize = Integer.toUnsignedLong(info.blockSize());
            long capacity = info.totalSize();
            long ioSize = blockSize * cfg.blocksPerIo();
            LOG.info("storage: {} bytes in blocks of {}; io size {}", capacity, blockSize, ioSize);
            if (blockSize == 0 || capacity < ioSize || ioSize > Integer.MAX_VALUE) {
                throw new DocaException(DocaError.INVALID_VALUE, "storage of " + capacity + " bytes with block size "
                        + blockSize + " cannot serve IOs of " + ioSize + " bytes");
            }
            int cores = cfg.cpus().size();
            long unitsPerWorker = capacity / ioSize / cores;
            if (unitsPerWorker == 0) {
                throw new DocaException(DocaError.INVALID_VALUE, "storage too small for " + cores + " workers");
            }
            long localSize = cfg.localIoRegionSize() == 0 ? capacity : cfg.localIoRegionSize();
            if (localSize < ioSize || (cfg.strategy().validate() && localSize < capacity)) {
                throw new DocaException(DocaError.INVALID_VALUE, "--local-io-region-size " + localSize
                        + " too small (validity tests need the storage capacity " + capacity + ")");
            }
            MemorySegment expected = expectedContent(arena, capacity);

            SharedRegion region = SharedMemory.allocate(localSize);
            try (MemoryMap ioMap = MemoryMap.create()) {
                ioMap.setMemrange(region.segment());
                ioMap.addDev(dev);
                ioMap.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.PCI_READ_WRITE | AccessFlags.RDMA_READ
                        | AccessFlags.RDMA_WRITE);
                DocaException.check(ioMap.start(), "io memory map start");
                byte[] blob = ioMap.exportPci(dev);
                ch.request(new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, nextMessageId.getAndIncrement(),
                        cid,
                        new ControlPayload.InitStorage(cfg.transactionCount(), cores, blob)), timeout);
                LOG.info("storage initialized: {} transactions x {} cores", cfg.transactionCount(), cores);

                long opsTarget = cfg.strategy().isThroughput() ? cfg.runLimitOperationCount()
                        : cfg.runLimitOperationCount() > 0 ? Math.min(cfg.runLimitOperationCount(), unitsPerWorker)
                                : unitsPerWorker;
                int tx = (int) Math.max(1, Math.min(Math.min(cfg.transactionCount(), opsTarget), unitsPerWorker));
                for (int w = 0; w < cores; w++) {
                    workers.add(new InitiatorWorker(w, cfg.cpus().get(w), cfg.strategy(), dev, ch.connection(),
                            region.segment(), expected,
                            ioSize, w * unitsPerWorker * ioSize, unitsPerWorker, opsTarget, tx));
                }
                for (InitiatorWorker w : workers) {
                    w.prepare(timeout);
                }
                if (!ch.progressUntil(() -> ch.remoteConsumerIds().size() >= cores || abort.get(), timeout)) {
                    throw new DocaException(DocaError.TIME_OUT, "the service announced " + ch.remoteConsumerIds().size()
                            + " of " + cores + " consumers" + AppSupport.raisedBy(AppSupport.CONTROL_TIMEOUT_FLAG,
                            timeout));
                }
                List<Integer> remote = ch.remoteConsumerIds();
                ch.request(req(ControlMessageType.START_STORAGE_REQUEST, cid), timeout);
                for (int w = 0; w < cores; w++) {
                    workers.get(w).run(remote.get(w));
                }
                boolean failedEarly = waitForWorkers(ch, workers);
                List<String> failures = new ArrayList<>();
                for (InitiatorWorker w : workers) {
                    if (w.failure() != null) {
                        failures.add(w.failure());
                    }
                }
                try {
                    ch.request(req(ControlMessageType.STOP_STORAGE_REQUEST, cid), timeout);
                } catch (DocaException e) {
                    failures.add("stop_storage: " + e.getMessage());
                }
                stats = collect(workers, ioSize);
                stats.print(out);
                try {
                    ch.request(req(ControlMessageType.SHUTDOWN_REQUEST, cid), timeout);
                } catch (DocaException e) {
                    failures.add("shutdown: " + e.getMessage());
                }
                for (InitiatorWorker w : workers) {
                    w.shutdown(5_000);
                }
                ch.progressUntil(() -> ch.remoteConsumerIds().isEmpty() || !ch.isConnected(), timeout);
                if (abort.get()) {
                    failures.add("aborted by user");
                }
                if (!failures.isEmpty() || failedEarly) {
                    for (String f : failures) {
                        out.println(f);
                    }
                    out.println("Test failed!!");
                    return 1;
                }
                if (cfg.strategy().validate()) {
                    out.println("Test passed: " + stats.operations() + " transactions validated");
                }
                return 0;
            } finally {
                region.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocaException(DocaError.UNEXPECTED, "interrupted");
        } finally {
            for (InitiatorWorker w : workers) {
                try {
                    w.shutdown(2_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Waits for every worker; aborts them on Ctrl-C or a lost service. True if the run was cut short. */
    private boolean waitForWorkers(ComchControlChannel ch, List<InitiatorWorker> workers) throws InterruptedException {
        for (InitiatorWorker w : workers) {
            while (!w.awaitFinished(20_000_000L)) {
                ch.poll();
                if (abort.get() || !ch.isConnected()) {
                    LOG.warn(abort.get() ? "aborting the run" : "service connection lost; aborting the run");
                    workers.forEach(InitiatorWorker::abort);
                    for (InitiatorWorker x : workers) {
                        x.awaitFinished(5_000_000_000L);
                    }
                    return true;
                }
            }
        }
        return false;
    }

    private static InitiatorStats collect(List<InitiatorWorker> workers, long ioSize) {
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        long ops = 0;
        long hits = 0;
        long misses = 0;
        long alloc = 0;
        Histogram h = new Histogram(java.util.concurrent.TimeUnit.SECONDS.toNanos(60), 3);
        for (InitiatorWorker w : workers) {
            if (w.startNanos() != 0) {
                start = Math.min(start, w.startNanos());
                end = Math.max(end, w.endNanos());
            }
            ops += w.ops();
            hits += w.hits();
            misses += w.misses();
            alloc += w.dataPathAllocatedBytes();
            h.add(w.latency());
        }
        double secs = start == Long.MAX_VALUE ? 0 : (end - start) / 1e9;
        return InitiatorStats.of(secs, ops, ioSize, hits, misses, h, alloc);
    }

    private void validateConfig() {
        if (cfg.cpus().isEmpty()) {
            throw new DocaException(DocaError.INVALID_VALUE, "at least one --cpu is required");
        }
        if (cfg.transactionCount() <= 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "--transaction-count must be > 0");
        }
        if (cfg.blocksPerIo() <= 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "--blocks-per-io must be > 0");
        }
        if (cfg.strategy().isThroughput() && cfg.runLimitOperationCount() <= 0) {
            throw new DocaException(DocaError.INVALID_VALUE, cfg.strategy().wireName()
                    + " needs --run-limit-operation-count > 0");
        }
        if (cfg.strategy() == ExecutionStrategy.READ_ONLY_DATA_VALIDITY_TEST && cfg.storagePlainContent() == null) {
            throw new DocaException(DocaError.INVALID_VALUE,
                    "read_only_data_validity_test needs --storage-plain-content");
        }
        if (cfg.storagePlainContent() != null && !Files.isReadable(cfg.storagePlainContent())) {
            throw new DocaException(DocaError.NOT_FOUND, "cannot read " + cfg.storagePlainContent());
        }
    }

    /** The bytes the storage should hold: the plain file, or {@code i & 0xFF}; null for throughput modes. */
    private MemorySegment expectedContent(Arena arena, long capacity) {
        if (!cfg.strategy().validate()) {
            return null;
        }
        MemorySegment e = arena.allocate(capacity, 64);
        Path f = cfg.storagePlainContent();
        if (f != null) {
            long size;
            try {
                size = Files.size(f);
            } catch (java.io.IOException ex) {
                throw new DocaException(DocaError.IO_FAILED, "cannot read " + f + ": " + ex.getMessage());
            }
            if (size != capacity) {
                throw new DocaException(DocaError.INVALID_VALUE, "--storage-plain-content " + f + " holds " + size
                        + " bytes but the storage capacity is " + capacity);
            }
            BinaryContent.readContent(f, 0, e);
        } else {
            for (long i = 0; i < capacity; i++) {
                e.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
        }
        return e;
    }
}
