package io.jdoca.rdma.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The 80-byte header of every frame of the RDMA-over-TCP transport, a flyweight over a segment
 * (little-endian). Requests carry a sequence number the response echoes; responses arrive in
 * request order (reliable-connection semantics).
 *
 * <pre>
 *   off size field                                          (jdoca RDMA wire format §2)
 *    0   1   opcode (see constants)
 *    1   1   flags (reserved)
 *    2   2   status: a DocaError code (responses, NOP)
 *    4   4   immediate data (SEND_IMM, WRITE_IMM)
 *    8   8   sequence number
 *   16   8   remote map id (WRITE*, READ_REQ, atomics) / original value (ATOMIC_RESP) / nonce (HELLO)
 *   24   8   remote address (exporter's address space)
 *   32   4   length: payload bytes that follow (SEND*, WRITE*, READ_RESP), bytes asked (READ_REQ)
 *   36   4   reserved
 *   40   8   compare value (CAS) / add value (FADD) / value (SET)
 *   48   8   swap value (CAS)
 *   56   8   reserved
 *   64  16   capability of the remote map (WRITE*, READ_REQ, atomics; see MemoryMap): the
 *            responder serves a one-sided request only if it matches the map's, else NOT_PERMITTED
 * </pre>
 */
public final class TcpFrame {
    public static final int SIZE = 80;

    public static final int OP_HELLO = 1;
    public static final int OP_SEND = 2;
    public static final int OP_SEND_IMM = 3;
    public static final int OP_WRITE = 4;
    public static final int OP_WRITE_IMM = 5;
    public static final int OP_READ_REQ = 6;
    public static final int OP_CAS = 7;
    public static final int OP_FADD = 8;
    public static final int OP_SET = 9;
    /**
     * A request that failed the requester's own checks: the responder only echoes its status, keeping completions in
     * order.
     */
    public static final int OP_NOP = 10;
    public static final int OP_ACK = 11;
    public static final int OP_READ_RESP = 12;
    public static final int OP_ATOMIC_RESP = 13;
    public static final int OP_HEARTBEAT = 14;
    public static final int OP_DISCONNECT = 15;
    public static final int OP_MAX = 15;

    static final long OFF_OPCODE = 0;
    static final long OFF_FLAGS = 1;
    static final long OFF_STATUS = 2;
    static final long OFF_IMM = 4;
    static final long OFF_SEQ = 8;
    static final long OFF_MAP = 16;
    static final long OFF_ADDR = 24;
    static final long OFF_LEN = 32;
    static final long OFF_OPERAND = 40;
    static final long OFF_SWAP = 48;
    static final long OFF_CAP = 64;

    private MemorySegment seg;

    /** Points this flyweight at a 64-byte header. */
    public TcpFrame wrap(MemorySegment s) {
        this.seg = s;
        return this;
    }

    public MemorySegment segment() {
        return seg;
    }

    /** Zeroes the header and sets the opcode. */
    public TcpFrame init(int opcode) {
        seg.fill((byte) 0);
        seg.set(ValueLayout.JAVA_BYTE, OFF_OPCODE, (byte) opcode);
        return this;
    }

    public int opcode() {
        return Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, OFF_OPCODE));
    }

    /** The opcode of the header at {@code off} of {@code s}, without wrapping it (a look ahead). */
    public static int opcodeAt(MemorySegment s, long off) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, off + OFF_OPCODE));
    }

    public int status() {
        return Short.toUnsignedInt(seg.get(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_STATUS));
    }

    public TcpFrame status(int s) {
        seg.set(ValueLayout.JAVA_SHORT_UNALIGNED, OFF_STATUS, (short) s);
        return this;
    }

    public int immediate() {
        return seg.get(ValueLayout.JAVA_INT_UNALIGNED, OFF_IMM);
    }

    public TcpFrame immediate(int v) {
        seg.set(ValueLayout.JAVA_INT_UNALIGNED, OFF_IMM, v);
        return this;
    }

    public long seq() {
        return seg.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_SEQ);
    }

    public TcpFrame seq(long v) {
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_SEQ, v);
        return this;
    }

    public long mapId() {
        return seg.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_MAP);
    }

    public TcpFrame mapId(long v) {
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_MAP, v);
        return this;
    }

    public long addr() {
        return seg.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_ADDR);
    }

    public TcpFrame addr(long v) {
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_ADDR, v);
        return this;
    }

    /** Unsigned payload/request length. */
    public long length() {
        return Integer.toUnsignedLong(seg.get(ValueLayout.JAVA_INT_UNALIGNED, OFF_LEN));
    }

    public TcpFrame length(long v) {
        seg.set(ValueLayout.JAVA_INT_UNALIGNED, OFF_LEN, (int) v);
        return this;
    }

    public long operand() {
        return seg.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_OPERAND);
    }

    public TcpFrame operand(long v) {
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_OPERAND, v);
        return this;
    }

    public long swap() {
        return seg.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_SWAP);
    }

    public TcpFrame swap(long v) {
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_SWAP, v);
        return this;
    }

    /** First half of the capability. */
    public long cap0() {
        return seg.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_CAP);
    }

    /** Second half of the capability. */
    public long cap1() {
        return seg.get(ValueLayout.JAVA_LONG_UNALIGNED, OFF_CAP + 8);
    }

    public TcpFrame cap(long c0, long c1) {
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_CAP, c0);
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, OFF_CAP + 8, c1);
        return this;
    }

    /** True for opcodes that carry {@link #length()} payload bytes after the header. */
    public static boolean hasPayload(int opcode) {
        return opcode == OP_SEND || opcode == OP_SEND_IMM || opcode == OP_WRITE || opcode == OP_WRITE_IMM
                || opcode == OP_READ_RESP;
    }
}
