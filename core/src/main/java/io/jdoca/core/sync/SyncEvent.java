package io.jdoca.core.sync;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.MmapExport;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A sync event ({@code doca_sync_event}): a 64-bit counter that publishers set or add to and
 * subscribers read or wait on, in this process or another one on this host.
 *
 * <p>Configure the publisher and subscriber locations ({@code add*Location*}); a location in
 * another process (PCI: the other side of host/DPU on one machine; remote net: an RDMA peer) puts
 * the counter in shared memory so it can be exported. Then either {@link #start()} for the
 * synchronous API ({@link #get}, {@link #updateSet}, {@link #updateAdd}, {@link #waitGt} ...) or
 * {@link #asCtx()} for asynchronous tasks on a progress engine.
 *
 * <p>Thread rules: the counter operations are atomic (8-byte aligned, volatile/CAS) and may be
 * called from any thread or process; configuration and start/stop on one thread.
 */
public final class SyncEvent implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private SyncEventState state = SyncEventState.CREATED;
    private boolean remotePci;
    private boolean remoteNet;
    private boolean publisherSet;
    private boolean subscriberSet;
    private MemorySegment counter;
    private SharedRegion region;
    private Arena arena;
    private MemorySegment userAddr;
    /** The map the counter is exported through (an import's own map for an imported event). */
    private MemoryMap exportMap;
    private Dev localDev;
    private Dev exportDev;
    private final boolean imported;
    private SyncEventCtx ctx;

    private SyncEvent(boolean imported) {
        this.imported = imported;
    }

    /** {@code doca_sync_event_create}. */
    public static SyncEvent create() {
        return new SyncEvent(false);
    }

    // ------------------------------------------------------------------ configuration

    public DocaError addPublisherLocationCpu(Dev dev) {
        return configure(() -> {
            publisherSet = true;
            localDev = localDev == null ? dev : localDev;
        });
    }

    /** The publisher is in another process on this host (the PCI peer). */
    public DocaError addPublisherLocationRemotePci() {
        return configure(() -> {
            publisherSet = true;
            remotePci = true;
        });
    }

    public DocaError addSubscriberLocationCpu(Dev dev) {
        return configure(() -> {
            subscriberSet = true;
            localDev = localDev == null ? dev : localDev;
        });
    }

    /** The subscriber is in another process on this host (the PCI peer). */
    public DocaError addSubscriberLocationRemotePci() {
        return configure(() -> {
            subscriberSet = true;
            remotePci = true;
        });
    }

    /** The event is also updated or read by an RDMA peer ({@code remote_net_sync_event} tasks). */
    public DocaError addSubscriberLocationRemoteNet() {
        return configure(() -> {
            subscriberSet = true;
            remoteNet = true;
        });
    }

    /**
     * {@code doca_sync_event_set_addr}: use 8 caller-owned bytes (8-aligned, native) as the counter.
     * If they lie in a {@link SharedRegion}, the event is exportable.
     */
    public DocaError setAddr(MemorySegment eightBytes) {
        if (state != SyncEventState.CREATED) {
            return DocaError.BAD_STATE;
        }
        if (eightBytes == null || !eightBytes.isNative() || eightBytes.byteSize() < 8
                || (eightBytes.address() & 7) != 0) {
            return DocaError.INVALID_VALUE;
        }
        userAddr = eightBytes.asSlice(0, 8);
        return DocaError.SUCCESS;
    }

    private DocaError configure(Runnable r) {
        if (state != SyncEventState.CREATED || imported) {
            return DocaError.BAD_STATE;
        }
        r.run();
        return DocaError.SUCCESS;
    }

    private DocaError allocateCounter() {
        if (!imported && (!publisherSet || !subscriberSet)) {
            return DocaError.BAD_STATE;
        }
        if (counter != null) {
            return DocaError.SUCCESS;
        }
        if (userAddr != null) {
            counter = userAddr;
        } else if (remotePci || remoteNet) {
            region = SharedMemory.allocate(4096);
            counter = region.segment().asSlice(0, 8);
        } else {
            arena = Arena.ofShared();
            counter = arena.allocate(8, 64);
        }
        return DocaError.SUCCESS;
    }

    /** {@code doca_sync_event_start}: synchronous mode. BAD_STATE without both locations configured. */
    public DocaError start() {
        if (state != SyncEventState.CREATED) {
            return DocaError.BAD_STATE;
        }
        DocaError e = allocateCounter();
        if (e == DocaError.SUCCESS) {
            state = SyncEventState.STARTED;
        }
        return e;
    }

    /**
     * {@code doca_sync_event_as_ctx}: the asynchronous form, a context with get / notify-set /
     * notify-add / wait tasks. Connect it to a progress engine and start it like any context.
     */
    public SyncEventCtx asCtx() {
        if (ctx != null) {
            return ctx;
        }
        if (state != SyncEventState.CREATED) {
            throw new DocaException(DocaError.BAD_STATE, "sync event already started in synchronous mode");
        }
        DocaException.check(allocateCounter(), "sync event locations not configured");
        state = SyncEventState.AS_CTX;
        ctx = new SyncEventCtx(this);
        return ctx;
    }

    /** {@code doca_sync_event_stop}. */
    public DocaError stop() {
        if (state != SyncEventState.STARTED && state != SyncEventState.AS_CTX) {
            return DocaError.BAD_STATE;
        }
        state = SyncEventState.STOPPED;
        if (!imported) {
            // Withdraws the export's capability: peers' later imports and requests are refused.
            closeExportMap();
        }
        return DocaError.SUCCESS;
    }

    private void closeExportMap() {
        if (exportMap != null) {
            exportMap.close();
            exportMap = null;
        }
    }

    /** {@code doca_sync_event_destroy}: stops and releases the counter's memory. */
    @Override
    public void close() {
        state = SyncEventState.STOPPED;
        closeExportMap();
        if (region != null) {
            region.close();
        }
        if (arena != null) {
            arena.close();
        }
    }

    public SyncEventState state() {
        return state;
    }

    // ------------------------------------------------------------------ export / import

    /**
     * {@code doca_sync_event_export_to_remote_pci}: a blob another process on this host turns into
     * the same event with {@link #createFromExport}. NOT_PERMITTED unless a remote PCI location was
     * configured (the counter must live in shared memory).
     */
    public byte[] exportToRemotePci(Dev dev) {
        return export(MmapExport.Kind.PCI, remotePci, dev);
    }

    /**
     * {@code doca_sync_event_export_to_remote_net}: for an RDMA peer's remote-sync-event tasks, the
     * blob {@code SyncEventRemoteNet.createFromExport} (module rdma) reads: u64 counter address
     * (this process's address space, LE), then the RDMA memory map export of the counter's 8 bytes
     * (its capability guards the peer's access as for any exported map).
     */
    public byte[] exportToRemoteNet() {
        byte[] map = export(MmapExport.Kind.RDMA, remoteNet || remotePci, localDev);
        byte[] out = new byte[8 + map.length];
        MemorySegment.ofArray(out).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, counter.address());
        System.arraycopy(map, 0, out, 8, map.length);
        return out;
    }

    private byte[] export(MmapExport.Kind kind, boolean configured, Dev dev) {
        if (state != SyncEventState.STARTED && state != SyncEventState.AS_CTX) {
            throw new DocaException(DocaError.BAD_STATE, "sync event must be started before export");
        }
        if (!imported && (!configured || (region == null && SharedMemory.find(counter.address(), 8) == null))) {
            throw new DocaException(DocaError.NOT_PERMITTED,
                    "sync event was not configured for a remote location, its counter is not shareable");
        }
        if (exportMap == null) {
            // The counter is exported as an 8-byte memory map: its grant and capability are the map's.
            Dev d = dev != null ? dev : localDev != null ? localDev : Devices.list().getFirst().open();
            MemoryMap m = MemoryMap.create();
            m.setMemrange(counter);
            m.addDev(d);
            m.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_ATOMIC | AccessFlags.RDMA_READ
                    | AccessFlags.RDMA_WRITE | AccessFlags.PCI_READ_WRITE);
            DocaException.check(m.start(), "cannot start the sync event's export map");
            exportMap = m;
            exportDev = d;
        }
        // The export map holds one device, the one it was created with; an import needs none.
        Dev d = exportMap.isImported() ? null : exportDev;
        return kind == MmapExport.Kind.PCI ? exportMap.exportPci(d) : exportMap.exportRdma(d);
    }

    /**
     * {@code doca_sync_event_create_from_export}: the peer's event, already started (synchronous
     * mode; {@link #asCtx()} is not available on an import). NOT_SUPPORTED from another host;
     * NOT_PERMITTED when the exporter refuses the blob's capability.
     */
    public static SyncEvent createFromExport(Dev dev, byte[] blob) {
        MmapExport e = MmapExport.decode(blob);
        if (e.length() != 8 || !e.shared()) {
            throw new DocaException(DocaError.INVALID_VALUE, "not a sync event export");
        }
        if (!e.isSameHost()) {
            throw new DocaException(DocaError.NOT_SUPPORTED, "sync event exported from another host");
        }
        SyncEvent s = new SyncEvent(true);
        s.exportMap = MemoryMap.createFromExport(blob, dev);
        s.counter = s.exportMap.segment();
        s.state = SyncEventState.STARTED;
        return s;
    }

    /** The 8 bytes of the counter (for transports that update it remotely). */
    public MemorySegment segment() {
        return counter;
    }

    // ------------------------------------------------------------------ synchronous data path (allocation-free)

    /** {@code doca_sync_event_get}. */
    public long get() {
        return (long) LONG.getVolatile(counter, 0L);
    }

    /** {@code doca_sync_event_update_set}. */
    public void updateSet(long value) {
        LONG.setVolatile(counter, 0L, value);
    }

    /** {@code doca_sync_event_update_add}: atomically adds; returns the value before the add. */
    public long updateAdd(long delta) {
        return (long) LONG.getAndAdd(counter, 0L, delta);
    }

    /** {@code doca_sync_event_wait_gt}: busy-waits until the value is greater than {@code value}. */
    public void waitGt(long value) {
        while (get() <= value) {
            Thread.onSpinWait();
        }
    }

    /** {@code doca_sync_event_wait_gt_yield}: waits yielding the CPU between polls. */
    public void waitGtYield(long value) {
        while (get() <= value) {
            Thread.yield();
        }
    }

    /** Waits (backing off to short sleeps) until the value is greater than {@code value}; false on timeout. */
    public boolean waitGt(long value, long timeoutNanos) {
        return await(value, -1L, WaitCondition.GT, timeoutNanos);
    }

    /** Waits until {@code (value & mask) == (expected & mask)}; false on timeout. */
    public boolean waitEq(long expected, long mask, long timeoutNanos) {
        return await(expected, mask, WaitCondition.EQ, timeoutNanos);
    }

    /** Waits until {@code (value & mask) != (expected & mask)}; false on timeout. */
    public boolean waitNeq(long expected, long mask, long timeoutNanos) {
        return await(expected, mask, WaitCondition.NEQ, timeoutNanos);
    }

    private boolean await(long v, long mask, WaitCondition c, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        int spins = 0;
        while (!c.holds(get(), v, mask)) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(20_000);
            }
        }
        return true;
    }

    /** The conditions a wait can test. */
    public enum WaitCondition {
        GT,
        EQ,
        NEQ;

        public boolean holds(long current, long value, long mask) {
            return switch (this) {
                case GT -> current > value;
                case EQ -> (current & mask) == (value & mask);
                case NEQ -> (current & mask) != (value & mask);
            };
        }
    }
}
