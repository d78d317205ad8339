package io.jdoca.nvmf.perf;

import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.IcRespPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.sta.nvmf.tcp.PduDigest;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A trivial NVMe/TCP responder, the transport ceiling for benchmarks: it answers ICReq, Connect
 * and Property commands, identifies one namespace, returns reads from a zero buffer and discards
 * writes (R2T + H2CData), with the same PDU sizes as a real target but no controller logic and
 * no storage. One blocking thread per connection. Not a target: do not use for anything else.
 */
public final class NvmeTcpEcho {
    private final ServerSocketChannel server;
    private final long nsBytes;

    public NvmeTcpEcho(int port, long nsBytes) throws IOException {
        this.server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress("127.0.0.1", port));
        this.nsBytes = nsBytes;
    }

    public int port() throws IOException {
        return ((InetSocketAddress) server.getLocalAddress()).getPort();
    }

    public void serve() throws IOException {
        while (true) {
            SocketChannel c = server.accept();
            Thread t = new Thread(() -> connection(c), "echo");
            t.setDaemon(true);
            t.start();
        }
    }

    private void connection(SocketChannel ch) {
        try (ch; Arena arena = Arena.ofConfined()) {
            ch.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
            int cap = 1 << 20;
            MemorySegment rx = arena.allocate(cap, 4096);
            ByteBuffer rxb = rx.asByteBuffer();
            MemorySegment tx = arena.allocate(cap, 4096);
            ByteBuffer txb = tx.asByteBuffer();
            PduDigest txd = new PduDigest(tx);
            boolean hd = false;
            boolean dd = false;
            boolean success = false;
            int rxLen = 0;
            int[] want = new int[65536];
            int[] got = new int[65536];
            while (true) {
                rxb.limit(cap).position(rxLen);
                int n = ch.read(rxb);
                if (n < 0) {
                    return;
                }
                rxLen += n;
                int pos = 0;
                int txLen = 0;
                while (rxLen - pos >= 8 && rxLen - pos >= NvmeTcpPdu.plen(rx, pos)) {
                    int type = NvmeTcpPdu.type(rx, pos);
                    int plen = (int) NvmeTcpPdu.plen(rx, pos);
                    int h = hd ? 4 : 0;
                    if (txLen > cap - (256 << 10)) {
                        txLen = send(ch, txb, txLen);
                    }
                    if (type == NvmeTcpPdu.TYPE_IC_REQ) {
                        int dg = rx.get(NvmeTcpPdu.U8, pos + 11);
                        hd = (dg & 1) != 0;
                        dd = (dg & 2) != 0;
                        IcRespPdu.encode(tx, txLen, hd, dd, 131072);
                        txLen += 128;
                    } else if (type == NvmeTcpPdu.TYPE_CAPSULE_CMD) {
                        long sqe = pos + 8;
                        NvmeCommand cmd = new NvmeCommand().wrap(rx, sqe);
                        int cid = cmd.cid();
                        int op = cmd.opcode();
                        int dw0 = 0;
                        int dw1 = 0;
                        int qid = 0;
                        if (op == NvmeOpcode.FABRICS) {
                            if (cmd.fctype() == NvmeOpcode.FCTYPE_CONNECT) {
                                qid = FabricsConnectCommand.qid(rx, sqe);
                                success = (FabricsConnectCommand.cattr(rx, sqe) & 0x4) != 0;
                                dw0 = 1;
                            } else if (cmd.fctype() == NvmeOpcode.FCTYPE_PROPERTY_GET) {
                                // CSTS.RDY = 1; CAP.MQES = 1023 (nvme-perf checks its queue depth against it)
                                int off = FabricsConnectCommand.propertyOffset(rx, sqe);
                                dw0 = off == 0x1c ? 1 : off == 0 ? 0x3ff : 0;
                            }
                        } else if (op == NvmeOpcode.ADMIN_IDENTIFY && qid == 0
                                && cmd.sglType() == NvmeCommand.SGL_TRANSPORT_DATA_BLOCK
                                && (cmd.nsid() != 0 && (cmd.cdw10() & 0xff) == 0 || (cmd.cdw10() & 0xff) == 2)) {
                            boolean nsList = (cmd.cdw10() & 0xff) == 2; // the active namespace list: namespace 1
                            tx.asSlice(txLen, 24 + h + 4096 + 8).fill((byte) 0);
                            int pdo = 24 + h;
                            DataPdu.encode(tx, txLen, NvmeTcpPdu.TYPE_C2H_DATA,
                                    NvmeTcpPdu.FLAG_DATA_LAST | (hd ? 1 : 0) | (dd ? 2 : 0),
                                    pdo, pdo + 4096 + (dd ? 4 : 0), cid, 0, 0, 4096);
                            if (nsList) {
                                tx.set(NvmeTcpPdu.LE32, txLen + pdo, 1);
                            } else {
                                tx.set(NvmeTcpPdu.LE64, txLen + pdo, nsBytes / 4096);
                                tx.set(NvmeTcpPdu.U8, txLen + pdo + 128 + 2, (byte) 12);
                            }
                            if (hd) {
                                txd.put(txLen, 24);
                            }
                            if (dd) {
                                txd.put(txLen + pdo, 4096);
                            }
                            txLen += pdo + 4096 + (dd ? 4 : 0);
                        } else if (op == NvmeOpcode.IO_READ) {
                            int len = (int) cmd.sglLength();
                            int pdo = 24 + h;
                            DataPdu.encode(tx, txLen, NvmeTcpPdu.TYPE_C2H_DATA,
                                    NvmeTcpPdu.FLAG_DATA_LAST | (hd ? 1 : 0) | (dd ? 2 : 0)
                                            | (success ? NvmeTcpPdu.FLAG_DATA_SUCCESS : 0),
                                    pdo, pdo + len + (dd ? 4 : 0), cid, 0, 0, len);
                            if (hd) {
                                txd.put(txLen, 24);
                            }
                            if (dd) {
                                txd.put(txLen + pdo, len);
                            }
                            txLen += pdo + len + (dd ? 4 : 0);
                            if (success) {
                                pos += plen;
                                continue;
                            }
                        } else if (op == NvmeOpcode.IO_WRITE && plen == 72 + h) {
                            int len = (int) cmd.sglLength();
                            int ttag = cid & 0xffff;
                            want[ttag] = len;
                            got[ttag] = 0;
                            DataPdu.encode(tx, txLen, NvmeTcpPdu.TYPE_R2T, hd ? 1 : 0, 0, 24 + h, cid, ttag, 0, len);
                            if (hd) {
                                txd.put(txLen, 24);
                            }
                            txLen += 24 + h;
                            pos += plen;
                            continue;
                        }
                        txLen = resp(tx, txd, txLen, hd, cid, dw0, dw1);
                    } else if (type == NvmeTcpPdu.TYPE_H2C_DATA) {
                        int ttag = DataPdu.ttag(rx, pos);
                        got[ttag] += (int) DataPdu.datal(rx, pos);
                        if (got[ttag] >= want[ttag]) {
                            txLen = resp(tx, txd, txLen, hd, DataPdu.cccid(rx, pos), 0, 0);
                        }
                    } else {
                        return;
                    }
                    pos += plen;
                }
                if (pos > 0) {
                    MemorySegment.copy(rx, pos, rx, 0, rxLen - pos);
                    rxLen -= pos;
                }
                send(ch, txb, txLen);
            }
        } catch (IOException e) {
            // connection closed
        }
    }

    private static int resp(MemorySegment tx, PduDigest txd, int txLen, boolean hd, int cid, int dw0, int dw1) {
        NvmeTcpPdu.putHeader(tx, txLen, NvmeTcpPdu.TYPE_CAPSULE_RESP, hd ? 1 : 0, 24, 0, 24 + (hd ? 4 : 0));
        NvmeCompletion.encode(tx, txLen + 8, dw0, dw1, 0, 0, cid, 0);
        if (hd) {
            txd.put(txLen, 24);
        }
        return txLen + 24 + (hd ? 4 : 0);
    }

    private static int send(SocketChannel ch, ByteBuffer txb, int txLen) throws IOException {
        txb.limit(txLen).position(0);
        while (txb.hasRemaining()) {
            ch.write(txb);
        }
        txb.clear();
        return 0;
    }
}
