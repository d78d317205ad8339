package io.jdoca.rdma.wire;

import io.jdoca.core.ring.ShmRingLayout;

/**
 * Layout of one inbound shared-memory ring of the SHM transport: a file in /dev/shm that its owner
 * (the consumer) creates at export and its peer (the producer) maps at connect. The header (magic,
 * geometry, the two counters, slots at 320) is core's {@link ShmRingLayout}; the fields at 192..319
 * and the slot format are this transport's. Fixed-size slots;
 * a message longer than one slot spans consecutive slots (FIRST..LAST fragments). Counters are
 * 64-bit, monotonically increasing slot numbers, each on its own cache line and written by one
 * side only (jdoca RDMA wire format §3).
 *
 * <pre>
 *   off  size  field                                  writer
 *     0    4   magic 'JDSR'                           owner
 *     8    4   slot count                             owner
 *    12    4   slot size                              owner
 *    64    8   tail: slots published                  peer (release)
 *   128    8   head: slots consumed                   owner (release)
 *   192    8   peer pid, 0 until the peer connected   peer
 *   200    4   peer closed flag                       peer
 *   256    4   owner closed flag                      owner
 *   264    8   owner heartbeat (nanoTime)             owner
 *   320        slots
 *
 *   slot: 0 u8 opcode (SEND 1, SEND_IMM 2, WRITE_IMM 3), 1 u8 flags (FIRST 1, LAST 2),
 *         4 u32 immediate, 8 u32 total message length, 12 u32 fragment length, 16 u64 message seq,
 *         32.. fragment data
 * </pre>
 */
public final class ShmRingDescriptor {
    public static final int MAGIC = 0x5253444A;
    public static final long OFF_MAGIC = ShmRingLayout.OFF_MAGIC;
    public static final long OFF_SLOT_COUNT = ShmRingLayout.OFF_SLOT_COUNT;
    public static final long OFF_SLOT_SIZE = ShmRingLayout.OFF_SLOT_SIZE;
    /** Slots published: {@link ShmRingLayout#OFF_PRODUCED}. */
    public static final long OFF_TAIL = ShmRingLayout.OFF_PRODUCED;
    /** Slots consumed: {@link ShmRingLayout#OFF_CONSUMED}. */
    public static final long OFF_HEAD = ShmRingLayout.OFF_CONSUMED;
    public static final long OFF_PEER_PID = 192;
    public static final long OFF_PEER_CLOSED = 200;
    public static final long OFF_OWNER_CLOSED = 256;
    public static final long OFF_OWNER_HEARTBEAT = 264;
    public static final long SLOTS = ShmRingLayout.SLOTS;

    public static final long SLOT_OPCODE = 0;
    public static final long SLOT_FLAGS = 1;
    public static final long SLOT_IMM = 4;
    public static final long SLOT_TOTAL = 8;
    public static final long SLOT_FRAG = 12;
    public static final long SLOT_SEQ = 16;
    public static final long SLOT_DATA = 32;

    public static final int OP_SEND = 1;
    public static final int OP_SEND_IMM = 2;
    public static final int OP_WRITE_IMM = 3;
    public static final int FLAG_FIRST = 1;
    public static final int FLAG_LAST = 2;

    /** Default geometry: 512 slots of 4 KiB (2 MiB per direction). */
    public static final int DEFAULT_SLOT_COUNT = 512;
    public static final int DEFAULT_SLOT_SIZE = 4096;

    private ShmRingDescriptor() {
    }

    public static long regionSize(int slotCount, int slotSize) {
        return ShmRingLayout.regionSize(slotCount, slotSize);
    }
}
