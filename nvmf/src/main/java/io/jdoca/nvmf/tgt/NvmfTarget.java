package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.MemoryBudget;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.StaSubsystem;
import io.jdoca.sta.StaTaskRmNs;
import io.jdoca.sta.backend.FileBackend;
import io.jdoca.sta.backend.MemoryBackend;
import io.jdoca.sta.backend.NullBackend;
import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaStats;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NVMe-oF/TCP target built on the STA public API: brings up the main context and the IO
 * contexts in the seed's order, accepts connections on its listeners and hands them to the IO
 * contexts, and keeps the controller registry (Connect, keep-alive, asynchronous events,
 * discovery). Management methods (subsystems, namespaces, hosts, listeners, stats) back the
 * JSON-RPC server. Its listeners are {@link NvmfListeners}, its bdevs {@link NvmfBdevs}, its
 * controllers {@link NvmfControllers}; the controllers' admin commands are {@link AdminHandler}'s.
 *
 * <p><b>Threads.</b> One agent per PE, each on its own {@code AgentRunner}: {@link NvmfMain}
 * ({@code sta-main}: the main context, commands for it, the keep-alive deadline) and one
 * {@link NvmfEngine} per IO context ({@code sta-io-<i>}, the data path). Control path besides: one
 * blocking acceptor thread per TCP listener ({@code sta-listen-<port>}) and the rdma_cm event
 * thread ({@code sta-rdma-cm}). Management methods may be called from any thread.
 */
public final class NvmfTarget implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfTarget.class);
    public static final int MAX_IO_QUEUES = 64;

    private final TargetConfig config;
    private final Map<String, NvmfSubsystem> subsystems = new ConcurrentHashMap<>();
    private final NvmfControllers controllers = new NvmfControllers();
    private final NvmfListeners listeners = new NvmfListeners(this);
    private final List<NvmfEngine> engines = new ArrayList<>();
    private final AdminHandler handler = new AdminHandler(this);
    private final AtomicInteger rr = new AtomicInteger();
    private volatile long discoveryGen = 1;
    /** Back-end files this start created (deleted again if the start fails). */
    private final List<Path> createdFiles = new CopyOnWriteArrayList<>();
    /** SPDK-style named block devices (guarded by this). */
    private final NvmfBdevs bdevs = new NvmfBdevs(this);
    /** nvmf_create_transport options by trtype (guarded by this); TCP appears implicitly with a listener. */
    private final Map<String, Map<String, Object>> transports = new LinkedHashMap<>();
    private volatile boolean running;
    private volatile boolean started;
    private Dev dev;
    private Sta sta;
    private ProgressEngine mainPe;
    private NvmfMain main;

    /** CPUs the IO engine threads pin themselves to (engine i on cpus[i % n]); empty = not pinned. */
    private volatile List<Integer> cpus = List.of();

    public NvmfTarget(TargetConfig config) {
        this.config = config;
    }

    /** SPDK's {@code -m} core mask: pins IO engine i to {@code cpus[i % n]}. Call before {@link #start()}. */
    public void setCpus(List<Integer> cpus) {
        this.cpus = List.copyOf(cpus);
    }

    /** The CPUs of {@link #setCpus}, read by the engine threads when they start. */
    List<Integer> cpus() {
        return cpus;
    }

    /** False once {@link #close} began: the engine threads then stop their IO contexts. */
    boolean running() {
        return running;
    }

    // ------------------------------------------------------------------ life cycle

    /** Brings everything up (seed order: main context, IO contexts, subsystems, listeners). Control path. */
    public void start() throws IOException {
        dev = Devices.open("sw0");
        sta = Sta.create(dev);
        try {
            startContexts();
        } catch (IOException | RuntimeException e) {
            if (!running) {
                sta.destroy(); // nothing runs yet: the process's one main context is free again
            }
            throw e;
        }
    }

    private void startContexts() throws IOException {
        NvmfNetworkDevices.addTo(sta, dev, config);
        check(sta.setMaxStaIo(Math.max(1, config.ioThreads())), "set max IO contexts");
        check(sta.setMaxIoSize(config.maxIoSize()), "set max IO size");
        check(sta.taskRmNsSetConf((t, ud, cud) -> finishRmNs(t, true), (t, ud, cud) -> finishRmNs(t, false), 64), "rm_ns conf");
        check(sta.taskDestroyBeQueueSetConf((t, ud, cud) -> t.free(), (t, ud, cud) -> t.free(), 64), "destroy queue conf");
        sta.eventBackendTimeoutRegisterCb((q, ns, op, el) ->
                LOG.warn("back-end timeout on {} (ns {}, opcode {}): {} ms", q.backend().name(), ns.nsid(), op, el / 1_000_000));
        mainPe = ProgressEngine.create();
        check(mainPe.connectCtx(sta), "connect main context");
        check(sta.start(), "start main context");
        running = true;
        main = new NvmfMain(sta, mainPe, controllers, engines);
        main.start();

        for (int i = 0; i < sta.getMaxStaIo(); i++) {
            StaIo io = StaIo.create(sta);
            ProgressEngine pe = ProgressEngine.create();
            check(io.setQueueDepth(1 << 16), "queue depth");
            check(io.nonOffloadRegisterCb(handler, i), "non-offload callback");
            check(io.eventTransportErrorRegisterCb((qp, op, why, detail) -> controllers.qpGone(qp, op + ": " + why + (detail != 0 ? " FES " + detail : ""))), "transport error callback");
            check(io.taskNonOffloadSendSetConf((t, ud, cud) -> t.free(), (t, ud, cud) -> t.free(), 4096), "send conf");
            check(io.taskNonOffloadWriteSendSetConf((t, ud, cud) -> t.free(), (t, ud, cud) -> t.free(), 1024), "write-send conf");
            check(io.taskNonOffloadReadSetConf((t, ud, cud) -> {
                Object k = t.userObject();
                t.free();
                if (k instanceof Runnable r) {
                    r.run();
                }
            }, (t, ud, cud) -> t.free(), 256), "read conf");
            check(io.taskDisconnectSetConf((t, ud, cud) -> t.free(), (t, ud, cud) -> t.free(), 1024), "disconnect conf");
            check(pe.connectCtx(io), "connect IO context");
            check(io.start(), "start IO context");
            NvmfEngine e = new NvmfEngine(this, io, pe, i);
            engines.add(e);
            e.start();
        }
        subsystems.put(NvmfSubsystem.DISCOVERY_NQN, new NvmfSubsystem(NvmfSubsystem.DISCOVERY_NQN, null, "discovery", "jdoca discovery", true));
        // A configuration that fails halfway leaves nothing behind: no listener, thread or new file.
        try {
            for (TargetConfig.SubsystemConfig s : config.subsystems()) {
                createSubsystem(s, true);
            }
            for (TargetConfig.ListenerConfig l : config.listeners()) {
                addListener(l.trtype(), l.address(), l.port());
            }
        } catch (IOException | RuntimeException e) {
            close();
            for (Path f : createdFiles) {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // best effort: the error below is what the operator needs
                }
            }
            throw e;
        }
        createdFiles.clear();
        started = true;
    }

    private static void check(DocaError e, String what) {
        if (e != DocaError.SUCCESS) {
            throw new DocaException(e, what + ": " + e.description());
        }
    }

    /** Stops listeners, IO contexts, then the main context (the seed's stop order). */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        listeners.closeAll();
        running = false;
        for (NvmfEngine e : engines) {
            e.close();
        }
        main.close();
        for (NvmfEngine e : engines) {
            e.io.destroy();
        }
        DocaError destroyed = sta.destroy();
        if (destroyed != DocaError.SUCCESS) {
            LOG.warn("STA main context not destroyed: {}", destroyed.description());
        }
        listeners.closeRdmaCm();
        for (StaSubsystem s : sta.subsystems()) {
            for (StaNamespace ns : s.namespaces()) {
                s.rmNs(ns); // IO contexts are stopped: nothing is in flight
            }
        }
        for (StaBackend b : sta.backends()) {
            sta.backendDestroy(b);
        }
        LOG.info("target stopped");
    }

    public Sta sta() {
        return sta;
    }

    /**
     * Per IO engine: {name, busy seconds, idle seconds} since start, read racily (the engine thread
     * is the only writer). Idle is the time asleep waiting for the sockets; busy the rest.
     */
    public List<Object[]> engineTimes() {
        List<Object[]> out = new ArrayList<>();
        long now = System.nanoTime();
        for (NvmfEngine e : engines) {
            long idle = e.idleNanos;
            long total = now - e.startNanos;
            out.add(new Object[] {e.io.name(), Math.max(0, total - idle) / 1e9, idle / 1e9});
        }
        return out;
    }

    public List<StaIo> ioContexts() {
        return engines.stream().map(e -> e.io).toList();
    }

    // ------------------------------------------------------------------ listeners

    /**
     * Adds a top-level TCP listener (control path), bound exactly to {@code address} (an IP
     * literal): the subsystems the JSON defines without listeners of their own are reachable on it.
     * Returns its port (useful with port 0).
     */
    public synchronized int addListener(String address, int port) throws IOException {
        return addListener(StaQp.TRTYPE_TCP, address, port);
    }

    /** {@link #addListener(String, int)} for a transport: {@link StaQp#TRTYPE_TCP} or {@link StaQp#TRTYPE_RDMA}. */
    public synchronized int addListener(String trtype, String address, int port) throws IOException {
        return listeners.open(trtype, address, port, true).port();
    }

    /** The IO engine that takes the next connection (round robin). Any thread. */
    NvmfEngine nextEngine() {
        return engines.get(Math.floorMod(rr.getAndIncrement(), engines.size()));
    }

    /** A listener, subsystem or host changed: the discovery log's generation counter moves. */
    void discoveryChanged() {
        discoveryGen++;
    }

    /**
     * SPDK's {@code nvmf_subsystem_add_listener}: makes {@code nqn} reachable on address:port,
     * opening the listener if no open one covers it; no other subsystem gains it. Returns the port.
     */
    public synchronized int addSubsystemListener(String nqn, String address, int port) throws IOException {
        return addSubsystemListener(nqn, StaQp.TRTYPE_TCP, address, port);
    }

    /** {@link #addSubsystemListener(String, String, int)} for a transport (TCP or RDMA). */
    public synchronized int addSubsystemListener(String nqn, String trtype, String address, int port) throws IOException {
        NvmfSubsystem s = subsystems.get(nqn); // the discovery subsystem too: a discovery-only port
        if (s == null) {
            throw new DocaException(DocaError.NOT_FOUND, "no subsystem " + nqn);
        }
        InetAddress ip = TargetConfig.ipLiteral("listen_address.traddr", address);
        NvmfListeners.Listener use = port != 0 ? listeners.find(trtype, ip, port) : null;
        if (use == null) {
            use = listeners.open(trtype, address, port, false);
        }
        s.addListener(use.key());
        discoveryGen++;
        return use.port();
    }

    /**
     * SPDK's {@code nvmf_subsystem_remove_listener}: {@code nqn} is no longer reachable on
     * address:port (a listener no subsystem uses any more is closed). NOT_FOUND when it had no
     * such listener.
     */
    public synchronized void removeSubsystemListener(String nqn, String address, int port) {
        removeSubsystemListener(nqn, StaQp.TRTYPE_TCP, address, port);
    }

    /** {@link #removeSubsystemListener(String, String, int)} for a transport (TCP or RDMA). */
    public synchronized void removeSubsystemListener(String nqn, String trtype, String address, int port) {
        NvmfSubsystem s = subsystems.get(nqn);
        if (s == null) {
            throw new DocaException(DocaError.NOT_FOUND, "no subsystem " + nqn);
        }
        InetAddress ip = TargetConfig.ipLiteral("listen_address.traddr", address);
        if (!listeners.removeFrom(s, trtype, ip, port)) {
            throw new DocaException(DocaError.NOT_FOUND, nqn + " has no listener " + address + ":" + port);
        }
        listeners.closeUnused(subsystems.values());
        discoveryGen++;
    }

    /** The listeners {@code s} was given with add_listener (for save_config): trtype, adrfam, traddr, trsvcid. */
    public List<Map<String, Object>> listenAddresses(NvmfSubsystem s) {
        return listeners.addressesOf(s);
    }

    /**
     * Whether a host that connected to {@code qp}'s local address may reach {@code s}: the
     * discovery subsystem on every listener, others only on the listeners they were given.
     */
    boolean reachable(NvmfSubsystem s, StaQp qp) {
        return listeners.reachable(s, qp);
    }

    /** Every listener: trtype, address, port, portid. */
    public List<Map<String, Object>> listeners() {
        return listeners.describe();
    }

    // ------------------------------------------------------------------ subsystems (management)

    public NvmfSubsystem subsystem(String nqn) {
        return nqn == null ? null : subsystems.get(nqn);
    }

    public List<NvmfSubsystem> subsystems() {
        List<NvmfSubsystem> l = new ArrayList<>(subsystems.values());
        l.sort((a, b) -> a.nqn().compareTo(b.nqn()));
        return l;
    }

    /**
     * Creates a subsystem (as over RPC: reachable on no listener until one is added) with its
     * namespaces. Throws ConfigException (bad value, existing NQN) or DocaException.
     */
    public NvmfSubsystem createSubsystem(TargetConfig.SubsystemConfig c) {
        return createSubsystem(c, false);
    }

    /**
     * Creates a subsystem; {@code fromConfig}: defined by the JSON, so without listeners of its own
     * it is reachable on the top-level listeners. All or nothing: a failure removes what it made.
     */
    public synchronized NvmfSubsystem createSubsystem(TargetConfig.SubsystemConfig c, boolean fromConfig) {
        if (!fromConfig) {
            // The JSON is validated as a whole (TargetConfig.validate) by the app before start.
            c.validate("");
        }
        if (c.nqn() == null || subsystems.containsKey(c.nqn())) {
            throw new ConfigException("nqn", "subsystem " + c.nqn() + " already exists");
        }
        StaSubsystem s = sta.subsystemCreate(c.nqn());
        NvmfSubsystem ns = new NvmfSubsystem(c.nqn(), s, c.serialNumber(), c.modelNumber(), c.allowAnyHost());
        ns.setFollowsTopLevelListeners(fromConfig && c.listeners() == null);
        ns.hosts().addAll(c.hosts());
        subsystems.put(c.nqn(), ns);
        try {
            if (c.listeners() != null) {
                for (TargetConfig.ListenerConfig l : c.listeners()) {
                    try {
                        addSubsystemListener(c.nqn(), l.trtype(), l.address(), l.port());
                    } catch (IOException e) {
                        throw new DocaException(DocaError.OPERATING_SYSTEM, e.getMessage(), e);
                    }
                }
            }
            for (TargetConfig.NamespaceConfig n : c.namespaces()) {
                addNamespace(c.nqn(), n);
            }
        } catch (RuntimeException e) {
            deleteSubsystem(c.nqn());
            throw e;
        }
        discoveryGen++;
        LOG.info("subsystem {} created ({} namespace(s), allow_any_host={})", c.nqn(), c.namespaces().size(), c.allowAnyHost());
        return ns;
    }

    /** Deletes a subsystem: disconnects its controllers, removes its namespaces and back-ends. */
    public synchronized void deleteSubsystem(String nqn) {
        NvmfSubsystem s = subsystems.get(nqn);
        if (s == null || s.isDiscovery()) {
            throw new DocaException(DocaError.NOT_FOUND, "no subsystem " + nqn);
        }
        controllers.killAll(c -> c.subsystem() == s, "subsystem deleted");
        for (StaNamespace ns : s.sta().namespaces()) {
            removeNamespaceNow(s, ns);
        }
        subsystems.remove(nqn);
        DocaError e = sta.subsystemDestroy(s.sta());
        if (e != DocaError.SUCCESS) {
            LOG.warn("subsystem {} destroy: {}", nqn, e);
        }
        listeners.closeUnused(subsystems.values());
        discoveryGen++;
    }

    private void removeNamespaceNow(NvmfSubsystem s, StaNamespace ns) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (s.sta().rmNs(ns) == DocaError.IN_USE && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        release(ns.backend());
    }

    /** A namespace let go of its back-end (see {@link NvmfBdevs#release}). */
    private synchronized void release(StaBackend b) {
        bdevs.release(b);
    }

    /**
     * Adds a namespace in jdoca's own form (a back-end made for it: memory, file or null) and
     * raises the namespace-changed event. The back-end is registered as a bdev owned by the
     * namespace (so {@code bdev_get_bdevs} and {@code save_config} show it). Returns the nsid.
     */
    public synchronized int addNamespace(String nqn, TargetConfig.NamespaceConfig n) {
        NvmfSubsystem s = requireSubsystem(nqn);
        n.validate("namespace");
        int nsid = pickNsid(s, n.nsid(), "namespace.nsid");
        if (!Sta.isLogicalBlockSizeSupported(n.blockSize())) {
            throw new ConfigException("namespace.block_size", n.blockSize() + " must be 512 or 4096");
        }
        long size = n.sizeMb() * 1024L * 1024L;
        if (n.isRam()) {
            MemoryBudget.check("namespace.size_mb", size);
        }
        Path created = null;
        String beName = nqn + "/ns" + nsid;
        if (bdevs.get(beName) != null) {
            throw new ConfigException("namespace", "a bdev named " + beName + " already exists");
        }
        Bdev.Module module;
        StaBackend be = switch (n.backend()) {
            case "memory", "malloc" -> {
                if (size <= 0) {
                    throw new DocaException(DocaError.INVALID_VALUE, "memory namespace needs size_mb");
                }
                module = Bdev.Module.MALLOC;
                yield new MemoryBackend(beName, size);
            }
            case "null" -> {
                if (size <= 0) {
                    throw new DocaException(DocaError.INVALID_VALUE, "null namespace needs size_mb");
                }
                module = Bdev.Module.NULL;
                yield new NullBackend(beName, size);
            }
            case "file", "aio", "bdev" -> {
                if (n.path() == null) {
                    throw new DocaException(DocaError.INVALID_VALUE, "file namespace needs path");
                }
                Path f = Path.of(n.path());
                created = Files.exists(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? null : f;
                module = Bdev.Module.AIO;
                yield FileBackend.open(beName, f, size);
            }
            default -> throw new DocaException(DocaError.INVALID_VALUE, "unknown backend " + n.backend() + " (memory, file, null)");
        };
        StaBackend raw = be;
        be = bdevs.register(raw);
        UUID uuid = n.uuid() != null ? UUID.fromString(n.uuid()) : s.uuid(nsid);
        Bdev d = new Bdev(beName, module, n.blockSize(), be.sizeBytes() / n.blockSize(), uuid, be,
                module == Bdev.Module.AIO ? Path.of(n.path()) : null, true);
        bdevs.add(d);
        try {
            attach(s, nsid, d, n.uuid() != null ? uuid : null, null);
        } catch (RuntimeException e) {
            bdevs.remove(beName);
            bdevs.destroy(be);
            deleteQuietly(created);
            throw e;
        }
        if (created != null && !started) {
            createdFiles.add(created);
        }
        return nsid;
    }

    /**
     * SPDK's {@code nvmf_subsystem_add_ns} with a bdev: exposes bdev {@code bdevName} as namespace
     * {@code nsid} (0 = next free); {@code uuid} defaults to the bdev's, {@code nguid} (16 bytes)
     * to one derived from NQN and nsid. Returns the nsid. NOT_FOUND when the bdev does not exist,
     * IN_USE when another namespace has it.
     */
    public synchronized int addBdevNamespace(String nqn, int nsid, String bdevName, UUID uuid, byte[] nguid) {
        NvmfSubsystem s = requireSubsystem(nqn);
        Bdev d = bdevs.get(bdevName);
        if (d == null) {
            throw new DocaException(DocaError.NOT_FOUND, "no bdev " + bdevName);
        }
        if (d.claimedBy() != null) {
            throw new DocaException(DocaError.IN_USE, "bdev " + bdevName + " is already claimed by " + d.claimedBy());
        }
        int id = pickNsid(s, nsid, "namespace.nsid");
        attach(s, id, d, uuid != null ? uuid : d.uuid(), nguid);
        return id;
    }

    private int pickNsid(NvmfSubsystem s, int nsid, String field) {
        if (nsid > s.maxNamespaces()) {
            throw new ConfigException(field, nsid + " is above the subsystem's max_namespaces " + s.maxNamespaces());
        }
        if (nsid == 0) {
            nsid = 1;
            while (s.sta().ns(nsid) != null) {
                nsid++;
            }
            if (nsid > s.maxNamespaces()) {
                throw new DocaException(DocaError.FULL, s.nqn() + " already has max_namespaces " + s.maxNamespaces() + " namespaces");
            }
        } else if (s.sta().ns(nsid) != null) {
            throw new ConfigException(field, "namespace " + nsid + " already exists in " + s.nqn());
        }
        return nsid;
    }

    private void attach(NvmfSubsystem s, int nsid, Bdev d, UUID uuid, byte[] nguid) {
        s.sta().addNs(nsid, d.blockSize(), 1, d.backend());
        d.claim(s.nqn() + " nsid " + nsid);
        if (uuid != null) {
            s.setUuid(nsid, uuid);
        }
        s.setNguid(nsid, nguid);
        LOG.info("namespace {} of {}: bdev {} ({} back-end, {} B, {}-byte blocks)", nsid, s.nqn(), d.name(),
                d.backend().kind(), d.backend().sizeBytes(), d.blockSize());
        controllers.namespaceChanged(s, nsid);
    }

    // ------------------------------------------------------------------ bdevs (SPDK's bdev layer)

    /**
     * Creates a bdev (control path). {@code malloc} and {@code null}: {@code numBlocks} blocks of
     * {@code blockSize}; {@code aio}: an existing file or block device, its size rounded down to
     * blocks. ALREADY_EXIST when the name is taken; ConfigException for a bad value.
     */
    public synchronized Bdev createBdev(Bdev.Module module, String name, int blockSize, long numBlocks, UUID uuid,
                                        Path filename) {
        return bdevs.create(module, name, blockSize, numBlocks, uuid, filename);
    }

    /** Deletes a bdev of {@code module}: NOT_FOUND if there is none, IN_USE while a namespace has it. */
    public synchronized void deleteBdev(Bdev.Module module, String name) {
        bdevs.delete(module, name);
    }

    public synchronized Bdev bdev(String name) {
        return bdevs.get(name);
    }

    public synchronized List<Bdev> bdevs() {
        return bdevs.all();
    }

    /** The bdev a namespace's back-end belongs to, or null. */
    public synchronized Bdev bdevOf(StaBackend b) {
        return bdevs.of(b);
    }

    /** IO engines, hence back-end queues per back-end (at least one). */
    int engineCount() {
        return engines.size();
    }

    // ------------------------------------------------------------------ transports

    /** Records {@code nvmf_create_transport}'s options (ALREADY_EXIST if the transport exists). */
    public synchronized void createTransport(String trtype, Map<String, Object> options) {
        if (transports.containsKey(trtype)) {
            throw new DocaException(DocaError.ALREADY_EXIST, "transport " + trtype + " already exists");
        }
        transports.put(trtype, new LinkedHashMap<>(options));
    }

    /** The transports with their options ({@code nvmf_get_transports}). */
    public synchronized Map<String, Map<String, Object>> transports() {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        transports.forEach((k, v) -> out.put(k, new LinkedHashMap<>(v)));
        return out;
    }

    private static void deleteQuietly(Path f) {
        if (f != null) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException ignored) {
                // the caller reports the original error
            }
        }
    }

    /** Removes a namespace with the asynchronous rm-ns task; completes when in-flight I/O drained. */
    public CompletableFuture<Void> removeNamespace(String nqn, int nsid) {
        NvmfSubsystem s = subsystems.get(nqn);
        StaNamespace ns = s == null ? null : s.ns(nsid);
        if (ns == null) {
            return CompletableFuture.failedFuture(new DocaException(DocaError.NOT_FOUND, "no namespace " + nsid + " in " + nqn));
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        Runnable submit = () -> {
            StaTaskRmNs t = sta.taskRmNsAllocInit(ns, 0);
            if (t == null) {
                f.completeExceptionally(new DocaException(sta.lastError(), "rm_ns task"));
                return;
            }
            t.setUserObject(f);
            DocaError e = t.submit();
            if (e != DocaError.SUCCESS) {
                t.free();
                f.completeExceptionally(new DocaException(e, "rm_ns submit"));
            }
        };
        try {
            main.execute(submit);
        } catch (DocaException e) {
            f.completeExceptionally(e);
        }
        return f;
    }

    @SuppressWarnings("unchecked")
    private void finishRmNs(StaTaskRmNs t, boolean ok) {
        StaNamespace ns = t.ns();
        CompletableFuture<Void> f = (CompletableFuture<Void>) t.userObject();
        t.free();
        if (ok) {
            release(ns.backend());
            NvmfSubsystem s = subsystems.get(ns.subsystem().nqn());
            if (s != null) {
                controllers.namespaceChanged(s, ns.nsid());
            }
            LOG.info("namespace {} of {} removed", ns.nsid(), ns.subsystem().nqn());
            f.complete(null);
        } else {
            f.completeExceptionally(new DocaException(DocaError.IO_FAILED, "rm_ns failed"));
        }
    }

    public void addHost(String nqn, String host) {
        NvmfSubsystem s = requireSubsystem(nqn);
        s.hosts().add(host);
        discoveryGen++;
    }

    public void removeHost(String nqn, String host) {
        NvmfSubsystem s = requireSubsystem(nqn);
        s.hosts().remove(host);
        controllers.killAll(c -> c.subsystem() == s && c.hostNqn().equals(host) && !s.allowAnyHost(), "host removed");
        discoveryGen++;
    }

    private NvmfSubsystem requireSubsystem(String nqn) {
        NvmfSubsystem s = subsystems.get(nqn);
        if (s == null || s.isDiscovery()) {
            throw new DocaException(DocaError.NOT_FOUND, "no subsystem " + nqn);
        }
        return s;
    }

    /** Stats: every engine, namespace and back-end queue. */
    public List<StaStats> stats() {
        List<StaStats> out = new ArrayList<>();
        for (NvmfEngine e : engines) {
            out.add(e.io.stats());
        }
        for (StaSubsystem s : sta.subsystems()) {
            for (StaNamespace ns : s.namespaces()) {
                out.add(ns.stats());
            }
        }
        for (StaBackend b : sta.backends()) {
            for (var q : b.queues()) {
                out.add(q.stats());
            }
        }
        return out;
    }

    public List<NvmfController> controllers() {
        return controllers.all();
    }

    // ------------------------------------------------------------------ controller registry

    int maxQueueEntries() {
        return Sta.MAX_IO_QUEUE_SIZE;
    }

    int maxIoQueues() {
        return MAX_IO_QUEUES;
    }

    int maxIoSize() {
        return sta.getMaxIoSize();
    }

    NvmfController createController(NvmfSubsystem s, String hostNqn, byte[] hostId, StaQp adminQp, long kato) {
        return controllers.create(s, hostNqn, hostId, adminQp, kato);
    }

    NvmfController controller(int cntlid) {
        return controllers.get(cntlid);
    }

    IdentifyData.ControllerParams controllerParams(NvmfController c) {
        NvmfSubsystem s = c.subsystem();
        boolean disc = s.isDiscovery();
        int mdts = Integer.numberOfTrailingZeros(sta.getMaxIoSize() / 4096);
        return new IdentifyData.ControllerParams(c.cntlid(), s.serial(), s.model(), s.nqn(),
                disc ? IdentifyData.CNTRLTYPE_DISCOVERY : IdentifyData.CNTRLTYPE_IO, mdts, maxQueueEntries(),
                disc ? 0 : s.maxNamespaces(), disc ? 0 : sta.inCapsuleDataSize(), 1, !disc,
                StaQp.TRTYPE_RDMA.equals(c.adminQp().transportType()));
    }

    long[] subsystemTotals(NvmfSubsystem s) {
        long[] t = new long[4];
        if (s.sta() != null) {
            for (StaNamespace ns : s.sta().namespaces()) {
                StaStats st = ns.stats();
                t[0] += st.get("read_bytes");
                t[1] += st.get("write_bytes");
                t[2] += st.get("reads");
                t[3] += st.get("writes");
            }
        }
        return t;
    }

    /**
     * The discovery log for {@code c}'s host, as Linux nvmet builds it: only the port the host
     * connected to, and on it only the subsystems that have that listener and allow that host.
     */
    byte[] discoveryLog(NvmfController c) {
        List<DiscoveryLog.Entry> entries = new ArrayList<>();
        NvmfListeners.Listener l = listeners.listenerOf(c.adminQp());
        if (l != null) {
            for (NvmfSubsystem s : subsystems()) {
                if (!s.isDiscovery() && s.hostAllowed(c.hostNqn()) && NvmfListeners.reachableOn(s, l)) {
                    entries.add(new DiscoveryLog.Entry(s.nqn(), l.address(), l.port(), l.portId(),
                            StaQp.TRTYPE_RDMA.equals(l.trtype()) ? DiscoveryLog.TRTYPE_RDMA : DiscoveryLog.TRTYPE_TCP));
                }
            }
        }
        return DiscoveryLog.build(discoveryGen, entries);
    }

    /** Completes outstanding AERs with pending events, on the admin QP's IO thread. */
    void deliverEvents(NvmfController c) {
        controllers.deliverEvents(c);
    }

    /** Disconnects one QP (IO thread of the QP). */
    void disconnectQp(StaQp qp) {
        controllers.disconnectQp(qp);
    }

    /**
     * For the RPC server's {@code nvmf_get_subsystems}, in SPDK's shape: nqn, subtype,
     * listen_addresses [{trtype, adrfam, traddr, trsvcid}], allow_any_host, hosts [{nqn}], and for
     * NVMe subsystems serial_number, model_number, max_namespaces, min/max_cntlid and namespaces
     * [{nsid, bdev_name, name, uuid}] (plus jdoca's block_size, num_blocks, backend).
     */
    public List<Map<String, Object>> describeSubsystems(String onlyNqn) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (NvmfSubsystem s : subsystems()) {
            if (onlyNqn != null && !onlyNqn.equals(s.nqn())) {
                continue;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("nqn", s.nqn());
            m.put("subtype", s.isDiscovery() ? "Discovery" : "NVMe");
            List<Map<String, Object>> ls = listenAddresses(s);
            m.put("listen_addresses", ls);
            m.put("allow_any_host", s.allowAnyHost());
            m.put("hosts", s.hosts().stream().sorted().map(h -> Map.of("nqn", h)).toList());
            if (!s.isDiscovery()) {
                m.put("serial_number", s.serial());
                m.put("model_number", s.model());
                m.put("max_namespaces", s.maxNamespaces());
                m.put("min_cntlid", 1);
                m.put("max_cntlid", 0xffef);
                List<Map<String, Object>> nss = new ArrayList<>();
                for (StaNamespace ns : s.sta().namespaces()) {
                    Map<String, Object> n = new LinkedHashMap<>();
                    n.put("nsid", ns.nsid());
                    n.put("bdev_name", ns.backend().name());
                    n.put("name", ns.backend().name());
                    n.put("nguid", java.util.HexFormat.of().withUpperCase().formatHex(s.nguid(ns.nsid())));
                    n.put("uuid", s.uuid(ns.nsid()).toString());
                    n.put("no_auto_visible", false);
                    n.put("block_size", ns.blockSize());
                    n.put("num_blocks", ns.sizeBlocks());
                    n.put("backend", ns.backend().kind());
                    nss.add(n);
                }
                m.put("namespaces", nss);
            }
            out.add(m);
        }
        return out;
    }

    /** Runs an action on the main context's thread (e.g. STA tasks); AGAIN when too many already wait. Any thread. */
    public void onMainThread(Runnable r) {
        main.execute(r);
    }

}
