package io.jdoca.rdma.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.UUID;

/**
 * The private data of jdoca's rdma_cm connection request and accept (verbs transport, CM mode): what the peer
 * needs beyond what the connection manager itself carries. rdma_cm exchanges the QP numbers, PSNs, path and MTU
 * (the CM REQ/REP of InfiniBand Architecture Specification Vol. 1, 12.6.5 / 12.6.8); the private data of a REQ
 * on the RDMA_PS_TCP port space holds at most 56 bytes (92 less rdma_cm's 36-byte header, rdma_cma.h), so this
 * is kept to {@value #SIZE}. Little-endian (jdoca RDMA wire format §5, docs/features/rdma.md):
 *
 * <pre>
 *   off size field
 *    0   4   magic 'JDCM' (0x4D43444A as LE u32)
 *    4   1   version (1)
 *    5   3   reserved (0)
 *    8   8   sender's pid
 *   16  16   sender's host id (boot id UUID; with the pid, names the exporter of the memory maps it may touch)
 *   32   4   sender's Rdma context permissions (AccessFlags)
 *   36   4   rkey of the sender's control word
 *   40   8   address of the sender's control word (the peer RDMA-writes 1 there when it closes)
 * </pre>
 * A request or accept without this data (another rdma_cm application) is rejected. Immutable; thread-safe.
 *
 * @param pid         sender's process id
 * @param hostId      sender's host (boot id)
 * @param permissions sender's context permissions
 * @param ctrlRkey    rkey of the control word
 * @param ctrlAddr    address of the control word (8-aligned, non-zero)
 */
public record VerbsCmPrivateData(long pid, UUID hostId, int permissions, int ctrlRkey, long ctrlAddr) {
    public static final int MAGIC = 0x4D43444A;
    public static final int VERSION = 1;
    public static final int SIZE = 48;

    /** Writes the {@value #SIZE} bytes at the start of {@code s}. */
    public void encode(MemorySegment s) {
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 0, MAGIC);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 4, VERSION);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, pid);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, hostId.getMostSignificantBits());
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 24, hostId.getLeastSignificantBits());
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 32, permissions);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 36, ctrlRkey);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 40, ctrlAddr);
    }

    /** The encoding as bytes. */
    public byte[] encode() {
        byte[] b = new byte[SIZE];
        encode(MemorySegment.ofArray(b));
        return b;
    }

    /**
     * Parses what a peer sent (any length; rdma_cm may pad the private data to the message's full size, so
     * longer is allowed). {@link IllegalArgumentException} for anything malformed.
     */
    public static VerbsCmPrivateData decode(byte[] b) {
        if (b == null || b.length < SIZE) {
            throw new IllegalArgumentException("rdma_cm private data of " + (b == null ? 0 : b.length)
                    + " bytes: not a jdoca peer (needs " + SIZE + ")");
        }
        MemorySegment s = MemorySegment.ofArray(b);
        if (s.get(ValueLayout.JAVA_INT_UNALIGNED, 0) != MAGIC) {
            throw new IllegalArgumentException("rdma_cm private data without jdoca's magic: not a jdoca peer");
        }
        if (s.get(ValueLayout.JAVA_INT_UNALIGNED, 4) != VERSION) {
            throw new IllegalArgumentException("rdma_cm private data version/reserved "
                    + Integer.toHexString(s.get(ValueLayout.JAVA_INT_UNALIGNED, 4)) + " not supported");
        }
        long pid = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        if (pid <= 0) {
            throw new IllegalArgumentException("bad pid " + pid + " in rdma_cm private data");
        }
        long ctrl = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 40);
        if (ctrl == 0 || (ctrl & 7) != 0) {
            throw new IllegalArgumentException("bad control word address in rdma_cm private data");
        }
        return new VerbsCmPrivateData(pid, new UUID(s.get(ValueLayout.JAVA_LONG_UNALIGNED, 16),
                s.get(ValueLayout.JAVA_LONG_UNALIGNED, 24)), s.get(ValueLayout.JAVA_INT_UNALIGNED, 32),
                s.get(ValueLayout.JAVA_INT_UNALIGNED, 36), ctrl);
    }
}
