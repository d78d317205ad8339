package io.jdoca.core.mem;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
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
            throw new DocaException(DocaError.NOT_PERMITTED, "export through device " + dev + " that was not added to the map");
        }
        if ((permissions & needed) == 0) {
            throw new DocaException(DocaError.NOT_PERMITTED, kind + " export needs " + AccessFlags.toString(needed)
                    + " but the map grants " + AccessFlags.toString(permissions));
        }
        SharedRegion shared = sharedRegion;
        long shOff = sharedOffset;
        String path = shared == null ? null : shared.path().toString();
        if (imported) {
            // Re-export of an import (the zero-copy relay): point the peer at the original file when
            // this process maps it (same host), so a shared-memory peer reaches the memory directly.
            path = importedFrom.shared() && segment != null ? importedFrom.shmPath() : null;
            shOff = importedFrom.shmOffset();
        }
        if (kind == MmapExport.Kind.PCI && path == null) {
            throw new DocaException(DocaError.NOT_SUPPORTED,
                    "PCI export needs a memory range in shared memory (allocate it with SharedMemory.allocate)");
        }
        // A re-exported import is registered too: this process (the re-exporter, named as the exporter
        // below) answers a TCP peer's requests for it through its own mapping, as a DPU's NIC reaches
        // host memory it imported.
        registerExported(this);
        long pid = ProcessHandle.current().pid();
        long mapId = imported ? importedFrom.mapId() : id;
        return new MmapExport(kind, path != null, permissions, pid, mapId, baseAddress, length, shOff, HOST, path).encode();
    }

    /**
     * {@code doca_mmap_create_from_export}: the peer's map, started. PCI exports must come from this
     * host (NOT_SUPPORTED otherwise). Throws {@link DocaException} (INVALID_VALUE for a malformed
     * blob, NOT_FOUND if the exporter's memory is gone).
     */
    public static MemoryMap createFromExport(byte[] blob, Dev dev) {
        MmapExport e = MmapExport.decode(blob);
        MemoryMap m = new MemoryMap(e.mapId(), true);
        m.importedFrom = e;
        m.baseAddress = e.baseAddress();
        m.length = e.length();
        m.permissions = e.permissions();
        if (dev != null) {
            m.devs.add(dev);
        }
        boolean local = e.isSameHost() && e.shared();
        if (e.kind() == MmapExport.Kind.PCI && !local) {
            throw new DocaException(DocaError.NOT_SUPPORTED, "a PCI export can only be imported on the exporter's host");
        }
        if (local) {
            m.importMapping = SharedMemory.mapExisting(Path.of(e.shmPath()), e.shmOffset(), e.length());
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
