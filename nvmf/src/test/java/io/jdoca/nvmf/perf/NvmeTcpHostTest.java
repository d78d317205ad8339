package io.jdoca.nvmf.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.IcRespPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NvmeTcpHost} against a fake loopback target that completes reads as SPDK's target does by
 * default: C2HData with LAST_PDU and SUCCESS, and no CapsuleResp. Before the fix the admin read path
 * (Identify, Get Log Page) waited for a CapsuleResp that never comes ("timeout waiting for a PDU").
 */
class NvmeTcpHostTest {
    /** Byte {@code i} of the data the fake target returns for command {@code cid}. */
    private static byte data(int cid, int i) {
        return (byte) (cid * 31 + i * 7);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void c2hDataSuccessCompletesAdminAndIoReads() throws Exception {
        int[] done = {0, -1};
        int[] bytes = {0};
        NvmeTcpHost.Listener l = new NvmeTcpHost.Listener() {
            @Override
            public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
                for (int i = 0; i < len; i++) {
                    assertEquals(data(cid, dataOffset + i), seg.get(NvmeTcpPdu.U8, off + i));
                }
                bytes[0] += len;
            }

            @Override
            public void onCompletion(int cid, int status, int dw0) {
                assertEquals(5, cid);
                done[0]++;
                done[1] = status;
            }
        };
        withTarget(NvmeTcpHostTest::fakeTarget, l, h -> {
            // 1. Identify: two C2HData PDUs, the second with LAST|SUCCESS, no CapsuleResp.
            byte[] id = new byte[4096];
            assertEquals(0, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 1, 0, id));
            for (int i = 0; i < id.length; i++) {
                assertEquals(data(0x7003, i), id[i], "Identify byte " + i);
            }
            // 2. Get Log Page, same completion; then the next command still lines up.
            byte[] log = new byte[512];
            assertEquals(0, h.getLogPage(0x02, 0, log));
            assertEquals(data(0x7003, 511), log[511]);
            // 3. An I/O read through poll(): SUCCESS completes it once, with status 0.
            assertTrue(h.read(5, 1, 0, 1, 4096));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (done[0] == 0 && System.nanoTime() < deadline) {
                h.poll();
            }
            assertEquals(1, done[0]);
            assertEquals(0, done[1]);
            assertEquals(4096, bytes[0]);
            // 4. A read answered the classic way (C2HData LAST, then CapsuleResp) still works.
            assertEquals(0x0002, h.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 2, 0, new byte[64]));
        });
    }

    /** A fake target's side of one test, after the ICReq/ICResp exchange. */
    private interface Script {
        void run(DataInputStream in, OutputStream out) throws IOException;
    }

    /** The host's side of one test: an initialized host with {@code listener} set. */
    private interface HostSide {
        void run(NvmeTcpHost h) throws Exception;
    }

    /** Runs {@code host} against a fake loopback target that answers ICReq, then plays {@code script}. */
    private static void withTarget(Script script, NvmeTcpHost.Listener listener, HostSide host) throws Exception {
        AtomicReference<Throwable> targetFailure = new AtomicReference<>();
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread target = new Thread(() -> {
                try (Socket s = ss.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    in.readFully(new byte[NvmeTcpPdu.IC_LEN]);
                    byte[] icResp = new byte[NvmeTcpPdu.IC_LEN];
                    IcRespPdu.encode(MemorySegment.ofArray(icResp), 0, false, false, 131072);
                    s.getOutputStream().write(icResp);
                    script.run(in, s.getOutputStream());
                    in.read(); // wait for the host to close
                } catch (Throwable t) {
                    targetFailure.set(t);
                }
            }, "fake-target");
            target.start();
            try (NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", ss.getLocalPort(), false, false, 32, 8192)) {
                h.initialize();
                h.setListener(listener);
                host.run(h);
            }
            target.join(10_000);
            assertNull(targetFailure.get());
        }
    }

    /** One C2HData PDU (LAST|SUCCESS) carrying {@code len} bytes of {@link #data} for {@code cid}. */
    private static byte[] c2h(int cid, int len) {
        byte[] pdu = new byte[NvmeTcpPdu.DATA_HLEN + len];
        DataPdu.encode(MemorySegment.ofArray(pdu), 0, NvmeTcpPdu.TYPE_C2H_DATA,
                NvmeTcpPdu.FLAG_DATA_LAST | NvmeTcpPdu.FLAG_DATA_SUCCESS,
                NvmeTcpPdu.DATA_HLEN, pdu.length, cid, 0, 0, len);
        for (int i = 0; i < len; i++) {
            pdu[NvmeTcpPdu.DATA_HLEN + i] = data(cid, i);
        }
        return pdu;
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aBurstOfAnswersInOneReadIsDispatchedInOrderWithTheRightData() throws Exception {
        int reads = 24;
        int[] seen = new int[reads];
        int[] done = {0};
        NvmeTcpHost.Listener l = new NvmeTcpHost.Listener() {
            @Override
            public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
                for (int i = 0; i < len; i++) {
                    assertEquals(data(cid, dataOffset + i), seg.get(NvmeTcpPdu.U8, off + i), "cid " + cid + " byte "
                            + i);
                }
                seen[cid] += len;
            }

            @Override
            public void onCompletion(int cid, int status, int dw0) {
                assertEquals(cid == 7 ? 0x0002 : 0, status, "cid " + cid);
                done[0]++;
            }
        };
        withTarget((in, out) -> {
            java.io.ByteArrayOutputStream burst = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < reads; i++) {
                int cid = readCapsuleCid(in);
                if (cid == 7) { // one command answered with a CapsuleResp (an error status), between the data
                    byte[] resp = new byte[NvmeTcpPdu.CAPSULE_RESP_HLEN];
                    MemorySegment r = MemorySegment.ofArray(resp);
                    NvmeTcpPdu.putHeader(r, 0, NvmeTcpPdu.TYPE_CAPSULE_RESP, 0, NvmeTcpPdu.CAPSULE_RESP_HLEN, 0,
                            NvmeTcpPdu.CAPSULE_RESP_HLEN);
                    NvmeCompletion.encode(r, NvmeTcpPdu.CH_LEN, 0, 0, 0, 0, cid, 0x0002);
                    burst.write(resp);
                } else {
                    burst.write(c2h(cid, 4096));
                }
            }
            byte[] all = burst.toByteArray();
            // All answers in one write but the last 100 bytes, which follow separately: the host sees
            // many whole PDUs and a partial one in one read, and must keep the partial one for the next.
            out.write(all, 0, all.length - 100);
            out.flush();
            out.write(all, all.length - 100, 100);
            out.flush();
        }, l, h -> {
            for (int cid = 0; cid < reads; cid++) {
                assertTrue(h.read(cid, 1, cid * 8L, 1, 4096));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (done[0] < reads && System.nanoTime() < deadline) {
                h.poll();
            }
        });
        assertEquals(reads, done[0]);
        for (int cid = 0; cid < reads; cid++) {
            assertEquals(cid == 7 ? 0 : 4096, seen[cid], "bytes for cid " + cid);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aPduShorterThanItsCommonHeaderIsRejectedNotSpunOn() throws Exception {
        NvmeTcpHost.Listener none = new NvmeTcpHost.Listener() {
            @Override
            public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
            }

            @Override
            public void onCompletion(int cid, int status, int dw0) {
            }
        };
        withTarget((in, out) -> {
            readCapsuleCid(in);
            byte[] bad = c2h(0, 64);
            MemorySegment.ofArray(bad).set(NvmeTcpPdu.LE32, 4, 4); // PLEN 4 < the 8-byte common header
            out.write(bad);
            out.flush();
        }, none, h -> {
            assertTrue(h.read(0, 1, 0, 1, 4096));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            IOException e = assertThrows(IOException.class, () -> {
                while (System.nanoTime() < deadline) {
                    h.poll();
                }
            }, "the host accepted a PDU of length 4");
            assertTrue(e.getMessage().contains("PDU of length 4"), e.getMessage());
        });
    }

    private static void fakeTarget(DataInputStream in, OutputStream out) throws IOException {
        // Identify (4096 B in two PDUs), Get Log Page (512 B), I/O read (4096 B): SUCCESS, no CapsuleResp.
        int[][] plan = {{4096, 2}, {512, 1}, {4096, 1}};
        for (int[] p : plan) {
            int cid = readCapsuleCid(in);
            int per = p[0] / p[1];
            for (int k = 0; k < p[1]; k++) {
                boolean last = k == p[1] - 1;
                sendData(out, cid, k * per, per, last ? NvmeTcpPdu.FLAG_DATA_LAST | NvmeTcpPdu.FLAG_DATA_SUCCESS : 0);
            }
        }
        // The classic way: data without SUCCESS, then a CapsuleResp carrying a status.
        int cid = readCapsuleCid(in);
        sendData(out, cid, 0, 64, NvmeTcpPdu.FLAG_DATA_LAST);
        byte[] resp = new byte[NvmeTcpPdu.CAPSULE_RESP_HLEN];
        MemorySegment r = MemorySegment.ofArray(resp);
        NvmeTcpPdu.putHeader(r, 0, NvmeTcpPdu.TYPE_CAPSULE_RESP, 0, NvmeTcpPdu.CAPSULE_RESP_HLEN, 0,
                NvmeTcpPdu.CAPSULE_RESP_HLEN);
        NvmeCompletion.encode(r, NvmeTcpPdu.CH_LEN, 0, 0, 0, 0, cid, 0x0002);
        out.write(resp);
        out.flush();
    }

    private static int readCapsuleCid(DataInputStream in) throws IOException {
        byte[] ch = new byte[NvmeTcpPdu.CH_LEN];
        in.readFully(ch);
        MemorySegment c = MemorySegment.ofArray(ch);
        assertEquals(NvmeTcpPdu.TYPE_CAPSULE_CMD, NvmeTcpPdu.type(c, 0));
        byte[] rest = new byte[(int) NvmeTcpPdu.plen(c, 0) - NvmeTcpPdu.CH_LEN];
        in.readFully(rest);
        return MemorySegment.ofArray(rest).get(NvmeTcpPdu.LE16, 2) & 0xffff; // SQE CID (byte 2 of the SQE)
    }

    private static void sendData(OutputStream out, int cid, int off, int len, int flags) throws IOException {
        byte[] pdu = new byte[NvmeTcpPdu.DATA_HLEN + len];
        MemorySegment m = MemorySegment.ofArray(pdu);
        DataPdu.encode(m, 0, NvmeTcpPdu.TYPE_C2H_DATA, flags, NvmeTcpPdu.DATA_HLEN, pdu.length, cid, 0, off, len);
        for (int i = 0; i < len; i++) {
            pdu[NvmeTcpPdu.DATA_HLEN + i] = data(cid, off + i);
        }
        out.write(pdu);
        out.flush();
    }
}
