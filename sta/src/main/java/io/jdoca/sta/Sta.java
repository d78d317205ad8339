package io.jdoca.sta;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.exec.TaskQueue;
import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaBeQueue;
import io.jdoca.sta.backend.StaCounters;
import io.jdoca.sta.nvmf.NvmfNamespace;
import io.jdoca.sta.nvmf.NvmfPollGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The DOCA STA main context ({@code doca_sta}): one per process. Created on a control device,
 * given its network devices before start, it owns subsystems, namespaces and back-ends and runs
 * the asynchronous control tasks (remove namespace, destroy back-end queue) and the back-end
 * timeout event. I/O runs in {@link StaIo} contexts, created only after this one is RUNNING and
 * stopped before it ({@link #stop()} returns BAD_STATE while an IO context still runs).
 *
 * <p>jdoca offloads to engine threads instead of the DPA and speaks NVMe/TCP: any host with an
 * NVMe/TCP initiator (Linux {@code nvme-tcp}) can connect.
 *
 * <p><b>Threads.</b> Ctx rules: configure, start, stop, tasks and progress on the main PE's
 * thread. Subsystem, namespace and back-end management may be called from any thread (it is
 * synchronized control path).
 */
public final class Sta extends Ctx {
    /** Limits (jdoca's engine; DOCA reads them from the device). */
    public static final int MAX_DEVS = 16;
    public static final int MAX_SUBSYSTEMS = 1024;
    public static final int MAX_NS_PER_SUBSYSTEM = 1024;
    public static final int MAX_QPS = 4096;
    public static final int MAX_IO_THREADS = StaCounters.MAX_ENGINES;
    public static final int MAX_BACKENDS = 4096;
    public static final int MAX_QUEUES_PER_BACKEND = 64;
    /** Largest I/O queue size (entries) a host may ask for in Connect. */
    public static final int MAX_IO_QUEUE_SIZE = 1024;
    /** Default (and largest) I/O size: 128 KiB, i.e. MDTS 5 with 4 KiB pages. */
    public static final int DEFAULT_MAX_IO_SIZE = 128 * 1024;

    private static final System.Logger LOG = System.getLogger(Sta.class.getName());

    private final Dev controlDev;
    private final List<Dev> devs = new ArrayList<>();
    private final Map<String, StaSubsystem> subsystems = new ConcurrentHashMap<>();
    private final List<StaBackend> backends = new CopyOnWriteArrayList<>();
    final List<StaIo> ios = new CopyOnWriteArrayList<>();
    /** QPs accepted and not yet torn down, across IO contexts (limit {@link #MAX_QPS}). */
    final java.util.concurrent.atomic.AtomicInteger liveQps = new java.util.concurrent.atomic.AtomicInteger();
    private final TaskPool<StaTaskRmNs> rmNsPool;
    private final TaskPool<StaTaskDestroyBeQueue> destroyQueuePool;
    private final TaskQueue pending = new TaskQueue();
    private final ConcurrentLinkedQueue<TimeoutEvent> timeouts = new ConcurrentLinkedQueue<>();
    private int maxStaIo = 1;
    private int maxIoSize = DEFAULT_MAX_IO_SIZE;
    private int inCapsuleDataSize = 8192;
    private volatile long backendTimeoutNanos = 30_000_000_000L;
    private StaBackendTimeoutCallback backendTimeoutCb;

    private Sta(Dev controlDev) {
        super("sta");
        this.controlDev = controlDev;
        this.rmNsPool = registerTaskType("rm_ns", StaTaskRmNs::new);
        this.destroyQueuePool = registerTaskType("destroy_be_queue", StaTaskDestroyBeQueue::new);
    }

    /**
     * {@code doca_sta_cap_is_supported}: whether {@code info} can run the STA engine at all, i.e. serve
     * NVMe/TCP (any network device: the software device and every rdma-core device with a network
     * interface). For a given transport see {@link #capIsSupported(DevInfo, String)}.
     */
    public static boolean capIsSupported(DevInfo info) {
        return capWhyNot(info, StaQp.TRTYPE_TCP) == null;
    }

    /** Whether {@code info} can serve transport {@code trtype} ("TCP", "RDMA"); {@link #capWhyNot} says why not. */
    public static boolean capIsSupported(DevInfo info, String trtype) {
        return capWhyNot(info, trtype) == null;
    }

    /**
     * Null when {@code info} can serve {@code trtype}, else the reason in one line: NVMe/TCP runs on
     * any network device; NVMe/RDMA needs an rdma-core (verbs) device such as {@code rxe0} or
     * {@code mlx5_0}.
     */
    public static String capWhyNot(DevInfo info, String trtype) {
        if (info == null) {
            return "no device";
        }
        if (StaQp.TRTYPE_TCP.equalsIgnoreCase(trtype)) {
            return null;
        }
        if (StaQp.TRTYPE_RDMA.equalsIgnoreCase(trtype)) {
            return info.isVerbs() ? null : info.name() + " is not an RDMA device: NVMe/RDMA needs an rdma-core "
                    + "device (./jdoca devices lists them, e.g. rxe0 or mlx5_0)";
        }
        return "unknown transport " + trtype + " (TCP or RDMA)";
    }

    /** {@code doca_sta_is_logical_block_size_supported}: 512 and 4096. */
    public static boolean isLogicalBlockSizeSupported(int blockSize) {
        return blockSize == 512 || blockSize == 4096;
    }

    /**
     * {@code doca_sta_create}: the main context on the control device (PF). There is one per process
     * (the seed: "a single instance of DOCA STA context in the system"): IN_USE while another exists,
     * until it is {@link #destroy destroyed}.
     */
    public static Sta create(Dev controlDev) {
        if (controlDev == null) {
            throw new DocaException(DocaError.INVALID_VALUE, "control device required");
        }
        if (!capIsSupported(controlDev.devInfo())) {
            throw new DocaException(DocaError.NOT_SUPPORTED, "device does not support STA: " + controlDev);
        }
        Sta sta = new Sta(controlDev);
        if (!INSTANCE.compareAndSet(null, sta)) {
            throw new DocaException(DocaError.IN_USE, "a DOCA STA main context already exists in this process ("
                    + INSTANCE.get().name() + "); destroy it first");
        }
        return sta;
    }

    /** The process's one main context, held from {@link #create} to {@link #destroy}. */
    private static final AtomicReference<Sta> INSTANCE = new AtomicReference<>();

    /**
     * {@code doca_sta_destroy}: IDLE only (BAD_STATE otherwise), after every IO context was destroyed
     * (IN_USE otherwise). Frees the process's main-context slot. Control path.
     */
    public DocaError destroy() {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (!ios.isEmpty()) {
            return DocaError.IN_USE;
        }
        return INSTANCE.compareAndSet(this, null) ? DocaError.SUCCESS : DocaError.NOT_FOUND;
    }

    public Dev controlDev() {
        return controlDev;
    }

    /**
     * {@code doca_sta_add_dev}: adds a network device (SF), IDLE only. The added devices are the ones
     * the transports may use: NVMe/TCP needs one that can serve it ({@link #capIsSupported(DevInfo,
     * String)}), and an NVMe/RDMA queue pair is accepted only on an added rdma-core device (its
     * connection request arrives on a device; others are rejected). NOT_SUPPORTED for a device that
     * can serve no transport.
     */
    public DocaError addDev(Dev dev) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (dev == null) {
            return DocaError.INVALID_VALUE;
        }
        if (!capIsSupported(dev.devInfo())) {
            return DocaError.NOT_SUPPORTED;
        }
        if (devs.size() >= MAX_DEVS) {
            return DocaError.FULL;
        }
        if (devs.contains(dev)) {
            return DocaError.ALREADY_EXIST;
        }
        devs.add(dev);
        return DocaError.SUCCESS;
    }

    public List<Dev> devs() {
        return List.copyOf(devs);
    }

    /** True when the rdma-core device named {@code ibdevName} was added ({@link #addDev}): RDMA QPs may use it. */
    public boolean hasRdmaDev(String ibdevName) {
        for (Dev d : devs) {
            if (d.devInfo().isVerbs() && d.devInfo().ibdevName().equals(ibdevName)) {
                return true;
            }
        }
        return false;
    }

    /** {@code doca_sta_set_max_sta_io}: how many IO contexts may be created; IDLE only. */
    public DocaError setMaxStaIo(int n) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (n < 1 || n > MAX_IO_THREADS) {
            return DocaError.INVALID_VALUE;
        }
        maxStaIo = n;
        return DocaError.SUCCESS;
    }

    public int getMaxStaIo() {
        return maxStaIo;
    }

    /** Largest data transfer of one command (MDTS), a power of two from 4 KiB to 1 MiB; IDLE only. */
    public DocaError setMaxIoSize(int bytes) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (bytes < 4096 || bytes > (1 << 20) || Integer.bitCount(bytes) != 1) {
            return DocaError.INVALID_VALUE;
        }
        maxIoSize = bytes;
        return DocaError.SUCCESS;
    }

    /** Largest in-capsule data of an I/O command (IOCCSZ * 16 - 64); a multiple of 16, up to 64 KiB; IDLE only. */
    public DocaError setInCapsuleDataSize(int bytes) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (bytes < 0 || bytes > 65536 || bytes % 16 != 0) {
            return DocaError.INVALID_VALUE;
        }
        inCapsuleDataSize = bytes;
        return DocaError.SUCCESS;
    }

    public int inCapsuleDataSize() {
        return inCapsuleDataSize;
    }

    // ------------------------------------------------------------------ limits (doca_sta_get_max_*)

    public int getMaxDevs() {
        return MAX_DEVS;
    }

    public int getMaxSubsystems() {
        return MAX_SUBSYSTEMS;
    }

    public int getMaxNsPerSubsystem() {
        return MAX_NS_PER_SUBSYSTEM;
    }

    public int getMaxQps() {
        return MAX_QPS;
    }

    /** QPs currently alive across all IO contexts. */
    public int numQps() {
        return liveQps.get();
    }

    public int getMaxIoThreads() {
        return MAX_IO_THREADS;
    }

    public int getMaxIoSize() {
        return maxIoSize;
    }

    public int getMaxBackends() {
        return MAX_BACKENDS;
    }

    public int getMaxQueuesPerBackend() {
        return MAX_QUEUES_PER_BACKEND;
    }

    public int getMaxIoQueueSize() {
        return MAX_IO_QUEUE_SIZE;
    }

    // ------------------------------------------------------------------ subsystems and back-ends

    /** {@code doca_sta_subsystem_create}. Throws ALREADY_EXIST, FULL, INVALID_VALUE. Control path. */
    public synchronized StaSubsystem subsystemCreate(String nqn) {
        if (nqn == null || nqn.isEmpty() || nqn.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 223) {
            throw new DocaException(DocaError.INVALID_VALUE, "NQN must be 1..223 bytes");
        }
        if (subsystems.containsKey(nqn)) {
            throw new DocaException(DocaError.ALREADY_EXIST, "subsystem exists: " + nqn);
        }
        if (subsystems.size() >= MAX_SUBSYSTEMS) {
            throw new DocaException(DocaError.FULL, "too many subsystems");
        }
        StaSubsystem s = new StaSubsystem(this, nqn, MAX_NS_PER_SUBSYSTEM);
        subsystems.put(nqn, s);
        return s;
    }

    /** {@code doca_sta_subsystem_destroy}: IN_USE while it still has namespaces. */
    public synchronized DocaError subsystemDestroy(StaSubsystem s) {
        if (s == null || subsystems.get(s.nqn()) != s) {
            return DocaError.NOT_FOUND;
        }
        if (!s.namespaces().isEmpty()) {
            return DocaError.IN_USE;
        }
        subsystems.remove(s.nqn());
        return DocaError.SUCCESS;
    }

    /** The subsystem named {@code nqn}, or null. Lock-free. */
    public StaSubsystem subsystem(String nqn) {
        return nqn == null ? null : subsystems.get(nqn);
    }

    public List<StaSubsystem> subsystems() {
        List<StaSubsystem> l = new ArrayList<>(subsystems.values());
        l.sort((a, b) -> a.nqn().compareTo(b.nqn()));
        return l;
    }

    /** {@code doca_sta_be_create}: registers a back-end (memory, file, null). Control path. */
    public synchronized <B extends StaBackend> B backendCreate(B backend) {
        if (backends.size() >= MAX_BACKENDS) {
            throw new DocaException(DocaError.FULL, "too many back-ends");
        }
        backends.add(backend);
        return backend;
    }

    /** {@code doca_sta_be_destroy}: IN_USE while a namespace maps to it. */
    public synchronized DocaError backendDestroy(StaBackend backend) {
        if (!backends.contains(backend)) {
            return DocaError.NOT_FOUND;
        }
        for (StaSubsystem s : subsystems.values()) {
            for (StaNamespace ns : s.namespaces()) {
                if (ns.backend() == backend) {
                    return DocaError.IN_USE;
                }
            }
        }
        backends.remove(backend);
        return backend.destroyInternal();
    }

    public List<StaBackend> backends() {
        return List.copyOf(backends);
    }

    public List<StaIo> ioContexts() {
        return List.copyOf(ios);
    }

    // ------------------------------------------------------------------ tasks and events

    /** {@code doca_sta_subsystem_task_rm_ns_set_conf}; IDLE only. */
    public DocaError taskRmNsSetConf(TaskCallback<StaTaskRmNs> success, TaskCallback<StaTaskRmNs> error, int poolSize) {
        return rmNsPool.setConf(success, error, poolSize);
    }

    /** {@code doca_sta_subsystem_task_rm_ns_alloc_init}; null when none is free (see {@link #lastError()}). */
    public StaTaskRmNs taskRmNsAllocInit(StaNamespace ns, long userData) {
        StaTaskRmNs t = rmNsPool.alloc();
        if (t != null) {
            t.ns = ns;
            t.setUserData(userData);
        }
        return t;
    }

    /** {@code doca_sta_be_task_destroy_queue_set_conf}; IDLE only. */
    public DocaError taskDestroyBeQueueSetConf(TaskCallback<StaTaskDestroyBeQueue> success,
                                               TaskCallback<StaTaskDestroyBeQueue> error, int poolSize) {
        return destroyQueuePool.setConf(success, error, poolSize);
    }

    public StaTaskDestroyBeQueue taskDestroyBeQueueAllocInit(StaBeQueue queue, long userData) {
        StaTaskDestroyBeQueue t = destroyQueuePool.alloc();
        if (t != null) {
            t.queue = queue;
            t.setUserData(userData);
        }
        return t;
    }

    /** Registers the back-end timeout event; IDLE only. */
    public DocaError eventBackendTimeoutRegisterCb(StaBackendTimeoutCallback cb) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        backendTimeoutCb = cb;
        return DocaError.SUCCESS;
    }

    /** Back-end operations slower than this raise the timeout event (default 30 s). */
    public void setBackendTimeoutNanos(long nanos) {
        backendTimeoutNanos = nanos;
    }

    long backendTimeoutNanos() {
        return backendTimeoutNanos;
    }

    /** What the IO engines' command layers use: the current limit and this context's timeout event. */
    NvmfPollGroup.BackendTimeouts backendTimeouts() {
        return new NvmfPollGroup.BackendTimeouts() {
            @Override
            public long limitNanos() {
                return backendTimeoutNanos;
            }

            @Override
            public void onBackendTimeout(StaBeQueue queue, NvmfNamespace ns, int opcode, long elapsedNanos) {
                reportBackendTimeout(queue, ns, opcode, elapsedNanos);
            }
        };
    }

    /** Called by IO engines (rare path: allocates the event record). */
    void reportBackendTimeout(StaBeQueue q, NvmfNamespace ns, int opcode, long elapsed) {
        timeouts.add(new TimeoutEvent(q, (StaNamespace) ns, opcode, elapsed));
        if (pe() != null) {
            pe().notifyWork();
        }
    }

    private record TimeoutEvent(StaBeQueue queue, StaNamespace ns, int opcode, long elapsed) {
    }

    // ------------------------------------------------------------------ Ctx hooks

    @Override
    protected DocaError onStart() {
        if (devs.isEmpty()) {
            LOG.log(System.Logger.Level.ERROR, "STA: add a network device before start");
            return DocaError.BAD_STATE;
        }
        return DocaError.SUCCESS;
    }

    @Override
    protected DocaError checkStop() {
        for (StaIo io : ios) {
            if (io.state() != CtxState.IDLE) {
                return DocaError.BAD_STATE;
            }
        }
        return DocaError.SUCCESS;
    }

    @Override
    protected void onStop() {
    }

    @Override
    protected DocaError validateTask(Task t) {
        if (t instanceof StaTaskRmNs r && r.ns == null) {
            return DocaError.INVALID_VALUE;
        }
        if (t instanceof StaTaskDestroyBeQueue d && d.queue == null) {
            return DocaError.INVALID_VALUE;
        }
        return DocaError.SUCCESS;
    }

    @Override
    protected DocaError onSubmit(Task t) {
        if (t instanceof StaTaskRmNs r && r.ns != null) {
            r.ns.markRemoved();
        } else if (t instanceof StaTaskDestroyBeQueue d && d.queue != null) {
            d.queue.markDestroyed();
        }
        pending.add(t);
        return DocaError.SUCCESS;
    }

    @Override
    public boolean hasPendingWork() {
        return !pending.isEmpty() || !timeouts.isEmpty();
    }

    @Override
    public long maxSleepNanos() {
        return pending.isEmpty() ? Long.MAX_VALUE : 1_000_000L;
    }

    @Override
    protected int work() {
        int n = 0;
        TimeoutEvent ev;
        while ((ev = timeouts.poll()) != null) {
            if (backendTimeoutCb != null) {
                backendTimeoutCb.onBackendTimeout(ev.queue, ev.ns, ev.opcode, ev.elapsed);
            }
            n++;
        }
        int size = pending.size();
        for (int i = 0; i < size; i++) {
            Task t = pending.poll();
            boolean stopping = state() == CtxState.STOPPING;
            if (t instanceof StaTaskRmNs r) {
                if (r.ns == null) {
                    complete(t, DocaError.INVALID_VALUE);
                    n++;
                } else if (r.ns.inflight() == 0) {
                    r.ns.subsystem().detach(r.ns);
                    complete(t, DocaError.SUCCESS);
                    n++;
                } else if (stopping) {
                    complete(t, DocaError.SHUTDOWN);
                    n++;
                } else {
                    pending.add(t);
                }
            } else if (t instanceof StaTaskDestroyBeQueue d) {
                if (d.queue == null) {
                    complete(t, DocaError.INVALID_VALUE);
                    n++;
                } else if (d.queue.inflight() == 0) {
                    complete(t, DocaError.SUCCESS);
                    n++;
                } else if (stopping) {
                    complete(t, DocaError.SHUTDOWN);
                    n++;
                } else {
                    pending.add(t);
                }
            }
        }
        return n;
    }
}
