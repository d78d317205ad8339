package io.jdoca.sta.nvmf.tcp;

import static io.jdoca.sta.nvmf.tcp.NvmeTcpPdu.DIGEST_LEN;

import io.jdoca.core.DocaError;
import io.jdoca.core.mem.NativeMemory;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfCommandExecutor;
import io.jdoca.sta.nvmf.NvmfPollGroup;
import io.jdoca.sta.nvmf.NvmfQpair;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.NvmfRequest;
import io.jdoca.sta.nvmf.NvmfRequestPool;
import io.jdoca.sta.nvmf.NvmfTransport;
import io.jdoca.sta.nvmf.NvmfTransportType;
import io.jdoca.sta.nvmf.tls.TlsChannel;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SocketChannel;

/**
 * The NVMe/TCP transport of one queue pair (NVMe/TCP Transport Specification 1.0; SPDK's
 * {@code spdk_nvmf_tcp_qpair}): ICReq/ICResp, PDU framing, header and data digests, R2T/H2CData for
 * host data, C2HData and CapsuleResp for answers, C2HTermReq on fatal errors. Each received command
 * takes one of its {@link NvmfRequest}s, whose index is the R2T's transfer tag, so an H2CData PDU
 * finds its request by index, never by CID. It hands commands and host data to the queue pair's
 * {@link NvmfCommandExecutor} and knows nothing of what they mean. See {@link NvmfTransport} for
 * the contract.
 *
 * <p>Receive and send buffers are pre-allocated (one maximum I/O plus headers to receive, four to
 * send); received PDUs are parsed in place and data leaves from where the back-end put it.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
public final class NvmfTcpQpair implements NvmfTransport {
    private static final System.Logger LOG = System.getLogger(NvmfTcpQpair.class.getName());
    private static final int QUIET_READS = 32; // a queue in use rarely finds 32 empty reads in a row; an idle one does

    private final NvmfQpair qp;
    private final NvmfPollGroup group;
    private final NvmfRequestPool pool;
    private final ByteChannel ch;
    /** A plain socket ({@link #pollAfterSelect} may skip its read); false for TLS. */
    private final boolean plainSocket;
    /** Reads in a row that found nothing (up to {@link #QUIET_READS}), busy passes counted while quiet. */
    private int quietReads, quietTick;
    /** The TLS connection when {@code ch} is one (a secure-channel listener), else null. */
    private final TlsChannel tls;
    private final SocketAddress remote;
    private final SocketAddress local;
    private final NativeMemory memory = new NativeMemory();
    private final int maxIo;
    private final int inCapsuleMax;
    private final int rxCap;
    private final int txCap;
    private final MemorySegment rx;
    private final ByteBuffer rxBuf;
    private final MemorySegment tx;
    private final ByteBuffer txBuf;
    private final PduDigest rxDigest;
    private final PduDigest txDigest;
    private final NvmeCommand cmd = new NvmeCommand();
    private final IcReqPdu icReq = new IcReqPdu();
    private int rxLen;
    private int txHead;
    private int txTail;
    private boolean hdgst;
    private boolean ddgst;
    private int hd;
    /** PDO of C2HData PDUs: header + header digest, padded to the host's HPDA alignment. */
    private int c2hPdo = NvmeTcpPdu.DATA_HLEN;

    /**
     * The transport of {@code qp} over accepted, non-blocking {@code ch}: {@code requests} requests,
     * data of up to {@code maxIo} bytes per command and {@code inCapsuleMax} in the capsule.
     */
    NvmfTcpQpair(NvmfQpair qp, ByteChannel ch, int maxIo, int inCapsuleMax, int requests) {
        this.qp = qp;
        this.group = qp.group();
        this.pool = new NvmfRequestPool(requests, NvmfRequest::new);
        this.ch = ch;
        this.plainSocket = ch instanceof SocketChannel;
        this.tls = ch instanceof TlsChannel t ? t : null;
        SocketAddress r = null;
        SocketAddress l = null;
        if ((tls != null ? tls.socket() : ch) instanceof SocketChannel sc) {
            try {
                r = sc.getRemoteAddress();
                l = sc.getLocalAddress();
            } catch (IOException e) {
                r = null;
            }
        }
        this.remote = r;
        this.local = l;
        this.maxIo = maxIo;
        this.inCapsuleMax = inCapsuleMax;
        this.rxCap = Math.max(maxIo, inCapsuleMax) + 512;
        this.txCap = 4 * maxIo + 4096;
        this.rx = memory.allocate(rxCap, 4096);
        this.tx = memory.allocate(txCap, 4096);
        this.rxBuf = rx.asByteBuffer();
        this.txBuf = tx.asByteBuffer();
        this.rxDigest = new PduDigest(rx);
        this.txDigest = new PduDigest(tx);
    }

    @Override
    public NvmfTransportType type() {
        return NvmfTcpTransport.INSTANCE;
    }

    @Override
    public NvmfRequestPool requests() {
        return pool;
    }

    private NvmfCommandExecutor exec() {
        return qp.executor();
    }

    // ------------------------------------------------------------------ sending

    @Override
    public boolean sendPending() {
        return txTail > txHead || (tls != null && tls.outputPending());
    }

    @Override
    public boolean reserve(int dataLen) {
        int chunks = Math.max(1, (dataLen + maxIo - 1) / maxIo);
        int need = dataLen == 0 ? respSize() : c2hPdo + dataLen + (ddgst ? DIGEST_LEN : 0) + respSize() + chunks * 64;
        return ensureTx(need);
    }

    /** Makes {@code need} contiguous bytes available at the tail, flushing and compacting; false if it cannot now. */
    private boolean ensureTx(int need) {
        if (txCap - txTail >= need) {
            return true;
        }
        flush();
        if (qp.closed()) {
            return false; // the socket failed during the flush; buffers are gone
        }
        if (txHead > 0) {
            int pending = txTail - txHead;
            MemorySegment.copy(tx, txHead, tx, 0, pending);
            txHead = 0;
            txTail = pending;
        }
        return txCap - txTail >= need;
    }

    @Override
    public int flush() {
        if ((txTail == txHead && (tls == null || !tls.outputPending())) || qp.state() == NvmfQpairState.CLOSED) {
            return 0;
        }
        try {
            txBuf.limit(txTail).position(txHead);
            int n = ch.write(txBuf);
            txBuf.clear();
            txHead += n;
            if (txHead == txTail) {
                txHead = 0;
                txTail = 0;
            }
            return n;
        } catch (IOException e) {
            txBuf.clear();
            qp.fail("send", DocaError.CONNECTION_RESET, 0);
            return -1;
        }
    }

    private int respSize() {
        return NvmeTcpPdu.CAPSULE_RESP_HLEN + hd;
    }

    /** Appends a CapsuleResp PDU carrying the completion of command {@code cid}. */
    private void putResponse(int cid, int status, int dw0, int dw1) {
        int b = txTail;
        NvmeTcpPdu.putHeader(tx, b, NvmeTcpPdu.TYPE_CAPSULE_RESP, hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0,
                NvmeTcpPdu.CAPSULE_RESP_HLEN, 0, NvmeTcpPdu.CAPSULE_RESP_HLEN + hd);
        NvmeCompletion.encode(tx, b + NvmeTcpPdu.CH_LEN, dw0, dw1, qp.sqhd(), Math.max(qp.qid(), 0), cid, status);
        if (hdgst) {
            txDigest.put(b, NvmeTcpPdu.CAPSULE_RESP_HLEN);
        }
        txTail = b + NvmeTcpPdu.CAPSULE_RESP_HLEN + hd;
    }

    @Override
    public void complete(NvmfRequest r) {
        putResponse(r.cid(), r.status(), r.dw0(), r.dw1());
        exec().completed(r); // the response is in the send buffer: the request is not needed any more
    }

    @Override
    public int inCapsuleDataSize() {
        return inCapsuleMax;
    }

    @Override
    public void requestHostData(NvmfRequest r, int offset, int len) {
        int b = txTail;
        DataPdu.encode(tx, b, NvmeTcpPdu.TYPE_R2T, hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0, 0,
                NvmeTcpPdu.R2T_HLEN + hd, r.cid(), r.tag(), offset, len);
        if (hdgst) {
            txDigest.put(b, NvmeTcpPdu.R2T_HLEN);
        }
        txTail = b + NvmeTcpPdu.R2T_HLEN + hd;
    }

    @Override
    public long c2hBegin(NvmfRequest r, int len) {
        return txTail + c2hPdo;
    }

    @Override
    public MemorySegment c2hBuffer() {
        return tx;
    }

    @Override
    public void c2hEnd(NvmfRequest r, int n, boolean complete) {
        int dd = ddgst ? DIGEST_LEN : 0;
        int pdo = c2hPdo;
        int hdr = txTail;
        int data = hdr + pdo;
        int flags = NvmeTcpPdu.FLAG_DATA_LAST | (hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0) | (dd != 0
                ? NvmeTcpPdu.FLAG_DDGSTF : 0)
                | (complete ? NvmeTcpPdu.FLAG_DATA_SUCCESS : 0);
        DataPdu.encode(tx, hdr, NvmeTcpPdu.TYPE_C2H_DATA, flags, pdo, pdo + n + dd, r.cid(), 0, 0, n);
        if (hdgst) {
            txDigest.put(hdr, NvmeTcpPdu.DATA_HLEN);
        }
        padC2H(hdr);
        if (dd != 0) {
            txDigest.put(data, n);
        }
        txTail = data + n + dd;
        if (complete) {
            exec().completed(r);
        }
    }

    /** Zeroes the padding between header (+ digest) and data (HPDA > 0 only). */
    private void padC2H(int b) {
        for (int i = NvmeTcpPdu.DATA_HLEN + hd; i < c2hPdo; i++) {
            tx.set(NvmeTcpPdu.U8, b + i, (byte) 0);
        }
    }

    @Override
    public void sendData(NvmfRequest r, MemorySegment src, long srcOff, int len) {
        int cid = r.cid();
        int done = 0;
        while (done < len) {
            int n = Math.min(len - done, maxIo);
            int dd = ddgst ? DIGEST_LEN : 0;
            int pdo = c2hPdo;
            int b = txTail;
            boolean last = done + n == len;
            int flags = (last ? NvmeTcpPdu.FLAG_DATA_LAST : 0) | (hdgst ? NvmeTcpPdu.FLAG_HDGSTF : 0)
                    | (dd != 0 ? NvmeTcpPdu.FLAG_DDGSTF : 0);
            DataPdu.encode(tx, b, NvmeTcpPdu.TYPE_C2H_DATA, flags, pdo, pdo + n + dd, cid, 0, done, n);
            MemorySegment.copy(src, srcOff + done, tx, b + pdo, n);
            if (hdgst) {
                txDigest.put(b, NvmeTcpPdu.DATA_HLEN);
            }
            padC2H(b);
            if (dd != 0) {
                txDigest.put(b + pdo, n);
            }
            txTail = b + pdo + n + dd;
            done += n;
        }
    }

    // ------------------------------------------------------------------ receiving

    /** A busy pass: a socket whose last {@link #QUIET_READS} reads found nothing (an idle admin queue) is read on
     *  every 16th pass only, and at once when the selector reports it ({@link #pollAfterSelect}). */
    @Override
    public int poll() {
        return poll(quietReads < QUIET_READS || (++quietTick & 15) == 0 || !plainSocket);
    }

    /** Skips the read only on a plain socket: a TLS channel may hold decrypted bytes the socket no longer shows. */
    @Override
    public int pollAfterSelect(boolean readable) {
        return poll(readable || !plainSocket);
    }

    private int poll(boolean read) {
        if (qp.closed()) {
            return 0;
        }
        flush();
        if (qp.state() == NvmfQpairState.TERMINATING) {
            if (!sendPending()) {
                qp.fail("protocol", DocaError.UNEXPECTED, 0);
            }
            return 0;
        }
        if (qp.closed()) {
            return 0;
        }
        if (read && rxLen < rxCap) {
            try {
                rxBuf.limit(rxCap).position(rxLen);
                int n = ch.read(rxBuf);
                rxBuf.clear();
                if (n < 0) {
                    qp.fail("recv", DocaError.CONNECTION_RESET, 0);
                    return 0;
                }
                rxLen += n;
                quietReads = n > 0 ? 0 : Math.min(quietReads + 1, QUIET_READS);
            } catch (IOException e) {
                rxBuf.clear();
                qp.fail("recv", DocaError.CONNECTION_RESET, 0);
                return 0;
            }
        }
        int handled = parse();
        flush();
        return handled;
    }

    private boolean receiving() {
        NvmfQpairState s = qp.state();
        return s == NvmfQpairState.CONNECTING || s == NvmfQpairState.READY || s == NvmfQpairState.DISCONNECTING;
    }

    private int parse() {
        int pos = 0;
        int handled = 0;
        while (rxLen - pos >= NvmeTcpPdu.CH_LEN && receiving()) {
            int type = NvmeTcpPdu.type(rx, pos);
            int hlen = NvmeTcpPdu.hlen(rx, pos);
            long plen = NvmeTcpPdu.plen(rx, pos);
            if (plen < NvmeTcpPdu.CH_LEN || plen < hlen || plen > rxCap) {
                fatal(pos, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PLEN);
                break;
            }
            if (rxLen - pos < plen) {
                break;
            }
            // Worst case one PDU produces a C2HData of maxIo plus a response: reserve before handling.
            if (!ensureTx(maxIo + 256)) {
                break;
            }
            handlePdu(pos, type, hlen, (int) plen);
            handled++;
            pos += (int) plen;
        }
        if (qp.state() == NvmfQpairState.TERMINATING || qp.state() == NvmfQpairState.CLOSED) {
            rxLen = 0;
            return handled;
        }
        if (pos > 0) {
            int rest = rxLen - pos;
            if (rest > 0) {
                MemorySegment.copy(rx, pos, rx, 0, rest);
            }
            rxLen = rest;
        }
        return handled;
    }

    private void handlePdu(int base, int type, int hlen, int plen) {
        if (qp.state() == NvmfQpairState.CONNECTING) {
            if (type != NvmeTcpPdu.TYPE_IC_REQ) {
                fatal(base, TermReqPdu.FES_PDU_SEQUENCE_ERROR, 0);
                return;
            }
            handleIcReq(base, hlen, plen);
            return;
        }
        switch (type) {
            case NvmeTcpPdu.TYPE_CAPSULE_CMD -> handleCapsule(base, hlen, plen);
            case NvmeTcpPdu.TYPE_H2C_DATA -> handleH2CData(base, hlen, plen);
            case NvmeTcpPdu.TYPE_H2C_TERM_REQ -> {
                LOG.log(System.Logger.Level.WARNING, "{0}: host sent H2CTermReq FES {1}", this, TermReqPdu.fes(rx,
                        base));
                qp.fail("protocol", DocaError.CONNECTION_ABORTED, TermReqPdu.fes(rx, base));
            }
            case NvmeTcpPdu.TYPE_IC_REQ -> fatal(base, TermReqPdu.FES_PDU_SEQUENCE_ERROR, 0);
            default -> fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PDU_TYPE);
        }
    }

    private void handleIcReq(int base, int hlen, int plen) {
        if (hlen != NvmeTcpPdu.IC_LEN || plen != NvmeTcpPdu.IC_LEN) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, hlen != NvmeTcpPdu.IC_LEN
                    ? NvmeTcpPdu.OFF_HLEN : NvmeTcpPdu.OFF_PLEN);
            return;
        }
        icReq.wrap(rx, base);
        if (icReq.pfv() != 0) {
            fatal(base, TermReqPdu.FES_UNSUPPORTED_PARAMETER, IcReqPdu.OFF_PFV);
            return;
        }
        if (icReq.hpda() > 31) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, IcReqPdu.OFF_HPDA);
            return;
        }
        hdgst = icReq.headerDigest();
        ddgst = icReq.dataDigest();
        hd = hdgst ? DIGEST_LEN : 0;
        // HPDA is 0's based dwords (NVMe/TCP 1.0 §3.6.2.2): data in controller-to-host PDUs starts on that alignment.
        int align = (icReq.hpda() + 1) * 4;
        c2hPdo = (NvmeTcpPdu.DATA_HLEN + hd + align - 1) / align * align;
        IcRespPdu.encode(tx, txTail, hdgst, ddgst, maxIo);
        txTail += NvmeTcpPdu.IC_LEN;
        qp.transition(NvmfQpairState.READY);
    }

    private boolean checkHeader(int base, int hlen, int expectHlen, int flags) {
        if (hlen != expectHlen) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_HLEN);
            return false;
        }
        if (hdgst) {
            if ((flags & NvmeTcpPdu.FLAG_HDGSTF) == 0) {
                fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_FLAGS);
                return false;
            }
            if (!rxDigest.check(base, hlen)) {
                group.countDigestError();
                fatal(base, TermReqPdu.FES_HEADER_DIGEST_ERROR, 0);
                return false;
            }
        }
        return true;
    }

    private void handleCapsule(int base, int hlen, int plen) {
        int flags = NvmeTcpPdu.flags(rx, base);
        if (!checkHeader(base, hlen, NvmeTcpPdu.CAPSULE_CMD_HLEN, flags)) {
            return;
        }
        int dataOff = 0;
        int dataLen = 0;
        boolean ddError = false;
        if (plen > hlen + hd) {
            int pdo = NvmeTcpPdu.pdo(rx, base);
            int dd = (ddgst && (flags & NvmeTcpPdu.FLAG_DDGSTF) != 0) ? DIGEST_LEN : 0;
            if (pdo < hlen + hd || pdo + dd > plen) {
                fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PDO);
                return;
            }
            dataOff = base + pdo;
            dataLen = plen - pdo - dd;
            if (dd != 0 && !rxDigest.check(dataOff, dataLen)) {
                group.countDigestError();
                ddError = true;
            }
        } else if (plen != hlen + hd) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, NvmeTcpPdu.OFF_PLEN);
            return;
        }
        cmd.wrap(rx, base + NvmeTcpPdu.CH_LEN);
        NvmfRequest r = pool.get();
        if (r == null) {
            // More commands than the queue holds: the host broke SQ flow control.
            qp.advanceSqHead();
            group.countIoError();
            putResponse(cmd.cid(), NvmeStatus.COMMAND_INTERRUPTED, 0, 0);
            return;
        }
        exec().onCommand(r, cmd, rx, dataOff, dataLen, ddError);
    }

    private void handleH2CData(int base, int hlen, int plen) {
        int flags = NvmeTcpPdu.flags(rx, base);
        if (!checkHeader(base, hlen, NvmeTcpPdu.DATA_HLEN, flags)) {
            return;
        }
        int ttag = DataPdu.ttag(rx, base);
        int cid = DataPdu.cccid(rx, base);
        NvmfRequest r = pool.byTag(ttag);
        if (r == null || !r.state().awaitsHostData()) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, DataPdu.OFF_TTAG);
            return;
        }
        if (r.cid() != cid) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, DataPdu.OFF_CCCID);
            return;
        }
        int pdo = NvmeTcpPdu.pdo(rx, base);
        int dd = (ddgst && (flags & NvmeTcpPdu.FLAG_DDGSTF) != 0) ? DIGEST_LEN : 0;
        long datao = DataPdu.datao(rx, base);
        long datal = DataPdu.datal(rx, base);
        if (pdo < hlen + hd || pdo + datal + dd != plen) {
            fatal(base, TermReqPdu.FES_INVALID_HEADER_FIELD, pdo < hlen + hd ? NvmeTcpPdu.OFF_PDO : DataPdu.OFF_DATAL);
            return;
        }
        if (datao != r.receivedLength() || datao + datal > r.expectedLength()) {
            fatal(base, TermReqPdu.FES_DATA_OUT_OF_RANGE, DataPdu.OFF_DATAO);
            return;
        }
        if (datal > maxIo) {
            fatal(base, TermReqPdu.FES_R2T_LIMIT_EXCEEDED, DataPdu.OFF_DATAL);
            return;
        }
        int n = (int) datal;
        int dataOff = base + pdo;
        boolean digestError = dd != 0 && !rxDigest.check(dataOff, n);
        if (digestError) {
            group.countDigestError();
        }
        exec().onHostData(r, rx, dataOff, (int) datao, n,
                digestError ? NvmeStatus.TRANSIENT_TRANSPORT_ERROR : NvmeStatus.SUCCESS);
    }

    /**
     * Fatal transport error: appends a C2HTermReq carrying the offending header and closes once it
     * is sent (NVMe/TCP 1.0 §3.6.2.5: the controller terminates the connection).
     */
    private void fatal(int base, int fes, int fei) {
        group.countProtocolError();
        int hlen = Math.min(NvmeTcpPdu.hlen(rx, base), TermReqPdu.MAX_DATA);
        int avail = Math.min(hlen, rxLen - base);
        if (avail < NvmeTcpPdu.CH_LEN) {
            avail = Math.min(NvmeTcpPdu.CH_LEN, rxLen - base);
        }
        if (ensureTx(NvmeTcpPdu.TERM_REQ_HLEN + TermReqPdu.MAX_DATA)) {
            int b = txTail;
            TermReqPdu.encode(tx, b, NvmeTcpPdu.TYPE_C2H_TERM_REQ, fes, fei, avail);
            MemorySegment.copy(rx, base, tx, b + NvmeTcpPdu.TERM_REQ_HLEN, avail);
            txTail = b + NvmeTcpPdu.TERM_REQ_HLEN + avail;
        }
        LOG.log(System.Logger.Level.WARNING, "{0}: fatal transport error FES {1} FEI {2}; closing", this, fes, fei);
        qp.terminate(fes);
    }

    // ------------------------------------------------------------------ identity and teardown

    @Override
    public int arm() {
        return 0; // sockets wake the engine through its selector
    }

    @Override
    public io.jdoca.sta.nvmf.tls.NvmeTlsIdentity tlsIdentity() {
        return tls == null ? null : tls.identity();
    }

    @Override
    public boolean headerDigest() {
        return hdgst;
    }

    @Override
    public boolean dataDigest() {
        return ddgst;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public SelectableChannel selectable() {
        return tls != null ? tls.socket() : ch instanceof SelectableChannel sc ? sc : null;
    }

    @Override
    public void close() {
        try {
            ch.close();
        } catch (IOException e) {
            // already closed by the peer
        }
    }

    @Override
    public void releaseMemory() {
        memory.close();
    }

    @Override
    public String toString() {
        return "NvmfTcpQpair[qid=" + qp.qid() + ", " + remote + (tls != null ? ", TLS" : "") + "]";
    }
}
