package io.jdoca.rdma;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A local sync event ({@code doca_sync_event}) that RDMA peers may get, set and add to through the
 * remote-net-sync-event tasks: a 64-bit value in shared memory, registered in an exported memory map
 * (RDMA_READ | RDMA_WRITE | RDMA_ATOMIC). Local access is atomic; thread-safe.
 */
public final class NetSyncEvent implements AutoCloseable {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final SharedRegion region;
    private final MemoryMap map;
    private final Dev dev;
    private final MemorySegment seg;

    private NetSyncEvent(Dev dev) {
        this.dev = dev;
        this.region = SharedMemory.allocate(4096);
        this.seg = region.segment().asSlice(0, 8);
        this.map = MemoryMap.create();
        map.setMemrange(seg);
        map.addDev(dev);
        map.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA);
        DocaError e = map.start();
        if (e != DocaError.SUCCESS) {
            region.close();
            throw new DocaException(e, "cannot start the sync event's memory map");
        }
    }

    /** {@code doca_sync_event_create} + {@code add_publisher_location_remote_net}. */
    public static NetSyncEvent create(Dev dev) {
        return new NetSyncEvent(dev);
    }

    /** {@code doca_sync_event_export_to_remote_net}: the blob for {@link SyncEventRemoteNet#createFromExport}. */
    public byte[] exportToRemoteNet() {
        return SyncEventRemoteNet.encode(map.baseAddress(), map.exportRdma(dev));
    }

    /** {@code doca_sync_event_get}. */
    public long get() {
        return (long) LONG.getVolatile(seg, 0L);
    }

    /** {@code doca_sync_event_update_set}. */
    public void set(long v) {
        LONG.setVolatile(seg, 0L, v);
    }

    /** {@code doca_sync_event_update_add}: returns the previous value. */
    public long add(long v) {
        return (long) LONG.getAndAdd(seg, 0L, v);
    }

    /** {@code doca_sync_event_wait_gt}-style bounded wait: true once the value is ≥ {@code v}. Control path. */
    public boolean waitGe(long v, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (get() < v) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(50_000);
        }
        return true;
    }

    @Override
    public void close() {
        map.close();
        region.close();
    }
}
