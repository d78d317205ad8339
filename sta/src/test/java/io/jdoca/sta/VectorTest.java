package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.DocaError;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.tcp.IcRespPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.sta.nvmf.tcp.PduDigest;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Feeds the bytes Linux 6.1's nvme-tcp host really sent (captured by nvme-vm, copied to
 * resources/vectors) and checks the engine's exact responses.
 */
class VectorTest {
    static final String V = "/vectors/linux-6.1.0-56-amd64-";
    static final String PROBE_NQN = "nqn.2024-01.io.nvmevm:probe";
    static final String LINUX_HOST = "nqn.2014-08.org.nvmexpress:uuid:6e766d65-766d-4d00-8000-6e766d65766d";

    static byte[] load(String name) throws IOException {
        try (InputStream in = VectorTest.class.getResourceAsStream(V + name)) {
            return in.readAllBytes();
        }
    }

    private static byte[] received(TestClient c, int plen) {
        return c.rx.asSlice(0, plen).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void icReqWithoutDigestsGetsTheIcRespLinuxAccepted() throws IOException {
        try (TestBed bed = new TestBed(1 << 20, 4096)) {
            PipeChannel[] p = PipeChannel.pair(1 << 20);
            bed.io.qpConnect(p[0]);
            TestClient c = new TestClient(bed, p[1]);
            c.raw(load("icreq.bin"));
            c.expect(NvmeTcpPdu.TYPE_IC_RESP);
            byte[] icresp = received(c, 128);
            assertArrayEquals(Arrays.copyOf(load("icreq-connect-admin.reply.bin"), 128), icresp);
            assertEquals(0, IcRespPdu.pfv(c.rx, 0));
            assertEquals(0, IcRespPdu.cpda(c.rx, 0));
            assertEquals(0, IcRespPdu.dgst(c.rx, 0));
            long maxh2c = IcRespPdu.maxH2cData(c.rx, 0);
            assertTrue(maxh2c >= 4096 && maxh2c % 4 == 0, "MAXH2CDATA " + maxh2c);
        }
    }

    @Test
    void icReqWithDigestsEchoesDgst() throws IOException {
        try (TestBed bed = new TestBed(1 << 20, 4096)) {
            PipeChannel[] p = PipeChannel.pair(1 << 20);
            StaQp qp = bed.io.qpConnect(p[0]);
            TestClient c = new TestClient(bed, p[1]);
            c.raw(load("icreq-hdgst-ddgst.bin"));
            c.expect(NvmeTcpPdu.TYPE_IC_RESP);
            assertEquals(3, IcRespPdu.dgst(c.rx, 0));
            assertArrayEquals(Arrays.copyOf(load("icreq-connect-admin-hdgst-ddgst.reply.bin"), 128), received(c, 128));
            assertTrue(qp.headerDigest() && qp.dataDigest());
        }
    }

    private void connectVector(String name, boolean digests, String subnqn, long kato) throws IOException {
        try (TestBed bed = new TestBed(1 << 20, 4096)) {
            bed.autoAnswer = false;
            PipeChannel[] p = PipeChannel.pair(1 << 20);
            StaQp qp = bed.io.qpConnect(p[0]);
            TestClient c = new TestClient(bed, p[1]);
            c.raw(load(name + ".bin"));
            c.expect(NvmeTcpPdu.TYPE_IC_RESP);
            bed.pump();
            assertEquals(1, bed.nonOffloaded.size(), "the Connect went to the non-offload callback");
            assertEquals("127/1/1024/true", bed.nonOffloaded.get(0));
            assertEquals(subnqn, bed.connectSubNqn);
            assertEquals(LINUX_HOST, bed.connectHostNqn);
            assertEquals(0xffff, bed.connectCntlid);
            assertEquals(kato, bed.connectKato);
            assertEquals(31, bed.connectSqsize);
            assertEquals(0, bed.connectQid);
            assertEquals(0, qp.qid());
            assertEquals(0, bed.digestErrors());
            // Answer as the capture's listener did: Connect Invalid Host.
            StaIoTaskNonOffloadSend t = bed.io.taskNonOffloadSendAllocInit(qp, bed.lastCid,
                    NvmeStatus.CONNECT_INVALID_HOST, 0, 0, 0);
            assertEquals(DocaError.SUCCESS, t.submit());
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            int plen = (int) NvmeTcpPdu.plen(c.rx, 0);
            byte[] resp = received(c, plen);
            byte[] reply = load(name + ".reply.bin");
            byte[] expected = Arrays.copyOfRange(reply, 128, reply.length);
            assertEquals(expected.length, resp.length);
            assertEquals(0x8308, c.cqeStatus());
            // SQHD: the capture's listener sent 0; a controller reports the head after consuming the Connect (1).
            assertEquals(1, resp[16] & 0xff);
            expected[16] = 1;
            if (digests) {
                int crc = PduDigest.crc32c(expected, 0, 24);
                expected[24] = (byte) crc;
                expected[25] = (byte) (crc >>> 8);
                expected[26] = (byte) (crc >>> 16);
                expected[27] = (byte) (crc >>> 24);
            }
            assertArrayEquals(expected, resp);
        }
    }

    @Test
    void adminConnectIsDeliveredAndAnsweredByteForByte() throws IOException {
        connectVector("icreq-connect-admin", false, PROBE_NQN, 5000);
    }

    @Test
    void adminConnectWithDigestsVerifiesAndProducesDigests() throws IOException {
        connectVector("icreq-connect-admin-hdgst-ddgst", true, PROBE_NQN, 5000);
    }

    @Test
    void discoveryConnectHasKatoZero() throws IOException {
        connectVector("icreq-connect-discovery", false, "nqn.2014-08.org.nvmexpress.discovery", 0);
    }

    @Test
    void capturedDigestsMatchCrc32c() throws IOException {
        byte[] b = load("icreq-connect-admin-hdgst-ddgst.bin");
        int base = 128;
        int hcrc = PduDigest.crc32c(b, base, 72);
        int stored = (b[base + 72] & 0xff) | (b[base + 73] & 0xff) << 8 | (b[base + 74] & 0xff) << 16
                | (b[base + 75] & 0xff) << 24;
        assertEquals(0xff0e9150, stored);
        assertEquals(stored, hcrc);
        int dcrc = PduDigest.crc32c(b, base + 76, 1024);
        int dstored = (b[base + 1100] & 0xff) | (b[base + 1101] & 0xff) << 8 | (b[base + 1102] & 0xff) << 16
                | (b[base + 1103] & 0xff) << 24;
        assertEquals(0x5281d42d, dstored);
        assertEquals(dstored, dcrc);
        assertEquals(0xE3069283, PduDigest.crc32c("123456789".getBytes(), 0, 9));
    }
}
