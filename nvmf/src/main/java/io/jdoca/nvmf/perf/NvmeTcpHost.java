package io.jdoca.nvmf.perf;

import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.IcReqPdu;
import io.jdoca.sta.nvmf.tcp.IcRespPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.sta.nvmf.tcp.PduDigest;
import io.jdoca.sta.nvmf.tcp.TermReqPdu;
import io.jdoca.sta.nvmf.tls.NvmeTlsClient;
import io.jdoca.sta.nvmf.tls.NvmeTlsKey;
import io.jdoca.sta.nvmf.tls.TlsChannel;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A small NVMe/TCP host (initiator) for one queue: ICReq, Fabrics Connect, Property Get/Set,
 * Identify, and pipelined NVM Read/Write with R2T/H2CData, digests optional. Non-blocking socket
 * driven by {@link #poll()}; completions are reported to a {@link Listener}. Used by
 * {@code nvme-perf} and by tests; the I/O path allocates nothing.
 *
 * <p>Not thread-safe: one thread per host queue.
 */
public final class NvmeTcpHost implements NvmeHostQueue {
    /** Completion and data callbacks (called from {@link #poll()}). */
    public interface Listener {
        /**
         * Read data arrived for {@code cid}: {@code len} bytes at {@code off} of {@code seg} (valid during the call).
         */
        void onData(int cid, MemorySegment seg, long off, int len, int dataOffset);

        /** The command completed. */
        void onCompletion(int cid, int status, int dw0);
    }

    /** The socket, or the TLS connection over it. */
    private final java.nio.channels.ByteChannel ch;
    private final SocketChannel sock;
    private final TlsChannel tls;
    private final boolean hdgst;
    private final boolean ddgst;
    private final int hd;
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment tx;
    private final ByteBuffer txBuf;
    private final MemorySegment rx;
    private final ByteBuffer rxBuf;
    private final PduDigest txDigest;
    private final int txCap;
    private final int rxCap;
    private int txHead;
    private int txTail;
    private int rxLen;
    /** Start of the first PDU not yet handled; {@code rx[rxPos, rxLen)} is unread. */
    private int rxPos;
    private int maxH2c = 131072;
    private Listener listener;
    /** Write data per cid (set by {@link #write}). */
    private final MemorySegment[] writeData;
    private final long[] writeOff;

    public NvmeTcpHost(String address, int port, boolean hdgst, boolean ddgst, int maxCid,
            int maxIo) throws IOException {
        this(address, port, hdgst, ddgst, maxCid, maxIo, null);
    }

    /** With {@code psk} (not null): NVMe/TCP over TLS 1.3, the handshake done here (10 s at most). */
    public NvmeTcpHost(String address, int port, boolean hdgst, boolean ddgst, int maxCid,
            int maxIo, NvmeTlsKey.Derived psk) throws IOException {
        this.sock = SocketChannel.open(new InetSocketAddress(address, port));
        sock.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
        sock.configureBlocking(false);
        try {
            this.tls = psk == null ? null : TlsChannel.connect(sock, new NvmeTlsClient(TlsChannel.crypto(), psk),
                    10_000);
        } catch (IOException e) {
            sock.close();
            throw new IOException("TLS handshake failed: " + e.getMessage(), e);
        }
        this.ch = tls != null ? tls : sock;
        this.hdgst = hdgst;
        this.ddgst = ddgst;
        this.hd = hdgst ? 4 : 0;
        this.txCap = Math.max(4 * maxIo, 1 << 20);
        this.rxCap = maxIo + (1 << 16);
        this.tx = arena.allocate(txCap, 4096);
        this.txBuf = tx.asByteBuffer();
        this.rx = arena.allocate(rxCap, 4096);
        this.rxBuf = rx.asByteBuffer();
        this.txDigest = new PduDigest(tx);
        this.writeData = new MemorySegment[maxCid];
        this.writeOff = new long[maxCid];
    }

    public void setListener(Listener l) {
        this.listener = l;
    }

    // ------------------------------------------------------------------ blocking control path

    /** ICReq/ICResp, blocking. */
    public void initialize() throws IOException {
        IcReqPdu.encode(tx, txTail, hdgst, ddgst, 0, 0);
        txTail += NvmeTcpPdu.IC_LEN;
        flushAll();
        readPduBlocking();
        if (NvmeTcpPdu.type(rx, rxPos) != NvmeTcpPdu.TYPE_IC_RESP) {
            throw new IOException("expected ICResp, got " + NvmeTcpPdu.typeName(NvmeTcpPdu.type(rx, rxPos)));
        }
        int dg = IcRespPdu.dgst(rx, rxPos);
        if (dg != ((hdgst ? 1 : 0) | (ddgst ? 2 : 0))) {
            throw new IOException("digest negotiation mismatch: " + dg);
        }
        maxH2c = (int) Math.min(IcRespPdu.maxH2cData(rx, rxPos), 1 << 20);
        consume();
    }

    /** Fabrics Connect; returns the CQE {status, dw0}. Blocking. */
    public int[] connect(int qid, int sqsize0, String subnqn, String hostnqn, int cntlid,
            long katoMs) throws IOException {
        return connect(qid, sqsize0, subnqn, hostnqn, cntlid, katoMs, 0);
    }

    /** Fabrics Connect with CATTR (bit 2: disable SQ flow control, reads then end with C2HData SUCCESS). */
    public int[] connect(int qid, int sqsize0, String subnqn, String hostnqn, int cntlid, long katoMs,
            int cattr) throws IOException {
        return connect(qid, sqsize0, subnqn, hostnqn, new byte[16], cntlid, katoMs, cattr);
    }

    /** Fabrics Connect carrying the 16-byte host identifier {@code hostId}. */
    public int[] connect(int qid, int sqsize0, String subnqn, String hostnqn, byte[] hostId, int cntlid, long katoMs,
            int cattr)
            throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        FabricsConnectCommand.encode(tx, sqe, 0x7000, qid, sqsize0, katoMs, cattr);
        NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_DATA_BLOCK_OFFSET, 0, FabricsConnectCommand.DATA_LEN);
        MemorySegment data = arena.allocate(FabricsConnectCommand.DATA_LEN);
        FabricsConnectCommand.encodeData(data, 0, hostId, cntlid, subnqn, hostnqn);
        finishCapsule(base, data, 0, FabricsConnectCommand.DATA_LEN);
        return awaitResp(0x7000);
    }

    /** Property Set (CC). */
    public int[] propertySet(int offset, long value) throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, NvmeOpcode.FABRICS, 0x7001, 0);
        tx.set(NvmeTcpPdu.U8, sqe + 4, (byte) NvmeOpcode.FCTYPE_PROPERTY_SET);
        NvmeCommand.putCdw(tx, sqe, FabricsConnectCommand.OFF_PROP_OFFSET, offset);
        tx.set(NvmeTcpPdu.LE64, sqe + FabricsConnectCommand.OFF_PROP_VALUE, value);
        finishCapsule(base, null, 0, 0);
        return awaitResp(0x7001);
    }

    /** Property Get: {status, low, high}. */
    public int[] propertyGet(int offset, boolean eightBytes) throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, NvmeOpcode.FABRICS, 0x7002, 0);
        tx.set(NvmeTcpPdu.U8, sqe + 4, (byte) NvmeOpcode.FCTYPE_PROPERTY_GET);
        tx.set(NvmeTcpPdu.U8, sqe + FabricsConnectCommand.OFF_PROP_ATTRIB, (byte) (eightBytes ? 1 : 0));
        NvmeCommand.putCdw(tx, sqe, FabricsConnectCommand.OFF_PROP_OFFSET, offset);
        finishCapsule(base, null, 0, 0);
        return awaitResp(0x7002);
    }

    /** An admin command returning data (Identify, Get Log Page): fills {@code out}; returns the status. */
    public int adminRead(int opcode, int nsid, int cdw10, int cdw11, byte[] out) throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, opcode, 0x7003, nsid);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW10, cdw10);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW11, cdw11);
        NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_TRANSPORT_DATA_BLOCK, 0, out.length);
        finishCapsule(base, null, 0, 0);
        return collectData(out);
    }

    private int collectData(byte[] out) throws IOException {
        lastDataEnd = 0;
        flushAll();
        while (true) {
            readPduBlocking();
            int type = NvmeTcpPdu.type(rx, rxPos);
            if (type == NvmeTcpPdu.TYPE_C2H_DATA) {
                int pdo = NvmeTcpPdu.pdo(rx, rxPos);
                long off = DataPdu.datao(rx, rxPos);
                long len = DataPdu.datal(rx, rxPos);
                if (off < 0 || len < 0 || off + len > out.length) {
                    throw new IOException("C2HData [" + off + ", " + (off + len) + ") outside the " + out.length
                            + "-byte buffer");
                }
                MemorySegment.copy(rx, java.lang.foreign.ValueLayout.JAVA_BYTE, rxPos + pdo, out, (int) off, (int) len);
                lastDataEnd = (int) Math.max(lastDataEnd, off + len);
                // SUCCESS (only valid with LAST): the command completed and no CapsuleResp follows
                // (SPDK's target does this by default).
                boolean success = isSuccess(NvmeTcpPdu.flags(rx, rxPos));
                consume();
                if (success) {
                    return 0;
                }
            } else if (type == NvmeTcpPdu.TYPE_CAPSULE_RESP) {
                int st = NvmeCompletion.status(rx, rxPos + NvmeTcpPdu.CH_LEN);
                consume();
                return st;
            } else if (type == NvmeTcpPdu.TYPE_C2H_TERM_REQ) {
                throw new IOException("target sent C2HTermReq, FES " + TermReqPdu.fes(rx, rxPos));
            } else {
                throw new IOException("unexpected " + NvmeTcpPdu.typeName(type));
            }
        }
    }

    /**
     * A command carrying {@code data} to the controller in its capsule (e.g. Reservation Register);
     * returns {status, dw0, dw1}.
     */
    public int[] commandWithData(int opcode, int nsid, int cdw10, int cdw11, byte[] data) throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, opcode, 0x7005, nsid);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW10, cdw10);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW11, cdw11);
        NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_DATA_BLOCK_OFFSET, 0, data.length);
        MemorySegment d = arena.allocate(data.length);
        MemorySegment.copy(data, 0, d, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, data.length);
        finishCapsule(base, d, 0, data.length);
        return awaitResp(0x7005);
    }

    /** Authentication Send/Receive CDW10: SECP E9h (NVMe), SPSP1 01h, SPSP0 01h (DH-HMAC-CHAP). */
    private int lastDataEnd;
    private static final int AUTH_CDW10 = (0xe9 << 24) | (1 << 16) | (1 << 8);

    /** Fabrics Authentication Send carrying {@code message} (TL = its length); returns {status, dw0, dw1}. */
    public int[] authSend(byte[] message) throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, NvmeOpcode.FABRICS, 0x7006, 0);
        tx.set(NvmeTcpPdu.U8, sqe + NvmeCommand.OFF_FCTYPE, (byte) NvmeOpcode.FCTYPE_AUTH_SEND);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW10, AUTH_CDW10);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW11, message.length);
        NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_DATA_BLOCK_OFFSET, 0, message.length);
        MemorySegment d = arena.allocate(message.length);
        MemorySegment.copy(message, 0, d, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, message.length);
        finishCapsule(base, d, 0, message.length);
        return awaitResp(0x7006);
    }

    /** Bytes the last data-returning command transferred (the end of its C2HData). */
    public int lastDataLength() {
        return lastDataEnd;
    }

    /** Fabrics Authentication Receive into {@code out} (AL = its length); returns the status. */
    public int authReceive(byte[] out) throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, NvmeOpcode.FABRICS, 0x7007, 0);
        tx.set(NvmeTcpPdu.U8, sqe + NvmeCommand.OFF_FCTYPE, (byte) NvmeOpcode.FCTYPE_AUTH_RECV);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW10, AUTH_CDW10);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW11, out.length);
        NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_TRANSPORT_DATA_BLOCK, 0, out.length);
        finishCapsule(base, null, 0, 0);
        return collectData(out);
    }

    /** Get Log Page of {@code out.length} bytes at byte offset {@code lpo} (LPO, CDW12-13); returns the status. */
    public int getLogPage(int lid, long lpo, byte[] out) throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, NvmeOpcode.ADMIN_GET_LOG_PAGE, 0x7003, 0);
        int numd = out.length / 4 - 1;
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW10, ((numd & 0xffff) << 16) | lid);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW11, numd >>> 16);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW12, (int) lpo);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW13, (int) (lpo >>> 32));
        NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_TRANSPORT_DATA_BLOCK, 0, out.length);
        finishCapsule(base, null, 0, 0);
        return collectData(out);
    }

    /** A command without data; returns {status, dw0}. */
    public int[] adminSimple(int opcode, int nsid, int cdw10, int cdw11) throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, opcode, 0x7004, nsid);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW10, cdw10);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW11, cdw11);
        finishCapsule(base, null, 0, 0);
        return awaitResp(0x7004);
    }

    /** Sends a command without data and does not wait (e.g. Asynchronous Event Request). */
    public void sendCommand(int opcode, int cid, int nsid, int cdw10, int cdw11) throws IOException {
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, opcode, cid, nsid);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW10, cdw10);
        NvmeCommand.putCdw(tx, sqe, NvmeCommand.OFF_CDW11, cdw11);
        finishCapsule(base, null, 0, 0);
        flushAll();
    }

    /** Waits for the CapsuleResp of {@code cid}: {status, dw0, dw1}. */
    public int[] awaitResp(int cid) throws IOException {
        flushAll();
        readPduBlocking();
        int type = NvmeTcpPdu.type(rx, rxPos);
        if (type != NvmeTcpPdu.TYPE_CAPSULE_RESP) {
            throw new IOException("expected CapsuleResp, got " + NvmeTcpPdu.typeName(type));
        }
        int[] r = {NvmeCompletion.status(rx, rxPos + NvmeTcpPdu.CH_LEN), NvmeCompletion.dw0(rx, rxPos
                + NvmeTcpPdu.CH_LEN),
                NvmeCompletion.dw1(rx, rxPos + NvmeTcpPdu.CH_LEN)};
        if (NvmeCompletion.cid(rx, rxPos + NvmeTcpPdu.CH_LEN) != cid) {
            throw new IOException("unexpected cid " + NvmeCompletion.cid(rx, rxPos + NvmeTcpPdu.CH_LEN));
        }
        consume();
        return r;
    }

    private void flushAll() throws IOException {
        while (txTail > txHead || (tls != null && tls.outputPending())) {
            flush();
        }
    }

    private void readPduBlocking() throws IOException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!pduReady()) {
            if (read() < 0) {
                throw new IOException("connection closed by target");
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("timeout waiting for a PDU");
            }
            Thread.onSpinWait();
        }
    }

    // ------------------------------------------------------------------ I/O path (allocation-free)

    /** Queues a Read of {@code nlb} blocks; false when the send buffer is full. */
    public boolean read(int cid, int nsid, long slba, int nlb, int bytes) {
        if (txCap - txTail < 256 && !compact(256)) {
            return false;
        }
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, NvmeOpcode.IO_READ, cid, nsid);
        NvmeCommand.putRange(tx, sqe, slba, nlb);
        NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_TRANSPORT_DATA_BLOCK, 0, bytes);
        finishCapsule(base, null, 0, 0);
        return true;
    }

    /**
     * Queues a Write; data of {@code bytes} at {@code off} of {@code data} goes in the capsule when
     * {@code bytes <= inCapsuleMax}, else after the target's R2T.
     */
    public boolean write(int cid, int nsid, long slba, int nlb, MemorySegment data, long off, int bytes,
            int inCapsuleMax) {
        int need = 256 + (bytes <= inCapsuleMax ? bytes : 0);
        if (txCap - txTail < need && !compact(need)) {
            return false;
        }
        int base = txTail;
        long sqe = base + NvmeTcpPdu.CH_LEN;
        NvmeCommand.encode(tx, sqe, NvmeOpcode.IO_WRITE, cid, nsid);
        NvmeCommand.putRange(tx, sqe, slba, nlb);
        if (bytes <= inCapsuleMax) {
            NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_DATA_BLOCK_OFFSET, 0, bytes);
            finishCapsule(base, data, off, bytes);
        } else {
            NvmeCommand.putSgl(tx, sqe, NvmeCommand.SGL_TRANSPORT_DATA_BLOCK, 0, bytes);
            writeData[cid] = data;
            writeOff[cid] = off;
            finishCapsule(base, null, 0, 0);
        }
        return true;
    }

    private void finishCapsule(int base, MemorySegment data, long dataOff, int dataLen) {
        int pdo = dataLen > 0 ? NvmeTcpPdu.CAPSULE_CMD_HLEN + hd : 0;
        int dd = ddgst && dataLen > 0 ? 4 : 0;
        int plen = NvmeTcpPdu.CAPSULE_CMD_HLEN + hd + dataLen + dd;
        int flags = (hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0) | (dd != 0 ? NvmeTcpPdu.FLAG_DDGSTF : 0);
        NvmeTcpPdu.putHeader(tx, base, NvmeTcpPdu.TYPE_CAPSULE_CMD, flags, NvmeTcpPdu.CAPSULE_CMD_HLEN, pdo, plen);
        if (hdgst) {
            txDigest.put(base, NvmeTcpPdu.CAPSULE_CMD_HLEN);
        }
        if (dataLen > 0) {
            MemorySegment.copy(data, dataOff, tx, base + pdo, dataLen);
            if (dd != 0) {
                txDigest.put(base + pdo, dataLen);
            }
        }
        txTail = base + plen;
    }

    private boolean compact(int need) {
        if (txHead > 0) {
            int pending = txTail - txHead;
            MemorySegment.copy(tx, txHead, tx, 0, pending);
            txHead = 0;
            txTail = pending;
        }
        return txCap - txTail >= need;
    }

    private int flush() throws IOException {
        if (txTail == txHead && (tls == null || !tls.outputPending())) {
            return 0;
        }
        txBuf.limit(txTail).position(txHead);
        int n = ch.write(txBuf);
        txBuf.clear();
        txHead += n;
        if (txHead == txTail) {
            txHead = 0;
            txTail = 0;
        }
        return n;
    }

    /**
     * One non-blocking socket read after the buffered PDUs. The PDUs already handled are dropped here, by
     * moving the unread rest to the front once per read: {@link #consume} only advances {@link #rxPos}
     * (moving the rest after every PDU, as this did before 2026-11-28, copied a 24-read burst ~12 times over).
     */
    private int read() throws IOException {
        if (rxPos > 0) {
            int rest = rxLen - rxPos;
            if (rest > 0) {
                MemorySegment.copy(rx, rxPos, rx, 0, rest);
            }
            rxLen = rest;
            rxPos = 0;
        }
        if (rxLen >= rxCap) {
            return 0;
        }
        rxBuf.limit(rxCap).position(rxLen);
        int n = ch.read(rxBuf);
        rxBuf.clear();
        if (n > 0) {
            rxLen += n;
        }
        return n;
    }

    /**
     * True when a whole PDU starts at {@link #rxPos}; a length below its common header or above the buffer is refused.
     */
    private boolean pduReady() throws IOException {
        int avail = rxLen - rxPos;
        if (avail < NvmeTcpPdu.CH_LEN) {
            return false;
        }
        long plen = NvmeTcpPdu.plen(rx, rxPos);
        if (plen < NvmeTcpPdu.CH_LEN || plen > rxCap) {
            throw new IOException("target sent a PDU of length " + plen);
        }
        return avail >= plen;
    }

    /** Done with the PDU at {@link #rxPos}. */
    private void consume() {
        rxPos += (int) NvmeTcpPdu.plen(rx, rxPos);
        if (rxPos == rxLen) {
            rxPos = 0;
            rxLen = 0;
        }
    }

    /** Non-blocking duty cycle: send, receive, dispatch. Returns PDUs handled. */
    public int poll() throws IOException {
        flush();
        if (read() < 0) {
            throw new IOException("connection closed by target");
        }
        int n = 0;
        while (pduReady()) {
            int p = rxPos;
            int type = NvmeTcpPdu.type(rx, p);
            switch (type) {
                case NvmeTcpPdu.TYPE_C2H_DATA -> {
                    int cid = DataPdu.cccid(rx, p);
                    listener.onData(cid, rx, p + NvmeTcpPdu.pdo(rx, p), (int) DataPdu.datal(rx, p),
                            (int) DataPdu.datao(rx, p));
                    if (isSuccess(NvmeTcpPdu.flags(rx, p))) {
                        listener.onCompletion(cid, 0, 0); // SUCCESS: no CapsuleResp follows
                    }
                }
                case NvmeTcpPdu.TYPE_CAPSULE_RESP -> listener.onCompletion(NvmeCompletion.cid(rx, p
                        + NvmeTcpPdu.CH_LEN),
                        NvmeCompletion.status(rx, p + NvmeTcpPdu.CH_LEN), NvmeCompletion.dw0(rx, p
                                + NvmeTcpPdu.CH_LEN));
                case NvmeTcpPdu.TYPE_R2T -> sendH2C(DataPdu.cccid(rx, p), DataPdu.ttag(rx, p), (int) DataPdu.datao(rx,
                        p),
                        (int) DataPdu.datal(rx, p));
                case NvmeTcpPdu.TYPE_C2H_TERM_REQ -> throw new IOException("target sent C2HTermReq, FES "
                        + TermReqPdu.fes(rx, p));
                default -> throw new IOException("unexpected PDU " + NvmeTcpPdu.typeName(type));
            }
            consume();
            n++;
        }
        flush();
        return n;
    }

    /** C2HData SUCCESS completes the command; the NVMe/TCP spec allows it only together with LAST_PDU. */
    private static boolean isSuccess(int flags) {
        return (flags & NvmeTcpPdu.FLAG_DATA_SUCCESS) != 0 && (flags & NvmeTcpPdu.FLAG_DATA_LAST) != 0;
    }

    private void sendH2C(int cid, int ttag, int r2to, int r2tl) throws IOException {
        MemorySegment data = writeData[cid];
        long base0 = writeOff[cid] + r2to;
        int done = 0;
        while (done < r2tl) {
            int len = Math.min(r2tl - done, maxH2c);
            int dd = ddgst ? 4 : 0;
            int pdo = NvmeTcpPdu.DATA_HLEN + hd;
            int need = pdo + len + dd;
            while (txCap - txTail < need && !compact(need)) {
                flush();
            }
            int b = txTail;
            boolean last = done + len == r2tl;
            int flags = (last ? NvmeTcpPdu.FLAG_DATA_LAST : 0) | (hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0) | (dd != 0
                    ? NvmeTcpPdu.FLAG_DDGSTF : 0);
            DataPdu.encode(tx, b, NvmeTcpPdu.TYPE_H2C_DATA, flags, pdo, need, cid, ttag, r2to + done, len);
            if (hdgst) {
                txDigest.put(b, NvmeTcpPdu.DATA_HLEN);
            }
            MemorySegment.copy(data, base0 + done, tx, b + pdo, len);
            if (dd != 0) {
                txDigest.put(b + pdo, len);
            }
            txTail = b + need;
            done += len;
        }
    }

    /**
     * Sleeps until the socket has data or {@code timeoutMillis} passed; returns at once while
     * something waits to be sent or a whole PDU is buffered. For an initiator that sleeps rather
     * than spins ({@code nvme-perf --idle-sleep}).
     */
    public void awaitReadable(long timeoutMillis) throws IOException {
        if (txTail > txHead || pduReady() || (tls != null && tls.outputPending())) {
            return;
        }
        if (selector == null) {
            selector = java.nio.channels.Selector.open();
            sock.register(selector, java.nio.channels.SelectionKey.OP_READ);
        }
        selector.select(IGNORE_KEY, timeoutMillis);
    }

    private static final java.util.function.Consumer<java.nio.channels.SelectionKey> IGNORE_KEY = k -> { };
    private java.nio.channels.Selector selector;

    @Override
    public void close() {
        try {
            if (selector != null) {
                selector.close();
            }
            ch.close();
        } catch (IOException e) {
            // closing
        }
        arena.close();
    }
}
