package io.jdoca.sta.nvmf.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.sta.nvme.NvmeCommand;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The NVMe/RDMA wire codecs against hand-assembled bytes from the NVMe RDMA Transport
 * Specification 1.0 figures 4-6 and NVMe Base 2.0 figure 121: private data of request, accept
 * and reject, and the keyed SGL data block descriptor.
 */
class NvmeRdmaCodecTest {
    private final Arena arena = Arena.ofAuto();

    private MemorySegment bytes(String hex) {
        byte[] b = HexFormat.of().parseHex(hex.replace(" ", ""));
        MemorySegment s = arena.allocate(Math.max(b.length, 1));
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s;
    }

    @Test
    void requestAsLinuxSendsIt() {
        // An I/O queue of 128 entries as nvme-rdma builds it: RECFMT 0, QID 1, HRQSIZE 128, HSQSIZE 127, CNTLID 1.
        MemorySegment s = bytes("0000 0100 8000 7f00 0100" + "00".repeat(22));
        NvmeRdmaCmRequest r = new NvmeRdmaCmRequest().wrap(s, 0, 32);
        assertEquals(0, r.recfmt());
        assertEquals(1, r.qid());
        assertEquals(128, r.hrqsize());
        assertEquals(127, r.hsqsize());
        assertEquals(128, r.recvQueueSize());
        assertEquals(1, r.cntlid());
        assertEquals(0, r.validate(128));
        // IB CM carries up to 92 bytes of private data; the rest is padding.
        MemorySegment longer = arena.allocate(92);
        MemorySegment.copy(s, 0, longer, 0, 32);
        assertEquals(0, new NvmeRdmaCmRequest().wrap(longer, 0, 92).validate(128));
    }

    @Test
    void encodeRoundTrips() {
        MemorySegment s = arena.allocate(32);
        NvmeRdmaCmRequest.encode(s, 0, 0, 32, 31, 0xffff);
        assertEquals("0000000020001f00ffff" + "00".repeat(22),
                HexFormat.of().formatHex(s.toArray(ValueLayout.JAVA_BYTE)));
        NvmeRdmaCmRequest r = new NvmeRdmaCmRequest().wrap(s, 0, 32);
        assertEquals(0, r.qid());
        assertEquals(32, r.recvQueueSize());
        assertEquals(0xffff, r.cntlid());
    }

    @Test
    void rejectsWithTheSpecifiedStatus() {
        MemorySegment s = arena.allocate(32);
        NvmeRdmaCmRequest r = new NvmeRdmaCmRequest();
        NvmeRdmaCmRequest.encode(s, 0, 1, 128, 127, 1);
        assertEquals(NvmeRdmaCmReject.STS_INVALID_LEN, r.wrap(s, 0, 31).validate(128));
        assertEquals(NvmeRdmaCmReject.STS_INVALID_LEN, r.wrap(s, 0, 0).validate(128));
        assertEquals(NvmeRdmaCmReject.STS_INVALID_HSQSIZE, r.wrap(s, 0, 32).validate(64));
        NvmeRdmaCmRequest.encode(s, 0, 1, 128, 0, 1); // one entry: no room for a command (size is 0's based)
        assertEquals(NvmeRdmaCmReject.STS_INVALID_HSQSIZE, r.wrap(s, 0, 32).validate(128));
        NvmeRdmaCmRequest.encode(s, 0, 1, 0, 127, 1);
        assertEquals(NvmeRdmaCmReject.STS_INVALID_HRQSIZE, r.wrap(s, 0, 32).validate(128));
        NvmeRdmaCmRequest.encode(s, 0, 0xffff, 128, 127, 1);
        assertEquals(NvmeRdmaCmReject.STS_INVALID_QID, r.wrap(s, 0, 32).validate(128));
        NvmeRdmaCmRequest.encode(s, 0, 1, 128, 127, 1);
        s.set(ValueLayout.JAVA_BYTE, 0, (byte) 1);
        assertEquals(NvmeRdmaCmReject.STS_INVALID_RECFMT, r.wrap(s, 0, 32).validate(128));
        // A segment shorter than the claimed length (a lying event) is a length error, not a crash.
        assertEquals(NvmeRdmaCmReject.STS_INVALID_LEN, r.wrap(arena.allocate(8), 0, 32).validate(128));
    }

    @Test
    void acceptAndRejectBytes() {
        MemorySegment a = arena.allocate(NvmeRdmaCmAccept.LEN);
        NvmeRdmaCmAccept.encode(a, 0, 128);
        assertEquals("00008000" + "00".repeat(28), HexFormat.of().formatHex(a.toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(128, NvmeRdmaCmAccept.crqsize(a, 0));
        assertEquals(0, NvmeRdmaCmAccept.recfmt(a, 0));
        MemorySegment j = arena.allocate(NvmeRdmaCmReject.LEN);
        NvmeRdmaCmReject.encode(j, 0, NvmeRdmaCmReject.STS_INVALID_HSQSIZE);
        assertEquals("00000400", HexFormat.of().formatHex(j.toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(4, NvmeRdmaCmReject.sts(j, 0));
        assertEquals("invalid host send queue size", NvmeRdmaCmReject.describe(4));
    }

    @Test
    void keyedSglHasAThreeByteLengthAndAKey() {
        // SQE bytes 24..39: address 0x0000_7f00_1234_5000, length 0x001000, key 0x89abcdef, id 0x4F (keyed,
        // invalidate).
        MemorySegment sqe = arena.allocate(64);
        MemorySegment.copy(bytes("0050341200 7f0000 001000 efcdab89 4f"), 0, sqe, 24, 16);
        assertEquals(0x00007f0012345000L, KeyedSgl.address(sqe, 0));
        assertEquals(4096, KeyedSgl.keyedLength(sqe, 0));
        assertEquals(0x89abcdef, KeyedSgl.key(sqe, 0));
        assertEquals(KeyedSgl.TYPE_KEYED_DATA_BLOCK, KeyedSgl.type(sqe, 0));
        assertEquals(KeyedSgl.SUBTYPE_INVALIDATE_KEY, KeyedSgl.subtype(sqe, 0));
        assertTrue(KeyedSgl.keyed(sqe, 0));
        // The command flyweight reads the same 3-byte length (the key's low byte is not part of it).
        NvmeCommand cmd = new NvmeCommand().wrap(sqe, 0);
        assertEquals(4096, cmd.sglLength());
        assertTrue(NvmeCommand.isKeyed(cmd.sglType()));
        assertTrue(NvmeCommand.isHostMemory(cmd.sglType()));

        MemorySegment w = arena.allocate(64);
        KeyedSgl.putKeyed(w, 0, 0x1000, 0xabcdef, 0x12345678, false);
        assertEquals(0xabcdef, KeyedSgl.keyedLength(w, 0));
        assertEquals(0x12345678, KeyedSgl.key(w, 0));
        assertEquals(0x40, KeyedSgl.id(w, 0));
        KeyedSgl.putOffset(w, 0, 0, 8192);
        assertEquals(8192, KeyedSgl.blockLength(w, 0));
        assertEquals(NvmeCommand.SGL_DATA_BLOCK_OFFSET, KeyedSgl.id(w, 0));
        assertFalse(KeyedSgl.keyed(w, 0));
        assertEquals(8192, new NvmeCommand().wrap(w, 0).sglLength());
    }
}
