package io.jdoca.core.mem;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A memory map ({@code doca_mmap}): one contiguous memory range, the devices that may access it and
 * with which {@link AccessFlags permissions}. Buffers ({@link Buf}) point into it.
 *
 * <p><b>Local map</b>: {@link #create()} → {@link #setMemrange(MemorySegment)} → {@link #addDev} →
 * {@link #setPermissions} → {@link #start()}; then {@link #exportPci} / {@link #exportRdma} give the
 * opaque blob a peer passes to {@link #createFromExport}. Export fails with NOT_PERMITTED unless
 * the matching PCI_* / RDMA_* permission was granted. A PCI export (host memory seen by the DPU)
 * needs a range inside a {@link SharedRegion} so the importing process can map it.
 *
 * <p><b>Imported map</b> ({@link #createFromExport}): addresses are the exporter's; the permissions
 * are the exporter's. When the exporter is on this host and its range is shared memory, the map
 * also has a local mapping ({@link #segment()}); otherwise only an RDMA transport can reach it.
 *
 * <p><b>Capabilities.</b> A map's first export draws a 128-bit capability from
 * {@link SecureRandom}; every blob of the map carries it. A same-host import of shared memory
 * presents it to the region's grant table ({@link SharedMemory}) before anything is mapped, and an
 * RDMA/TCP peer presents it with every one-sided request ({@link #findExported} +
 * {@link #capabilityMatches}). Stopping the map withdraws it: later imports and requests get
 * NOT_PERMITTED. A re-export of an import passes the original map id and capability on, so the
 * next peer reaches the original memory (directly, or through this process over TCP).
 *
 * <p>Addresses: a buffer's address is {@link #baseAddress()} + offset, in the exporter's address
 * space for imports (as in DOCA, where remote addresses are the exporter's pointers).
 *
 * <p>Threads: configure and start on one thread; a started map is immutable and may be read from
 * any thread.
 */
public final class MemoryMap implements AutoCloseable {
    private static final AtomicLong NEXT_ID = new AtomicLong(System.nanoTime() & 0xffffffL);
    private static final UUID HOST = uuidOf(SharedMemory.hostId());
    private static volatile MemoryMap[] exported = new MemoryMap[0];
    private static final SecureRandom RANDOM = new SecureRandom();

    private final long id;
    private final boolean imported;
    private final List<Dev> devs = new ArrayList<>();
    private MmapState state = MmapState.CREATED;
    private MemorySegment segment;
    private long baseAddress;
    private long length;
    private int permissions = AccessFlags.LOCAL_READ_ONLY;
    private SharedRegion sharedRegion;
    private long sharedOffset;
    private MmapExport importedFrom;
    private SharedRegion importMapping;
    /** The capability (0, 0 until the first export of a local map). */
    private long cap0;
    private long cap1;
    private boolean hasCap;
    /** ibv_reg_mr registrations on the map's RDMA (verbs) devices, made at start; null when it has none. */
    private VerbsRegistration verbsReg;
    private static final System.Logger LOG = System.getLogger(MemoryMap.class.getName());

    private MemoryMap(long id, boolean imported) {
        this.id = id;
        this.imported = imported;
    }

    /** {@code doca_mmap_create}. */
    public static MemoryMap create() {
        return new MemoryMap(NEXT_ID.incrementAndGet() ^ (ProcessHandle.current().pid() << 40), false);
    }

    /** {@code doca_mmap_set_memrange}: a native segment (off-heap, or from a {@link SharedRegion}). */
    public DocaError setMemrange(MemorySegment range) {
        if (state != MmapState.CREATED || imported) {
            return DocaError.BAD_STATE;
        }
        if (range == null || !range.isNative() || range.byteSize() == 0) {
            return DocaError.INVALID_VALUE;
        }
        this.segment = range;
        this.baseAddress = range.address();
        this.length = range.byteSize();
        SharedRegion r = SharedMemory.find(baseAddress, length);
        this.sharedRegion = r;
        this.sharedOffset = r == null ? 0 : baseAddress - r.segment().address();
        return DocaError.SUCCESS;
    }

    /** {@code doca_mmap_add_dev}. */
    public DocaError addDev(Dev dev) {
        if (state != MmapState.CREATED) {
            return DocaError.BAD_STATE;
        }
        if (dev == null) {
            return DocaError.INVALID_VALUE;
        }
        if (devs.contains(dev)) {
            return DocaError.ALREADY_EXIST;
        }
        devs.add(dev);
        return DocaError.SUCCESS;
    }

    /** {@code doca_mmap_set_permissions}: OR of {@link AccessFlags}. */
    public DocaError setPermissions(int accessFlags) {
        if (state != MmapState.CREATED || imported) {
            return DocaError.BAD_STATE;
        }
        if ((accessFlags & ~AccessFlags.ALL) != 0) {
            return DocaError.INVALID_VALUE;
        }
        this.permissions = accessFlags;
        return DocaError.SUCCESS;
    }

    /** {@code doca_mmap_start}: needs a memory range and at least one device. */
    public DocaError start() {
        if (state != MmapState.CREATED) {
            return DocaError.BAD_STATE;
        }
        if (segment == null || devs.isEmpty()) {
            return DocaError.INVALID_VALUE;
        }
        int nv = 0;
        for (Dev d : devs) {
            nv += d.devInfo().isVerbs() ? 1 : 0;
        }
        if (nv > 0 && !imported) {
            // An RDMA device reaches the range only once it is registered (pinned, translated, keyed).
            io.jdoca.core.dev.DevInfo[] vd = new io.jdoca.core.dev.DevInfo[nv];
            int k = 0;
            for (Dev d : devs) {
                if (d.devInfo().isVerbs() && !java.util.Arrays.asList(vd).contains(d.devInfo())) {
                    vd[k++] = d.devInfo();
                }
            }
            VerbsRegistration.Result r = VerbsRegistration.register(java.util.Arrays.copyOf(vd, k), segment,
                    permissions);
            if (r.reg() == null) {
                LOG.log(System.Logger.Level.WARNING, "memory map start: " + r.why());
                return r.error();
            }
            verbsReg = r.reg();
        }
        state = MmapState.STARTED;
        return DocaError.SUCCESS;
    }

    /** {@code doca_mmap_stop}; buffers must no longer be used. */
    public DocaError stop() {
        if (state != MmapState.STARTED) {
            return DocaError.BAD_STATE;
        }
        state = MmapState.STOPPED;
        unregisterExported(this);
        if (verbsReg != null) {
            // Deregistered here, before the caller frees the memory (the device must not touch it afterwards).
            VerbsRegistration r = verbsReg;
            verbsReg = null;
            try {
                r.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "memory map stop: " + e.getMessage());
            }
        }
        if (sharedRegion != null && hasCap && !imported) {
            SharedMemory.revoke(sharedRegion, id);
        }
        if (importMapping != null) {
            importMapping.close();
        }
        return DocaError.SUCCESS;
    }

    /** {@code doca_mmap_destroy}: stops if needed. The memory itself belongs to the caller. */
    @Override
    public void close() {
        if (state == MmapState.STARTED) {
            stop();
        } else {
            state = MmapState.STOPPED;
        }
    }

    /** {@code doca_mmap_export_pci}: for the DPU side of this host. Needs PCI_READ_ONLY or PCI_READ_WRITE. */
    public byte[] exportPci(Dev dev) {
        return export(MmapExport.Kind.PCI, dev, AccessFlags.ANY_PCI);
    }

    /** {@code doca_mmap_export_rdma}: for an RDMA peer. Needs RDMA_READ, RDMA_WRITE or RDMA_ATOMIC. */
    public byte[] exportRdma(Dev dev) {
        return export(MmapExport.Kind.RDMA, dev, AccessFlags.ANY_RDMA);
    }

    private byte[] export(MmapExport.Kind kind, Dev dev, int needed) {
        if (state != MmapState.STARTED) {
            throw new DocaException(DocaError.BAD_STATE, "export of a memory map that is not started");
        }
        if (!imported && !devs.contains(dev)) {
            throw new DocaException(DocaError.NOT_PERMITTED, "export through device " + dev
                    + " that was not added to the map");
        }
        if ((permissions & needed) == 0) {
            throw new DocaException(DocaError.NOT_PERMITTED, kind + " export needs " + AccessFlags.toString(needed)
                    + " but the map grants " + AccessFlags.toString(permissions));
        }
        if (!hasCap) {
            // Drawn once per map: every export of it carries the same capability until it stops.
            do {
                cap0 = RANDOM.nextLong();
                cap1 = RANDOM.nextLong();
            } while ((cap0 | cap1) == 0);
            hasCap = true;
        }
        boolean shared;
        long shOff;
        long regionPid;
        long regionSeq;
        if (imported) {
            // Re-export of an import (the zero-copy relay): point the peer at the original region when
            // this process maps it (same host), with the original map id and capability, so a
            // shared-memory peer reaches the memory directly and the owner's grant admits it.
            MmapExport f = importedFrom;
            shared = f.shared() && segment != null;
            shOff = shared ? f.shmOffset() : 0;
            regionPid = shared ? f.regionPid() : 0;
            regionSeq = shared ? f.regionSeq() : 0;
        } else {
            shared = sharedRegion != null;
            shOff = shared ? sharedOffset : 0;
            regionPid = shared ? sharedRegion.ownerPid() : 0;
            regionSeq = shared ? sharedRegion.sequence() : 0;
        }
        if (kind == MmapExport.Kind.PCI && !shared) {
            throw new DocaException(DocaError.NOT_SUPPORTED,
                    "PCI export needs a memory range in shared memory (allocate it with SharedMemory.allocate)");
        }
        if (shared && !imported) {
            SharedMemory.grant(sharedRegion, id, shOff, length, cap0, cap1);
        }
        // A re-exported import is registered too: this process (the re-exporter, named as the exporter
        // below) answers a TCP peer's requests for it through its own mapping, as a DPU's NIC reaches
        // host memory it imported.
        registerExported(this);
        long pid = ProcessHandle.current().pid();
        // An RDMA export of a map registered on a verbs device carries the rkey the peer's work requests need.
        int rkey = -1;
        if (kind == MmapExport.Kind.RDMA) {
            if (imported && importedFrom.verbs()) {
                rkey = importedFrom.rkey();
            } else if (imported) {
                rkey = reexportKey(dev);
            } else if (verbsReg != null) {
                rkey = verbsReg.rkey(dev != null && dev.devInfo().isVerbs() ? dev.devInfo() : null);
            }
        }
        boolean verbs = rkey != -1;
        return new MmapExport(kind, shared, permissions, pid, id, baseAddress, length, shOff, HOST, regionPid,
                regionSeq,
                cap0, cap1, verbs, verbs ? rkey : 0).encode();
    }

    /**
     * The rkey an RDMA re-export of this import carries on {@code dev}, or -1. A PCI export the DPU
     * re-exports for RDMA (DOCA's zero-copy: {@code doca_mmap_create_from_export} then
     * {@code doca_mmap_export_rdma}) lets the storage target move data straight into host memory; on a
     * verbs device that needs this process's mapping of that memory registered there, and under the
     * exporter's addresses ({@code ibv_reg_mr_iova} with the exporter's base address), because those are
     * the addresses every buffer of the map, and every peer's work request, carries. Registered once, at
     * the first such export; deregistered by {@link #stop()} before the mapping goes. -1 (no key: the
     * software transports reach the memory through this process) for a software device or an import
     * this process cannot map.
     */
    private int reexportKey(Dev dev) {
        if (dev == null || !dev.devInfo().isVerbs() || segment == null) {
            return -1;
        }
        if (verbsReg == null) {
            VerbsRegistration.Result r = VerbsRegistration.register(new io.jdoca.core.dev.DevInfo[] {dev.devInfo()},
                    segment, permissions, baseAddress);
            if (r.reg() == null) {
                throw new DocaException(r.error(), "RDMA re-export of an imported map: " + r.why());
            }
            verbsReg = r.reg();
        }
        int k = verbsReg.rkey(dev.devInfo());
        if (k == -1) {
            throw new DocaException(DocaError.NOT_SUPPORTED, "an imported map is re-exported on one RDMA device only,"
                    + " not also on " + dev.devInfo().name());
        }
        return k;
    }

    /**
     * {@code doca_mmap_create_from_export}: the peer's map, started. PCI exports must come from this
     * host (NOT_SUPPORTED otherwise). Throws {@link DocaException}: INVALID_VALUE for a malformed
     * blob, UNSUPPORTED_VERSION for another blob version, NOT_PERMITTED when the exporter's region
     * refuses the blob's capability (wrong, or withdrawn: a stale or replayed blob), NOT_FOUND if
     * the exporter's memory is gone.
     */
    public static MemoryMap createFromExport(byte[] blob, Dev dev) {
        return createFromExport(blob, dev, null);
    }

    /**
     * {@link #createFromExport(byte[], Dev)}, naming the peer the blob came from (e.g. its socket
     * address) in the log line of a refused import.
     */
    public static MemoryMap createFromExport(byte[] blob, Dev dev, String peer) {
        MmapExport e = MmapExport.decode(blob);
        MemoryMap m = new MemoryMap(e.mapId(), true);
        m.importedFrom = e;
        m.baseAddress = e.baseAddress();
        m.length = e.length();
        m.permissions = e.permissions();
        m.cap0 = e.cap0();
        m.cap1 = e.cap1();
        m.hasCap = true;
        if (dev != null) {
            m.devs.add(dev);
        }
        boolean local = e.isSameHost() && e.shared();
        if (e.kind() == MmapExport.Kind.PCI && !local) {
            throw new DocaException(DocaError.NOT_SUPPORTED,
                    "a PCI export can only be imported on the exporter's host");
        }
        if (local) {
            m.importMapping = SharedMemory.mapGranted(e.regionPid(), e.regionSeq(), e.mapId(), e.cap0(), e.cap1(),
                    e.shmOffset(), e.length(), peer);
            m.segment = m.importMapping.segment();
        }
        m.state = MmapState.STARTED;
        return m;
    }

    // ------------------------------------------------------------------ queries

    public MmapState state() {
        return state;
    }

    public boolean isStarted() {
        return state == MmapState.STARTED;
    }

    /** Process-unique id; RDMA peers address an exported map by it. */
    public long id() {
        return id;
    }

    public boolean isImported() {
        return imported;
    }

    /** The export this map was created from, or null for a local map. */
    public MmapExport importedFrom() {
        return importedFrom;
    }

    /** The memory, mapped in this process; null for an import that cannot be mapped here (remote host). */
    public MemorySegment segment() {
        return segment;
    }

    /** True if this process can read and write the memory directly. */
    public boolean isLocallyAccessible() {
        return segment != null;
    }

    /** {@code doca_mmap_get_memrange}: start address (the exporter's, for an import). */
    public long baseAddress() {
        return baseAddress;
    }

    public long length() {
        return length;
    }

    public int permissions() {
        return permissions;
    }

    public boolean hasPermission(int flag) {
        return (permissions & flag) == flag;
    }

    public boolean hasDev(Dev dev) {
        return devs.contains(dev);
    }

    /** True if {@code [address, address+len)} lies inside the map. Allocation-free. */
    public boolean contains(long address, long len) {
        return len >= 0 && address >= baseAddress && address - baseAddress <= length - len;
    }

    /** The shared region this local map's range lies in, or null. */
    public SharedRegion sharedRegion() {
        return sharedRegion;
    }

    // ------------------------------------------------------------------ verbs registration

    /** True if this local map is registered on at least one RDMA (verbs) device. */
    public boolean isVerbsRegistered() {
        return verbsReg != null;
    }

    /**
     * The lkey of this local map on the RDMA device {@code dev} ({@code ibv_mr.lkey}), or -1 when it is not
     * registered there (a software device, an import, a stopped map). Allocation-free; any thread.
     */
    public int verbsLkey(io.jdoca.core.dev.DevInfo dev) {
        VerbsRegistration r = verbsReg;
        return r == null ? -1 : r.lkey(dev);
    }

    /**
     * The remote key of an imported map ({@code ibv_mr.rkey} of the exporter's registration, carried in its RDMA
     * export), or -1 when the export carried none (the exporter's map is not on a verbs device). Allocation-free.
     */
    public int verbsRemoteKey() {
        MmapExport e = importedFrom;
        return e != null && e.verbs() ? e.rkey() : -1;
    }

    // ------------------------------------------------------------------ export registry (RDMA over TCP)

    /** The started local map exported with {@code id}, or null. Allocation-free, any thread. */
    public static MemoryMap findExported(long id) {
        MemoryMap[] a = exported;
        for (int i = 0; i < a.length; i++) {
            if (a[i].id == id) {
                return a[i];
            }
        }
        return null;
    }

    /**
     * True if {@code (c0, c1)} is this exported map's capability. Constant-time, allocation-free,
     * any thread; false for a map never exported.
     */
    public boolean capabilityMatches(long c0, long c1) {
        return hasCap & (((cap0 ^ c0) | (cap1 ^ c1)) == 0);
    }

    private static synchronized void registerExported(MemoryMap m) {
        for (MemoryMap x : exported) {
            if (x == m) {
                return;
            }
        }
        MemoryMap[] b = java.util.Arrays.copyOf(exported, exported.length + 1);
        b[exported.length] = m;
        exported = b;
    }

    private static synchronized void unregisterExported(MemoryMap m) {
        exported = java.util.Arrays.stream(exported).filter(x -> x != m).toArray(MemoryMap[]::new);
    }

    static UUID localHostUuid() {
        return HOST;
    }

    private static UUID uuidOf(String s) {
        try {
            return UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            return UUID.nameUUIDFromBytes(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    @Override
    public String toString() {
        return "MemoryMap[" + (imported ? "imported " : "") + Long.toHexString(baseAddress) + "+" + length + ", "
                + AccessFlags.toString(permissions) + ", " + state + "]";
    }
}
