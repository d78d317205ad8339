package io.jdoca.core.mem;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.UUID;

/**
 * The opaque descriptor blob of an exported memory map ({@code doca_mmap_export_pci} /
 * {@code _rdma}): what travels in {@code init_storage_request} and is given to
 * {@link MemoryMap#createFromExport}. jdoca's own layout (DOCA's is opaque too), little-endian,
 * fixed size {@value #SIZE} bytes:
 *
 * <pre>
 *   off size field
 *    0   4   magic 'JDMM' (0x4D4D444A as LE u32)
 *    4   2   version (2; version 1 named a file path and is refused)
 *    6   1   kind: 1 = PCI, 2 = RDMA
 *    7   1   flags: bit 0 = backed by a jdoca shared-memory region; bit 1 = registered on an RDMA
 *            (verbs) device: offset 68 holds the rkey ({@code ibv_reg_mr})
 *    8   4   access permissions (AccessFlags)
 *   12   4   exporter pid (the process that answers RDMA/TCP requests for the map)
 *   16   8   map id (exporter-unique; RDMA/TCP peers address the map by it)
 *   24   8   base address (exporter's address space; buffers on the import use these addresses)
 *   32   8   length
 *   40   8   offset of the range in the region's data area
 *   48  16   host id (boot id UUID): same host ⇒ the region can be mapped
 *   64   4   region owner pid  } the region's id: the file {@code <pid>-<seq>} in this user's
 *   68   4   rkey (flag bit 1; else reserved, 0) } private shared-memory directory ({@link SharedMemory#directory()});
 *   72   8   region sequence   } never a path
 *   80  16   capability: 128 random bits the importer presents and the exporter checks
 * </pre>
 *
 * <p>The capability is a secret: {@link #toString()} leaves it out. Immutable; thread-safe.
 */
public record MmapExport(Kind kind, boolean shared, int permissions, long pid, long mapId, long baseAddress,
        long length, long shmOffset, UUID hostId, long regionPid, long regionSeq, long cap0, long cap1, boolean verbs,
        int rkey) {

    /** An export without a verbs registration (software devices). */
    public MmapExport(Kind kind, boolean shared, int permissions, long pid, long mapId, long baseAddress, long length,
            long shmOffset, UUID hostId, long regionPid, long regionSeq, long cap0, long cap1) {
        this(kind, shared, permissions, pid, mapId, baseAddress, length, shmOffset, hostId, regionPid, regionSeq, cap0,
                cap1, false, 0);
    }

    public static final int MAGIC = 0x4D4D444A;
    public static final int VERSION = 2;
    /** Size of every version-2 blob. */
    public static final int SIZE = 96;

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
        byte[] out = new byte[SIZE];
        MemorySegment s = MemorySegment.ofArray(out);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 0, MAGIC);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 4, (short) VERSION);
        s.set(ValueLayout.JAVA_BYTE, 6, (byte) kind.code);
        s.set(ValueLayout.JAVA_BYTE, 7, (byte) ((shared ? 1 : 0) | (verbs ? 2 : 0)));
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 8, permissions);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 12, (int) pid);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, mapId);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 24, baseAddress);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 32, length);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 40, shmOffset);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 48, hostId.getMostSignificantBits());
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 56, hostId.getLeastSignificantBits());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 64, (int) regionPid);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 68, verbs ? rkey : 0);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 72, regionSeq);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 80, cap0);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 88, cap1);
        return out;
    }

    /**
     * Parses a blob from a peer; INVALID_VALUE (as an exception: control path) on anything
     * malformed, UNSUPPORTED_VERSION for another version (version 1, which carried a file path).
     */
    public static MmapExport decode(byte[] blob) {
        if (blob == null || blob.length < 6) {
            throw bad("blob too short (" + (blob == null ? 0 : blob.length) + " bytes)");
        }
        MemorySegment s = MemorySegment.ofArray(blob);
        if (s.get(ValueLayout.JAVA_INT_UNALIGNED, 0) != MAGIC) {
            throw bad("bad magic");
        }
        int version = s.get(ValueLayout.JAVA_SHORT_UNALIGNED, 4);
        if (version != VERSION) {
            throw new DocaException(DocaError.UNSUPPORTED_VERSION, "memory map export version " + version
                    + " is not supported (this jdoca reads version " + VERSION
                    + "; version 1 named a file path and is refused: re-export with this jdoca)");
        }
        if (blob.length != SIZE) {
            throw bad("length " + blob.length + ", expected " + SIZE);
        }
        int k = s.get(ValueLayout.JAVA_BYTE, 6);
        Kind kind = k == 1 ? Kind.PCI : k == 2 ? Kind.RDMA : null;
        if (kind == null) {
            throw bad("unknown export kind " + k);
        }
        int flags = s.get(ValueLayout.JAVA_BYTE, 7);
        if ((flags & ~3) != 0) {
            throw bad("unknown flags 0x" + Integer.toHexString(flags & 0xff));
        }
        long length = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 32);
        long shmOffset = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 40);
        if (length <= 0 || shmOffset < 0 || shmOffset > Long.MAX_VALUE - length) {
            throw bad("bad range");
        }
        boolean shared = (flags & 1) != 0;
        long regionPid = Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED, 64));
        long regionSeq = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 72);
        boolean verbs = (flags & 2) != 0;
        if (!verbs && s.get(ValueLayout.JAVA_INT_UNALIGNED, 68) != 0) {
            throw bad("reserved field set");
        }
        if (shared && (regionPid == 0 || regionSeq <= 0)) {
            throw bad("shared export without a region id");
        }
        return new MmapExport(kind, shared, s.get(ValueLayout.JAVA_INT_UNALIGNED, 8),
                Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED, 12)),
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, 16), s.get(ValueLayout.JAVA_LONG_UNALIGNED, 24), length,
                        shmOffset,
                new UUID(s.get(ValueLayout.JAVA_LONG_UNALIGNED, 48), s.get(ValueLayout.JAVA_LONG_UNALIGNED, 56)),
                regionPid, regionSeq, s.get(ValueLayout.JAVA_LONG_UNALIGNED, 80),
                        s.get(ValueLayout.JAVA_LONG_UNALIGNED, 88),
                verbs, verbs ? s.get(ValueLayout.JAVA_INT_UNALIGNED, 68) : 0);
    }

    /** True if the exporter runs on this host, so its shared-memory region can be mapped here. */
    public boolean isSameHost() {
        return hostId.equals(MemoryMap.localHostUuid());
    }

    /** Constant-time comparison with a presented capability. Allocation-free. */
    public boolean capabilityMatches(long c0, long c1) {
        return ((cap0 ^ c0) | (cap1 ^ c1)) == 0;
    }

    @Override
    public String toString() {
        return "MmapExport[" + kind + ", map " + Long.toHexString(mapId) + ", pid " + pid + ", "
                + Long.toHexString(baseAddress) + "+" + length + (shared ? ", region " + regionPid + "-" + regionSeq
                        + " @" + shmOffset : "") + (verbs ? ", rkey 0x" + Integer.toHexString(rkey) : "") + "]";
    }

    private static DocaException bad(String why) {
        return new DocaException(DocaError.INVALID_VALUE, "malformed memory map export: " + why);
    }
}
