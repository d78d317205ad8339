package io.jdoca.sta;

import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.IcReqPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.sta.nvmf.tcp.PduDigest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;

/**
 * A minimal NVMe/TCP host for tests: encodes PDUs into its send buffer, pushes them through the
 * channel and reads PDUs back while pumping the test bed's engine. Allocation-free after
 * construction (for the steady-state allocation test).
 */
final class TestClient {
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:test-host";
    final ByteChannel ch;
    final TestBed bed;
    final MemorySegment tx;
    final ByteBuffer txBuf;
    final MemorySegment rx;
    final ByteBuffer rxBuf;
    final PduDigest txDigest;
    final PduDigest rxDigest;
    int txLen;
    int rxLen;
    int pduBase;
    boolean hd;
    boolean dd;

    TestClient(TestBed bed, ByteChannel ch) {
        this(bed, ch, 1 << 20);
    }

    TestClient(TestBed bed, ByteChannel ch, int bufferSize) {
        this.bed = bed;
        this.ch = ch;
        this.tx = Arena.ofAuto().allocate(bufferSize, 4096);
        this.txBuf = tx.asByteBuffer();
        this.rx = Arena.ofAuto().allocate(bufferSize, 4096);
        this.rxBuf = rx.asByteBuffer();
        this.txDigest = new PduDigest(tx);
        this.rxDigest = new PduDigest(rx);
    }

    void send() {
        try {
            txBuf.limit(txLen).position(0);
            while (txBuf.hasRemaining()) {
                if (ch.write(txBuf) == 0) {
                    bed.pump();
                }
            }
            txBuf.clear();
            txLen = 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void raw(byte[] b) {
        MemorySegment.copy(MemorySegment.ofArray(b), 0, tx, txLen, b.length);
        txLen += b.length;
        send();
    }

    /** Reads the next PDU (pumping the engine); returns its base offset in {@link #rx}, or -1 on EOF/none. */
    int next() {
        // drop the previous PDU
        if (pduBase >= 0 && rxLen > 0 && pduBase == 0 && lastPlen > 0) {
            MemorySegment.copy(rx, lastPlen, rx, 0, rxLen - lastPlen);
            rxLen -= lastPlen;
            lastPlen = 0;
        }
        // 200 rounds after the last back-end operation finished (bounded): io_uring completions
        // come when the kernel is done, not within a number of rounds.
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (int round = 0; round < 200 && System.nanoTime() - deadline < 0; round++) {
            if (bed.io.pollGroup().backendChannels().busy() > 0) {
                round = 0;
            }
            if (rxLen >= 8) {
                long plen = NvmeTcpPdu.plen(rx, 0);
                if (rxLen >= plen) {
                    lastPlen = (int) plen;
                    pduBase = 0;
                    return 0;
                }
            }
            bed.pump();
            try {
                rxBuf.limit(rx.byteSize() > Integer.MAX_VALUE
                        ? Integer.MAX_VALUE : (int) rx.byteSize()).position(rxLen);
                int n = ch.read(rxBuf);
                rxBuf.clear();
                if (n < 0) {
                    return -1;
                }
                rxLen += n;
            } catch (IOException e) {
                return -1;
            }
        }
        return -1;
    }

    int lastPlen;

    void close() {
        try {
            ch.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    boolean closedByTarget() {
        bed.pump();
        return ch instanceof PipeChannel p && p.peerClosed() && p.available() == 0 && rxLen - lastPlen <= 0;
    }

    int type() {
        return NvmeTcpPdu.type(rx, 0);
    }

    /** CQE of the current CapsuleResp. */
    int cqeStatus() {
        return NvmeCompletion.status(rx, NvmeTcpPdu.CH_LEN);
    }

    int cqeCid() {
        return NvmeCompletion.cid(rx, NvmeTcpPdu.CH_LEN);
    }

    int cqeDw0() {
        return NvmeCompletion.dw0(rx, NvmeTcpPdu.CH_LEN);
    }

    void icReq(boolean hdgst, boolean ddgst) {
        icReq(hdgst, ddgst, 0);
    }

    void icReq(boolean hdgst, boolean ddgst, int hpda) {
        IcReqPdu.encode(tx, txLen, hdgst, ddgst, hpda, 0);
        txLen += NvmeTcpPdu.IC_LEN;
        send();
        hd = hdgst;
        dd = ddgst;
    }

    /**
     * Starts a CapsuleCmd at txLen; returns the SQE offset. The caller fills the SQE then calls {@link #endCapsule}.
     */
    long beginCapsule() {
        return txLen + NvmeTcpPdu.CH_LEN;
    }

    /** Finishes the capsule with {@code dataLen} bytes of in-capsule data taken from {@code data} (or none). */
    void endCapsule(MemorySegment data, long dataOff, int dataLen) {
        int base = txLen;
        int hdl = hd ? 4 : 0;
        int pdo = dataLen > 0 ? NvmeTcpPdu.CAPSULE_CMD_HLEN + hdl : 0;
        int ddl = dd && dataLen > 0 ? 4 : 0;
        int plen = NvmeTcpPdu.CAPSULE_CMD_HLEN + hdl + dataLen + ddl;
        int flags = (hd ? NvmeTcpPdu.FLAG_HDGSTF : 0) | (ddl != 0 ? NvmeTcpPdu.FLAG_DDGSTF : 0);
        NvmeTcpPdu.putHeader(tx, base, NvmeTcpPdu.TYPE_CAPSULE_CMD, flags, NvmeTcpPdu.CAPSULE_CMD_HLEN, pdo, plen);
        if (hd) {
            txDigest.put(base, NvmeTcpPdu.CAPSULE_CMD_HLEN);
        }
        if (dataLen > 0) {
            MemorySegment.copy(data, dataOff, tx, base + pdo, dataLen);
            if (ddl != 0) {
                txDigest.put(base + pdo, dataLen);
            }
        }
        txLen = base + plen;
        send();
    }

    void connect(int cid, int qid, int sqsize0, String host, String subnqn) {
        connect(cid, qid, sqsize0, host, subnqn, 0);
    }

    void connect(int cid, int qid, int sqsize0, String host, String subnqn, int cattr) {
        long sqe = beginCapsule();
        FabricsConnectCommand.encode(tx, sqe, cid, qid, sqsize0, qid == 0 ? 5000 : 0, cattr);
        NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_DATA_BLOCK_OFFSET, 0, FabricsConnectCommand.DATA_LEN);
        MemorySegment data = Arena.ofAuto().allocate(FabricsConnectCommand.DATA_LEN);
        FabricsConnectCommand.encodeData(data, 0, new byte[16], qid == 0 ? 0xffff : 1, subnqn, host);
        endCapsule(data, 0, FabricsConnectCommand.DATA_LEN);
    }

    /** ICReq + admin Connect + I/O Connect, asserting success; leaves the QP bound as an I/O queue. */
    void connectIoQueue(boolean hdgst, boolean ddgst) {
        icReq(hdgst, ddgst);
        expect(NvmeTcpPdu.TYPE_IC_RESP);
        connect(1, 1, 127, HOST, TestBed.NQN);
        expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
        if (cqeStatus() != 0) {
            throw new AssertionError("connect failed: status " + Integer.toHexString(cqeStatus()));
        }
    }

    void expect(int type) {
        int b = next();
        if (b < 0) {
            throw new AssertionError("no PDU (wanted " + NvmeTcpPdu.typeName(type) + ")");
        }
        if (type() != type) {
            throw new AssertionError("got " + NvmeTcpPdu.typeName(type()) + ", wanted " + NvmeTcpPdu.typeName(type));
        }
        if (hd && type != NvmeTcpPdu.TYPE_IC_RESP && type != NvmeTcpPdu.TYPE_C2H_TERM_REQ) {
            int hlen = NvmeTcpPdu.hlen(rx, 0);
            if (!rxDigest.check(0, hlen)) {
                throw new AssertionError("bad header digest from target");
            }
        }
    }

    /** Read command (no data in capsule): SGL transport data block. */
    void read(int cid, long slba, int nlb, int blockSize) {
        long sqe = beginCapsule();
        NvmeCommand.encode(tx, sqe, NvmeOpcode.IO_READ, cid, 1);
        NvmeCommand.putRange(tx, sqe, slba, nlb);
        NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_TRANSPORT_DATA_BLOCK, 0, (long) nlb * blockSize);
        endCapsule(null, 0, 0);
    }

    void io(int opcode, int cid, int nsid, long slba, int nlb, long sglLen, MemorySegment data, int dataLen) {
        long sqe = beginCapsule();
        NvmeCommand.encode(tx, sqe, opcode, cid, nsid);
        NvmeCommand.putRange(tx, sqe, slba, nlb);
        NvmeCommand.putSgl(tx, sqe, dataLen > 0
                ? NvmeCommand.SGL_DATA_BLOCK_OFFSET : NvmeCommand.SGL_TRANSPORT_DATA_BLOCK, 0, sglLen);
        endCapsule(data, 0, dataLen);
    }

    /** H2CData PDU. */
    void h2cData(int cid, int ttag, int offset, MemorySegment data, long dataOff, int len, boolean last) {
        int base = txLen;
        int hdl = hd ? 4 : 0;
        int ddl = dd ? 4 : 0;
        int pdo = NvmeTcpPdu.DATA_HLEN + hdl;
        int flags = (last ? NvmeTcpPdu.FLAG_DATA_LAST : 0) | (hd ? NvmeTcpPdu.FLAG_HDGSTF : 0)
                | (dd ? NvmeTcpPdu.FLAG_DDGSTF : 0);
        DataPdu.encode(tx, base, NvmeTcpPdu.TYPE_H2C_DATA, flags, pdo, pdo + len + ddl, cid, ttag, offset, len);
        if (hd) {
            txDigest.put(base, NvmeTcpPdu.DATA_HLEN);
        }
        MemorySegment.copy(data, dataOff, tx, base + pdo, len);
        if (dd) {
            txDigest.put(base + pdo, len);
        }
        txLen = base + pdo + len + ddl;
        send();
    }

    /** Offset of the data of the current C2HData PDU. */
    int dataOffset() {
        return NvmeTcpPdu.pdo(rx, 0);
    }

    int dataLength() {
        return (int) DataPdu.datal(rx, 0);
    }
}
