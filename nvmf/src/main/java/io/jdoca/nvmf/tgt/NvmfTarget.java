package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.bdev.BdevModule;
import io.jdoca.nvmf.bdev.BdevSpec;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.StaSubsystem;
import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaStats;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NVMe-oF target built on the STA public API (SPDK's {@code nvmf_tgt}): brings up the main
 * context and the IO contexts in the seed's order, accepts connections on its listeners and hands
 * them to the IO contexts, and keeps the target state: subsystems ({@link NvmfSubsystems}),
 * controllers ({@link NvmfControllers}, their admin commands {@link AdminHandler}'s), listeners
 * ({@link NvmfListeners}), bdevs ({@link NvmfBdevs}), transports and the discovery log
 * ({@link NvmfDiscovery}). Its public management methods back the JSON-RPC server.
 *
 * <p><b>Threads.</b> One agent per progress engine, each on its own {@code AgentRunner}:
 * {@link NvmfMain} ({@code sta-main}, SPDK's application thread) and one {@link NvmfEngine} per IO
 * context ({@code sta-io-<i>}, the data path). {@code sta-main} is the single writer of the target
 * state: every public management method, from any thread, is a command it executes; the caller
 * waits for the result with a deadline ({@code NvmfMain.CALL_NANOS}, then a one-line TIME_OUT
 * error), and a call made on {@code sta-main} itself runs inline. The IO engines hand it the
 * commands they do not execute ({@link NvmfCommandForwarder}) and never wait for it or take a
 * lock. Control path besides: one blocking acceptor thread per TCP listener
 * ({@code sta-listen-<port>}) and the rdma_cm event thread ({@code sta-rdma-cm}), which only hand
 * connections to the IO engines. {@link #start} and {@link #close} from one control thread.
 */
public final class NvmfTarget implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfTarget.class);
    public static final int MAX_IO_QUEUES = 64;

    private final TargetConfig config;
    private final NvmfControllers controllers = new NvmfControllers();
    private final NvmfSubsystems subsystems = new NvmfSubsystems(this);
    private final NvmfListeners listeners = new NvmfListeners(this);
    private final NvmfDiscovery discovery = new NvmfDiscovery(subsystems, listeners);
    private final NvmfBdevs bdevs = new NvmfBdevs(this);
    private final AdminHandler handler = new AdminHandler(this, controllers);
    private final List<NvmfEngine> engines = new ArrayList<>();
    private final AtomicInteger rr = new AtomicInteger();
    /** Back-end files this start created (deleted again if the start fails). sta-main. */
    private final List<Path> createdFiles = new ArrayList<>();
    /** nvmf_create_transport options by trtype; TCP appears implicitly with a listener. sta-main. */
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
        NvmfCpuIsolation.keepOff(cpus); // before any thread the target starts: they inherit it
        dev = Devices.open("sw0");
        sta = Sta.create(dev);
        try {
            startContexts();
        } catch (IOException | RuntimeException e) {
            if (!running) {
                sta.destroy(); // nothing runs yet: the process's one main context is free again
                NvmfCpuIsolation.release();
            }
            throw e;
        }
    }

    private void startContexts() throws IOException {
        NvmfNetworkDevices.addTo(sta, dev, config);
        check(sta.setMaxStaIo(Math.max(1, config.ioThreads())), "set max IO contexts");
        check(sta.setMaxIoSize(config.maxIoSize()), "set max IO size");
        check(sta.taskRmNsSetConf((t, ud, cud) -> NvmfSubsystems.finishRmNs(t, true),
                (t, ud, cud) -> NvmfSubsystems.finishRmNs(t, false), 64), "rm_ns conf");
        check(sta.taskDestroyBeQueueSetConf((t, ud, cud) -> t.free(), (t, ud, cud) -> t.free(), 64),
                "destroy queue conf");
        sta.eventBackendTimeoutRegisterCb((q, ns, op, el) -> LOG.warn(
                "back-end timeout on {} (ns {}, opcode {}): {} ms", q.backend().name(), ns.nsid(), op, el / 1_000_000));
        mainPe = ProgressEngine.create();
        check(mainPe.connectCtx(sta), "connect main context");
        check(sta.start(), "start main context");
        running = true;
        main = new NvmfMain(sta, mainPe, controllers, engines, handler);
        NvmfCommandForwarder forwarder = new NvmfCommandForwarder(main);
        main.start();

        for (int i = 0; i < sta.getMaxStaIo(); i++) {
            NvmfEngine e = NvmfEngine.create(this, sta, i, forwarder);
            engines.add(e);
            e.start();
        }
        // A configuration that fails halfway leaves nothing behind: no listener, thread or new file.
        try {
            for (TargetConfig.SubsystemConfig s : config.subsystems()) {
                createSubsystem(s, true);
            }
            for (TargetConfig.ListenerConfig l : config.listeners()) {
                addListener(l.trtype(), l.address(), l.port());
            }
        } catch (IOException | RuntimeException e) {
            List<Path> made = call("start rollback", () -> List.copyOf(createdFiles));
            close();
            for (Path f : made) {
                try {
                    Files.deleteIfExists(f);
                } catch (IOException ignored) {
                    // best effort: the error below is what the operator needs
                }
            }
            throw e;
        }
        call("start", () -> {
            createdFiles.clear();
            started = true;
            return null;
        });
    }

    static void check(DocaError e, String what) {
        if (e != DocaError.SUCCESS) {
            throw new DocaException(e, what + ": " + e.description());
        }
    }

    /** A namespace created {@code f} (null: none); remembered while the start may still fail. sta-main. */
    void fileCreated(Path f) {
        if (f != null && !started) {
            createdFiles.add(f);
        }
    }

    /**
     * Stops listeners, IO contexts, then the main context (the seed's stop order). Once
     * {@code sta-main} has ended, this thread is the only one left to touch the state it frees.
     */
    @Override
    public void close() {
        if (!running) {
            return;
        }
        boolean listenersClosed = false;
        try {
            call("close listeners", () -> {
                listeners.closeAll();
                return null;
            });
            listenersClosed = true;
        } catch (DocaException e) {
            LOG.warn("{}: the listeners close once sta-main has stopped", e.getMessage());
        }
        running = false;
        for (NvmfEngine e : engines) {
            e.close();
        }
        main.close();
        if (!listenersClosed) {
            listeners.closeAll(); // sta-main is gone: this thread is the only one left
        }
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
        bdevs.destroyAll(); // and the bdev modules' states (rbd clusters)
        NvmfCpuIsolation.release();
        LOG.info("target stopped");
    }

    public Sta sta() {
        return sta;
    }

    /** Runs {@code query} on {@code sta-main}: a consistent view (save_config, metrics). Any thread; a deadline. */
    public <T> T query(String what, Supplier<T> query) {
        return call(what, query);
    }

    /** Sets how long management calls wait for {@code sta-main} (tests of a stuck sta-main). After start. */
    void callDeadlineNanos(long nanos) {
        main.callNanos = nanos;
    }

    /** Runs an action on the main context's thread (e.g. STA tasks); AGAIN when too many already wait. Any thread. */
    public void onMainThread(Runnable r) {
        main.execute(r);
    }

    // ------------------------------------------------------------------ engines

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

    /** The IO engines (thread_get_stats). */
    List<NvmfEngine> engineList() {
        return engines;
    }

    /** Every IO engine's longest pauses, read racily (each engine is the only writer of its own). Any thread. */
    public List<EnginePause> enginePauses() {
        return engines.stream().map(EnginePause::of).toList();
    }

    /** Starts a new window for {@link EnginePause#windowMaxNanos} on every engine (from its next cycle). Any thread. */
    public void resetEnginePauses() {
        for (NvmfEngine e : engines) {
            e.pauses.resetWindow();
        }
    }

    public List<StaIo> ioContexts() {
        return engines.stream().map(e -> e.io).toList();
    }

    /** The IO engine that takes the next connection (round robin). Any thread. */
    NvmfEngine nextEngine() {
        return engines.get(Math.floorMod(rr.getAndIncrement(), engines.size()));
    }

    /** IO engines, hence back-end queues per back-end (at least one). */
    int engineCount() {
        return engines.size();
    }

    // ------------------------------------------------------------------ parts (sta-main)

    NvmfControllers controllerRegistry() {
        return controllers;
    }

    NvmfListeners listenerTable() {
        return listeners;
    }

    NvmfBdevs bdevTable() {
        return bdevs;
    }

    NvmfDiscovery discovery() {
        return discovery;
    }

    /** A listener, subsystem or host changed (sta-main). */
    void discoveryChanged() {
        discovery.changed();
    }

    /** The subsystem named {@code nqn}, for a Connect. sta-main. */
    NvmfSubsystem subsystemOnMain(String nqn) {
        return subsystems.get(nqn);
    }

    /**
     * Whether a host that connected to {@code qp}'s local address may reach {@code s}: the
     * discovery subsystem on every listener, others only on the listeners they were given. sta-main.
     */
    boolean reachable(NvmfSubsystem s, StaQp qp) {
        return listeners.reachable(s, qp);
    }

    // ------------------------------------------------------------------ listeners

    /**
     * Adds a top-level TCP listener, bound exactly to {@code address} (an IP literal): the
     * subsystems the JSON defines without listeners of their own are reachable on it. Returns its
     * port (useful with port 0).
     */
    public int addListener(String address, int port) throws IOException {
        return addListener(StaQp.TRTYPE_TCP, address, port);
    }

    /** {@link #addListener(String, int)} for a transport: {@link StaQp#TRTYPE_TCP} or {@link StaQp#TRTYPE_RDMA}. */
    public int addListener(String trtype, String address, int port) throws IOException {
        return io(() -> call("add listener", () -> unchecked(() -> listeners.open(trtype, address, port, true))
                .port()));
    }

    /**
     * SPDK's {@code nvmf_subsystem_add_listener}: makes {@code nqn} reachable on address:port,
     * opening the listener if no open one covers it; no other subsystem gains it. Returns the port.
     */
    public int addSubsystemListener(String nqn, String address, int port) throws IOException {
        return addSubsystemListener(nqn, StaQp.TRTYPE_TCP, address, port);
    }

    /** {@link #addSubsystemListener(String, String, int)} for a transport (TCP or RDMA). */
    public int addSubsystemListener(String nqn, String trtype, String address, int port) throws IOException {
        return io(() -> call("nvmf_subsystem_add_listener",
                () -> unchecked(() -> subsystems.addListener(nqn, trtype, address, port))));
    }

    /**
     * SPDK's {@code nvmf_subsystem_remove_listener}: {@code nqn} is no longer reachable on
     * address:port (a listener no subsystem uses any more is closed). NOT_FOUND when it had no
     * such listener.
     */
    public void removeSubsystemListener(String nqn, String address, int port) {
        removeSubsystemListener(nqn, StaQp.TRTYPE_TCP, address, port);
    }

    /** {@link #removeSubsystemListener(String, String, int)} for a transport (TCP or RDMA). */
    public void removeSubsystemListener(String nqn, String trtype, String address, int port) {
        call("nvmf_subsystem_remove_listener", () -> {
            subsystems.removeListener(nqn, trtype, address, port);
            return null;
        });
    }

    /** The listeners {@code s} is reachable on (for save_config): trtype, adrfam, traddr, trsvcid. */
    public List<Map<String, Object>> listenAddresses(NvmfSubsystem s) {
        return call("listen addresses", () -> listeners.addressesOf(s, true));
    }

    /** Every listener: trtype, address, port, portid. */
    public List<Map<String, Object>> listeners() {
        return call("listeners", listeners::describe);
    }

    // ------------------------------------------------------------------ subsystems

    public NvmfSubsystem subsystem(String nqn) {
        return call("subsystem", () -> subsystems.get(nqn));
    }

    public List<NvmfSubsystem> subsystems() {
        return call("subsystems", subsystems::all);
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
    public NvmfSubsystem createSubsystem(TargetConfig.SubsystemConfig c, boolean fromConfig) {
        return createSubsystem(c, fromConfig, 0);
    }

    /** {@link #createSubsystem(TargetConfig.SubsystemConfig, boolean)} with SPDK's max_namespaces (0: the limit). */
    public NvmfSubsystem createSubsystem(TargetConfig.SubsystemConfig c, boolean fromConfig, int maxNamespaces) {
        return call("nvmf_create_subsystem", () -> subsystems.create(c, fromConfig, maxNamespaces));
    }

    /** Deletes a subsystem: disconnects its controllers, removes its namespaces (once drained) and back-ends. */
    public void deleteSubsystem(String nqn) {
        callAsync("nvmf_delete_subsystem", () -> subsystems.delete(nqn), main == null ? 0 : main.callNanos);
    }

    public void addHost(String nqn, String host) {
        call("nvmf_subsystem_add_host", () -> {
            subsystems.addHost(nqn, host);
            return null;
        });
    }

    public void removeHost(String nqn, String host) {
        call("nvmf_subsystem_remove_host", () -> {
            subsystems.removeHost(nqn, host);
            return null;
        });
    }

    /**
     * For the RPC server's {@code nvmf_get_subsystems}, in SPDK's shape: nqn, subtype,
     * listen_addresses [{trtype, adrfam, traddr, trsvcid}], allow_any_host, hosts [{nqn}], and for
     * NVMe subsystems serial_number, model_number, max_namespaces, min/max_cntlid and namespaces
     * [{nsid, bdev_name, name, uuid}] (plus jdoca's block_size, num_blocks, backend).
     */
    public List<Map<String, Object>> describeSubsystems(String onlyNqn) {
        return call("nvmf_get_subsystems", () -> subsystems.describe(onlyNqn));
    }

    // ------------------------------------------------------------------ namespaces

    /**
     * Adds a namespace in jdoca's own form (a back-end made for it: memory, file or null) and
     * raises the namespace-changed event. The back-end is registered as a bdev owned by the
     * namespace (so {@code bdev_get_bdevs} and {@code save_config} show it). Returns the nsid.
     */
    public int addNamespace(String nqn, TargetConfig.NamespaceConfig n) {
        return call("nvmf_subsystem_add_ns", () -> subsystems.addNamespace(nqn, n));
    }

    /**
     * SPDK's {@code nvmf_subsystem_add_ns} with a bdev: exposes bdev {@code bdevName} as namespace
     * {@code nsid} (0 = next free); {@code uuid} defaults to the bdev's, {@code nguid} (16 bytes) to
     * one derived from NQN and nsid, {@code anagrpid} (0) to the nsid. Returns the nsid. NOT_FOUND
     * when the bdev does not exist, IN_USE when another namespace has it.
     */
    public int addBdevNamespace(String nqn, int nsid, String bdevName, UUID uuid, byte[] nguid, int anagrpid,
                                String ptplFile) {
        return call("nvmf_subsystem_add_ns", () -> subsystems.addBdevNamespace(nqn, nsid, bdevName, uuid, nguid,
                anagrpid, ptplFile));
    }

    /**
     * Removes a namespace with the asynchronous rm-ns task: new I/O to it fails at once; the
     * future completes (on {@code sta-main}) once the I/O in flight drained. Any thread.
     */
    public CompletableFuture<Void> removeNamespace(String nqn, int nsid) {
        return submit("nvmf_subsystem_remove_ns", () -> subsystems.removeNamespace(nqn, nsid));
    }

    // ------------------------------------------------------------------ bdevs (SPDK's bdev layer)

    /**
     * Creates a bdev of {@code module} as {@code spec} says (its module parsed it from
     * {@code bdev_<module>_create}'s params: {@link BdevModule#parseCreate}). ALREADY_EXIST when
     * the name is taken; ConfigException for a bad value.
     */
    public Bdev createBdev(BdevModule module, BdevSpec spec) {
        return call("bdev_" + module.name() + "_create", () -> bdevs.create(module, spec));
    }

    /** Deletes a bdev of {@code module} (NOT_FOUND if none); a namespace using it is hot-removed first, as SPDK. */
    public void deleteBdev(String module, String name) {
        callAsync("bdev_" + module + "_delete", () -> bdevs.delete(module, name), main == null ? 0 : main.callNanos);
    }

    public Bdev bdev(String name) {
        return call("bdev", () -> bdevs.get(name));
    }

    public List<Bdev> bdevs() {
        return call("bdev_get_bdevs", bdevs::all);
    }

    /** The bdev a namespace's back-end belongs to, or null. */
    public Bdev bdevOf(StaBackend b) {
        return call("bdev of", () -> bdevs.of(b));
    }

    // ------------------------------------------------------------------ transports

    /** Records {@code nvmf_create_transport}'s options (ALREADY_EXIST if the transport exists). */
    public void createTransport(String trtype, Map<String, Object> options) {
        call("nvmf_create_transport", () -> {
            if (transports.containsKey(trtype)) {
                throw new DocaException(DocaError.ALREADY_EXIST, "transport " + trtype + " already exists");
            }
            transports.put(trtype, new LinkedHashMap<>(options));
            return null;
        });
    }

    /** The transports with their options ({@code nvmf_get_transports}). */
    public Map<String, Map<String, Object>> transports() {
        return call("nvmf_get_transports", () -> {
            Map<String, Map<String, Object>> out = new LinkedHashMap<>();
            transports.forEach((k, v) -> out.put(k, new LinkedHashMap<>(v)));
            return out;
        });
    }

    // ------------------------------------------------------------------ stats

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

    /** The live controllers (by CNTLID). */
    public List<NvmfController> controllers() {
        return call("controllers", controllers::all);
    }

    NvmfSubsystems subsystemTable() {
        return subsystems;
    }

    // ------------------------------------------------------------------ helpers

    /** {@link NvmfMain#call}; inline before {@link #start} (no sta-main yet, nothing to race with). */
    private <T> T call(String what, Supplier<T> op) {
        NvmfMain m = main;
        return m == null ? op.get() : m.call(what, op);
    }

    private <T> T callAsync(String what, Supplier<CompletableFuture<T>> op, long deadlineNanos) {
        NvmfMain m = main;
        return m == null ? op.get().join() : m.callAsync(what, op, deadlineNanos);
    }

    private <T> CompletableFuture<T> submit(String what, Supplier<CompletableFuture<T>> op) {
        NvmfMain m = main;
        return m == null ? op.get() : m.submit(what, op);
    }

    /** An IOException thrown on sta-main, carried across as unchecked. */
    @FunctionalInterface
    private interface IoOp<T> {
        T get() throws IOException;
    }

    private static <T> T unchecked(IoOp<T> op) {
        try {
            return op.get();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code op}, turning the UncheckedIOException {@link #unchecked} made back into the IOException. */
    private static <T> T io(Supplier<T> op) throws IOException {
        try {
            return op.get();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
