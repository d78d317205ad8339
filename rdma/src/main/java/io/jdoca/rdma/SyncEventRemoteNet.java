package io.jdoca.rdma;

import io.jdoca.core.DocaException;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.mem.MemoryMap;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A handle on a peer's sync event ({@code doca_sync_event_remote_net}), for the remote sync event
 * tasks: created from the blob {@link NetSyncEvent#exportToRemoteNet()} made on the peer. The event
 * is a 64-bit value in the peer's exported memory.
 *
 * <p>Blob layout (made by {@link NetSyncEvent#exportToRemoteNet()} and by core's
 * {@code SyncEvent.exportToRemoteNet()}): u64 event address (exporter's address space, LE), then
 * the exporter's RDMA memory map export ({@link io.jdoca.core.mem.MmapExport}) of the event's 8
 * bytes. Its capability travels with every remote sync event task, checked by the exporter like any
 * one-sided access. Immutable after creation; close on the control path.
 */
public final class SyncEventRemoteNet implements AutoCloseable {
    private final MemoryMap map;
    private final long address;

    private SyncEventRemoteNet(MemoryMap map, long address) {
        this.map = map;
        this.address = address;
    }

    /** {@code doca_sync_event_remote_net_create_from_export}; INVALID_VALUE for a malformed blob. */
    public static SyncEventRemoteNet createFromExport(byte[] blob, Dev dev) {
        if (blob == null || blob.length < 8 + 6) {
            throw new DocaException(DocaError.INVALID_VALUE, "remote sync event blob of " + (blob == null
                    ? 0 : blob.length)
                    + " bytes, expected " + (8 + io.jdoca.core.mem.MmapExport.SIZE)
                    + " (u64 address + memory map export; from exportToRemoteNet)");
        }
        long addr = MemorySegment.ofArray(blob).get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        MemoryMap m = MemoryMap.createFromExport(Arrays.copyOfRange(blob, 8, blob.length), dev);
        if (!m.contains(addr, 8)) {
            m.close();
            throw new DocaException(DocaError.INVALID_VALUE, "remote sync event address outside its memory map");
        }
        return new SyncEventRemoteNet(m, addr);
    }

    static byte[] encode(long address, byte[] mmapBlob) {
        byte[] out = new byte[8 + mmapBlob.length];
        MemorySegment.ofArray(out).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, address);
        System.arraycopy(mmapBlob, 0, out, 8, mmapBlob.length);
        return out;
    }

    /** The imported map holding the event. */
    public MemoryMap mmap() {
        return map;
    }

    /** The event's address in the exporter's address space. */
    public long address() {
        return address;
    }

    @Override
    public void close() {
        map.close();
    }
}
