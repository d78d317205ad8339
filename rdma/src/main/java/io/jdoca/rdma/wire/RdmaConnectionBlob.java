package io.jdoca.rdma.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * The connection descriptor {@code doca_rdma_export} returns and {@code doca_rdma_connect} consumes.
 * DOCA's blob is opaque (it carries the QP number, GID and so on); this is jdoca's equivalent,
 * little-endian:
 *
 * <pre>
 *   off size field                                          (jdoca RDMA wire format §1, docs/features/rdma.md)
 *    0   4   magic 'JDRC' (0x4352444A as LE u32)
 *    4   2   version (2)
 *    6   1   transport preference: 0 AUTO, 1 SHM, 2 TCP, 3 VERBS
 *    7   1   reserved
 *    8   4   exporter pid
 *   12   4   ctx permissions (AccessFlags granted by the exporter's Rdma context)
 *   16   8   connection nonce (random; identifies this end of the connection)
 *   24  16   host id (boot id UUID)
 *   40   2   TCP listen port (0: no TCP)
 *   42   2   host name length h (≤ 255)
 *   44   2   shared-memory ring id length p (≤ 40, 0: no SHM)
 *   46   2   reserved
 *   48  16   ring capability: the peer maps the ring only if it matches the ring's grant
 *   64   h   host to dial, UTF-8
 *   64+h p   id of the exporter's inbound shared-memory ring ({@code <pid>-<seq>}, a region in
 *            the user's private shared-memory directory; never a path), ASCII
 *   64+h+p 48 transport 3 (VERBS) only: the exporter's RC QP ({@link VerbsQpInfo})
 * </pre>
 *
 * @param transport   the exporter's transport preference
 * @param pid         exporter process id
 * @param permissions the exporter's Rdma context permissions
 * @param nonce       identifies the exporter's end of the connection
 * @param hostId      exporter host (boot id)
 * @param tcpPort     listen port, 0 if none
 * @param host        address to dial, empty if none
 * @param shmRegion   inbound ring's region id, empty if none
 * @param ringCap0    ring capability, first half
 * @param ringCap1    ring capability, second half
 * @param verbs       the exporter's QP (transport VERBS), else null
 */
public record RdmaConnectionBlob(int transport, long pid, int permissions, long nonce, UUID hostId, int tcpPort,
        String host, String shmRegion, long ringCap0, long ringCap1, VerbsQpInfo verbs) {

    /** Transport code of the verbs transport (RdmaTransportType.VERBS). */
    public static final int TRANSPORT_VERBS = 3;

    /** A blob of the shm/tcp transports (no QP). */
    public RdmaConnectionBlob(int transport, long pid, int permissions, long nonce, UUID hostId, int tcpPort,
            String host,
            String shmRegion, long ringCap0, long ringCap1) {
        this(transport, pid, permissions, nonce, hostId, tcpPort, host, shmRegion, ringCap0, ringCap1, null);
    }

    public static final int MAGIC = 0x4352444A;
    public static final int VERSION = 2;
    static final int OFF_MAGIC = 0;
    static final int OFF_VERSION = 4;
    static final int OFF_TRANSPORT = 6;
    static final int OFF_PID = 8;
    static final int OFF_PERMISSIONS = 12;
    static final int OFF_NONCE = 16;
    static final int OFF_HOST_ID = 24;
    static final int OFF_PORT = 40;
    static final int OFF_HOST_LEN = 42;
    static final int OFF_PATH_LEN = 44;
    static final int OFF_RING_CAP = 48;
    public static final int HEADER = 64;
    static final int MAX_HOST = 255;
    static final int MAX_PATH = 40;

    public byte[] encode() {
        byte[] h = host.getBytes(StandardCharsets.UTF_8);
        byte[] p = shmRegion.getBytes(StandardCharsets.UTF_8);
        if (h.length > MAX_HOST || p.length > MAX_PATH) {
            throw new IllegalArgumentException("host or ring id too long for a connection blob");
        }
        if ((transport == TRANSPORT_VERBS) != (verbs != null)) {
            throw new IllegalArgumentException("a VERBS blob carries a QP descriptor, and only a VERBS blob");
        }
        byte[] out = new byte[HEADER + h.length + p.length + (verbs == null ? 0 : VerbsQpInfo.SIZE)];
        MemorySegment s = MemorySegment.ofArray(out);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, OFF_MAGIC, MAGIC);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_VERSION, (short) VERSION);
        s.set(ValueLayout.JAVA_BYTE, OFF_TRANSPORT, (byte) transport);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, OFF_PID, (int) pid);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, OFF_PERMISSIONS, permissions);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_NONCE, nonce);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_HOST_ID, hostId.getMostSignificantBits());
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_HOST_ID + 8, hostId.getLeastSignificantBits());
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_PORT, (short) tcpPort);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_HOST_LEN, (short) h.length);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_PATH_LEN, (short) p.length);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_RING_CAP, ringCap0);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_RING_CAP + 8, ringCap1);
        System.arraycopy(h, 0, out, HEADER, h.length);
        System.arraycopy(p, 0, out, HEADER + h.length, p.length);
        if (verbs != null) {
            verbs.encode(s, HEADER + h.length + p.length);
        }
        return out;
    }

    /**
     * Parses a peer's blob. Outside input: every malformed blob gives {@link IllegalArgumentException}
     * with the reason, never another exception.
     */
    public static RdmaConnectionBlob decode(byte[] blob) {
        if (blob == null || blob.length < HEADER) {
            throw new IllegalArgumentException("RDMA connection blob too short (" + (blob == null ? 0 : blob.length)
                    + " bytes)");
        }
        MemorySegment s = MemorySegment.ofArray(blob);
        if (s.get(ValueLayout.JAVA_INT_UNALIGNED, OFF_MAGIC) != MAGIC) {
            throw new IllegalArgumentException("not an RDMA connection blob (bad magic)");
        }
        int version = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_VERSION));
        if (version != VERSION) {
            throw new IllegalArgumentException("unsupported RDMA connection blob version " + version);
        }
        int transport = Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, OFF_TRANSPORT));
        if (transport > TRANSPORT_VERBS) {
            throw new IllegalArgumentException("unknown transport " + transport + " in RDMA connection blob");
        }
        long pid = Integer.toUnsignedLong(s.get(ValueLayout.JAVA_INT_UNALIGNED, OFF_PID));
        int perms = s.get(ValueLayout.JAVA_INT_UNALIGNED, OFF_PERMISSIONS);
        long nonce = s.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_NONCE);
        UUID host = new UUID(s.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_HOST_ID),
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_HOST_ID + 8));
        int port = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_PORT));
        int hl = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_HOST_LEN));
        int pl = Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_PATH_LEN));
        int vl = transport == TRANSPORT_VERBS ? VerbsQpInfo.SIZE : 0;
        if (hl > MAX_HOST || pl > MAX_PATH || (long) HEADER + hl + pl + vl != blob.length) {
            throw new IllegalArgumentException("RDMA connection blob length " + blob.length
                    + " does not match its header");
        }
        if (port == 0 && pl == 0 && vl == 0) {
            throw new IllegalArgumentException("RDMA connection blob offers no transport");
        }
        String h = new String(blob, HEADER, hl, StandardCharsets.UTF_8);
        String p = new String(blob, HEADER + hl, pl, StandardCharsets.UTF_8);
        VerbsQpInfo v = vl == 0 ? null : VerbsQpInfo.decode(s, HEADER + hl + pl);
        return new RdmaConnectionBlob(transport, pid, perms, nonce, host, port, h, p,
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_RING_CAP), s.get(ValueLayout.JAVA_LONG_UNALIGNED,
                        OFF_RING_CAP + 8), v);
    }
}
