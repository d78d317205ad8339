package io.jdoca.core.mem;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The opaque descriptor blob of an exported memory map ({@code doca_mmap_export_pci} /
 * {@code _rdma}): what travels in {@code init_storage_request} and is given to
 * {@link MemoryMap#createFromExport}. jdoca's own layout (DOCA's is opaque too), little-endian:
 *
 * <pre>
 *   off size field
 *    0   4   magic 'JDMM' (0x4D4D444A as LE u32)
 *    4   2   version (1)
 *    6   1   kind: 1 = PCI, 2 = RDMA
 *    7   1   flags: bit 0 = backed by a shared-memory file
 *    8   4   access permissions (AccessFlags)
 *   12   4   exporter pid
 *   16   8   map id (exporter-unique; RDMA/TCP peers address the map by it)
 *   24   8   base address (exporter's address space; buffers on the import use these addresses)
 *   32   8   length
 *   40   8   offset of the range in the shared-memory file
 *   48  16   host id (boot id UUID): same host ⇒ the file can be mapped
 *   64   2   path length n (≤ 4096)
 *   66   n   shared-memory file path, UTF-8
 * </pre>
 */
public record MmapExport(Kind kind, boolean shared, int permissions, long pid, long mapId, long baseAddress,
        long length, long shmOffset, UUID hostId, String shmPath) {

    public static final int MAGIC = 0x4D4D444A;
    public static final int VERSION = 1;
    static final int HEADER = 66;
    static final int MAX_PATH = 4096;

    /** What the export was made for. */
    public enum Kind {
        PCI(1),
        RDMA(2);

        final int code;

        Kind(int code) {
            this.code = code;
        }
    }

    public byte[] encode() {
        byte[] path = shmPath == null ? new byte[0] : shmPath.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[HEADER + path.length];
        MemorySegment s = MemorySegment.ofArray(out);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 0, MAGIC);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 4, (short) VERSION);
        s.set(ValueLayout.JAVA_BYTE, 6, (byte) kind.code);
        s.set(ValueLayout.JAVA_BYTE, 7, (byte) (shared ? 1 : 0));
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 8, permissions);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 12, (int) pid);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, mapId);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 24, baseAddress);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 32, length);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 40, shmOffset);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 48, hostId.getMostSignificantBits());
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 56, hostId.getLeastSignificantBits());
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 64, (short) path.length);
        MemorySegment.copy(path, 0, s, ValueLayout.JAVA_BYTE, HEADER, path.length);
        return out;
    }

    /** Parses a blob from a peer; INVALID_VALUE (as an exception: control path) on anything malformed. */
    public static MmapExport decode(byte[] blob) {
        if (blob == null || blob.length < HEADER) {
            throw bad("blob too short (" + (blob == null ? 0 : blob.length) + " bytes)");
        }
        MemorySegment s = MemorySegment.ofArray(blob);
        if (s.get(ValueLayout.JAVA_INT_UNALIGNED, 0) != MAGIC) {
            throw bad("bad magic");
        }
        int version = s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 4);
        if (version != VERSION) {
            throw new DocaException(DocaError.UNSUPPORTED_VERSION, "memory map export version " + version);
        }
        int k = s.get(ValueLayout.JAVA_BYTE, 6);
        Kind kind = k == 1 ? Kind.PCI : k == 2 ? Kind.RDMA : null;
        if (kind == null) {
            throw bad("unknown export kind " + k);
        }
        int flags = s.get(ValueLayout.JAVA_BYTE, 7);
        long length = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 32);
        long shmOffset = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 40);
        int pathLen = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 64));
        if (pathLen > MAX_PATH || HEADER + pathLen != blob.length) {
            throw bad("bad path length " + pathLen);
        }
        if (length <= 0 || shmOffset < 0) {
            throw bad("bad range");
        }
        String path = pathLen == 0 ? null : new String(blob, HEADER, pathLen, StandardCharsets.UTF_8);
        boolean shared = (flags & 1) != 0;
        if (shared && path == null) {
            throw bad("shared export without a path");
        }
        return new MmapExport(kind, shared, s.get(ValueLayout.JAVA_INT_UNALIGNED, 8),
                Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED, 12)),
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, 16), s.get(ValueLayout.JAVA_LONG_UNALIGNED, 24), length, shmOffset,
                new UUID(s.get(ValueLayout.JAVA_LONG_UNALIGNED, 48), s.get(ValueLayout.JAVA_LONG_UNALIGNED, 56)), path);
    }

    /** True if the exporter runs on this host, so its shared-memory file can be mapped here. */
    public boolean isSameHost() {
        return hostId.equals(MemoryMap.localHostUuid());
    }

    private static DocaException bad(String why) {
        return new DocaException(DocaError.INVALID_VALUE, "malformed memory map export: " + why);
    }
}
