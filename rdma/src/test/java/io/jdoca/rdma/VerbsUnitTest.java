package io.jdoca.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.rdma.wire.RdmaConnectionBlob;
import io.jdoca.rdma.wire.VerbsQpInfo;
import io.jdoca.verbs.VerbsConstants;
import java.lang.foreign.MemorySegment;
import java.util.UUID;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * What of the verbs transport runs without an RDMA device (the development host): the blob's QP descriptor
 * codec, the work-completion → DOCA error table, the RNR timer choice, the QP access flags, the transport
 * choice. The transport itself runs in the Soft-RoCE guest ({@link VerbsConformanceTest}).
 */
class VerbsUnitTest {
    private static final byte[] GID = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 10, 0, 2, 15};

    @Property
    void qpDescriptorRoundTrips(@ForAll @IntRange(min = 1, max = 0xFFFFFF) int qpn,
            @ForAll @IntRange(max = 0xFFFFFF) int psn,
            @ForAll @IntRange(max = 0xFFFF) int lid, @ForAll @IntRange(min = 1, max = 255) int port,
            @ForAll @IntRange(min = 1, max = 5) int mtu, @ForAll @IntRange(max = 2) int ll) {
        VerbsQpInfo v = new VerbsQpInfo(qpn, psn, GID, lid, port, mtu, ll, 0x7f00_0000_1000L + 8L * lid, qpn ^ psn);
        RdmaConnectionBlob b = new RdmaConnectionBlob(3, 42, AccessFlags.ANY_RDMA, 7, UUID.randomUUID(), 0, "", "", 0,
                0, v);
        RdmaConnectionBlob d = RdmaConnectionBlob.decode(b.encode());
        assertEquals(v, d.verbs());
        assertArrayEquals(GID, d.verbs().gid());
        assertEquals(3, d.transport());
        assertEquals(RdmaTransportType.VERBS, RdmaTransportType.fromCode(d.transport()));
    }

    @Test
    void shmAndTcpBlobsCarryNoQpAndAVerbsBlobMustCarryOne() {
        RdmaConnectionBlob tcp = new RdmaConnectionBlob(2, 1, 0, 7, UUID.randomUUID(), 4000, "127.0.0.1", "", 0, 0);
        assertNull(RdmaConnectionBlob.decode(tcp.encode()).verbs());
        assertThrows(IllegalArgumentException.class,
                () -> new RdmaConnectionBlob(3, 1, 0, 7, UUID.randomUUID(), 0, "", "", 0, 0, null).encode());
        // a VERBS blob cut short of its QP descriptor
        byte[] good = new RdmaConnectionBlob(3, 1, 0, 7, UUID.randomUUID(), 0, "", "", 0, 0,
                new VerbsQpInfo(5, 6, GID, 0, 1, 3, 2, 0x1000, 9)).encode();
        assertThrows(IllegalArgumentException.class, () -> RdmaConnectionBlob.decode(java.util.Arrays.copyOf(good,
                good.length - 1)));
    }

    @Test
    void malformedQpDescriptorsAreRefused() {
        byte[] good = new RdmaConnectionBlob(3, 1, 0, 7, UUID.randomUUID(), 0, "", "", 0, 0,
                new VerbsQpInfo(5, 6, GID, 0, 1, 3, 2, 0x1000, 9)).encode();
        int q = RdmaConnectionBlob.HEADER;
        int[][] bad = {{q + 3, 1}, {q + 7, 1}, {q + 26, 0}, {q + 27, 0}, {q + 27, 6}, {q + 28, 3}, {q + 29, 1}, {q
                + 31, 1},
            {q + 32, 1}, {q + 45, 1}};
        for (int[] f : bad) {
            byte[] b = good.clone();
            b[f[0]] = (byte) f[1];
            assertThrows(IllegalArgumentException.class, () -> RdmaConnectionBlob.decode(b), "byte " + f[0] + " = "
                    + f[1]);
        }
        byte[] zeroQpn = good.clone();
        MemorySegment.ofArray(zeroQpn).set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, q, 0);
        assertThrows(IllegalArgumentException.class, () -> RdmaConnectionBlob.decode(zeroQpn));
    }

    @Test
    void workCompletionStatusesMapToDocaErrorsPerTheDesignTable() {
        assertEquals(DocaError.SUCCESS, VerbsErrors.map(VerbsConstants.IBV_WC_SUCCESS, null));
        assertEquals(DocaError.INVALID_VALUE, VerbsErrors.map(VerbsConstants.IBV_WC_LOC_LEN_ERR, null));
        assertEquals(DocaError.NOT_PERMITTED, VerbsErrors.map(VerbsConstants.IBV_WC_LOC_PROT_ERR, null));
        assertEquals(DocaError.NOT_PERMITTED, VerbsErrors.map(VerbsConstants.IBV_WC_LOC_ACCESS_ERR, null));
        assertEquals(DocaError.NOT_PERMITTED, VerbsErrors.map(VerbsConstants.IBV_WC_REM_ACCESS_ERR, null));
        assertEquals(DocaError.INVALID_VALUE, VerbsErrors.map(VerbsConstants.IBV_WC_REM_INV_REQ_ERR, null));
        assertEquals(DocaError.DRIVER, VerbsErrors.map(VerbsConstants.IBV_WC_REM_OP_ERR, null));
        assertEquals(DocaError.TIME_OUT, VerbsErrors.map(VerbsConstants.IBV_WC_RNR_RETRY_EXC_ERR, null));
        assertEquals(DocaError.CONNECTION_RESET, VerbsErrors.map(VerbsConstants.IBV_WC_RETRY_EXC_ERR, null));
        assertEquals(DocaError.CONNECTION_RESET, VerbsErrors.map(VerbsConstants.IBV_WC_RESP_TIMEOUT_ERR, null));
        assertEquals(DocaError.SHUTDOWN, VerbsErrors.map(VerbsConstants.IBV_WC_WR_FLUSH_ERR, DocaError.SHUTDOWN));
        assertEquals(DocaError.CONNECTION_RESET, VerbsErrors.map(VerbsConstants.IBV_WC_WR_FLUSH_ERR, null));
        assertEquals(DocaError.DRIVER, VerbsErrors.map(VerbsConstants.IBV_WC_FATAL_ERR, null));
        assertEquals(DocaError.DRIVER, VerbsErrors.map(VerbsConstants.IBV_WC_GENERAL_ERR, null));
        assertEquals(DocaError.INVALID_VALUE, VerbsErrors.mapRecv(VerbsConstants.IBV_WC_LOC_LEN_ERR, null));
        assertEquals(DocaError.INVALID_VALUE, VerbsErrors.mapRecv(VerbsConstants.IBV_WC_LOC_QP_OP_ERR, null));
        assertEquals(DocaError.INVALID_VALUE, VerbsErrors.mapRecv(VerbsConstants.IBV_WC_REM_INV_REQ_ERR, null));
        assertEquals(DocaError.SHUTDOWN, VerbsErrors.mapRecv(VerbsConstants.IBV_WC_WR_FLUSH_ERR, DocaError.SHUTDOWN));
        assertFalse(VerbsErrors.fatal(VerbsConstants.IBV_WC_SUCCESS));
        assertFalse(VerbsErrors.fatal(VerbsConstants.IBV_WC_WR_FLUSH_ERR), "a flush is a consequence, never the cause");
        assertTrue(VerbsErrors.fatal(VerbsConstants.IBV_WC_RETRY_EXC_ERR));
        assertTrue(VerbsErrors.fatal(VerbsConstants.IBV_WC_REM_ACCESS_ERR), "an RC QP is in error after any failure");
        assertEquals(DocaError.TIME_OUT, VerbsErrors.connectionReason(VerbsConstants.IBV_WC_RNR_RETRY_EXC_ERR));
        assertEquals(DocaError.CONNECTION_RESET, VerbsErrors.connectionReason(VerbsConstants.IBV_WC_RETRY_EXC_ERR));
    }

    @Test
    void rnrTimerGivesAboutTheConfiguredRetryTimeOverSevenTries() {
        // 300 ms / 7 = 42.9 ms → code 25 (61.44 ms); 1 s / 7 = 143 ms → code 28 (163.84 ms)
        assertEquals(25, VerbsErrors.rnrTimerCode(300_000_000L));
        assertEquals(28, VerbsErrors.rnrTimerCode(1_000_000_000L));
        assertEquals(1, VerbsErrors.rnrTimerCode(1_000L));
        assertEquals(0, VerbsErrors.rnrTimerCode(60_000_000_000L), "longer than any code: the longest (655 ms)");
        for (long ms = 1; ms < 4000; ms += 7) {
            int c = VerbsErrors.rnrTimerCode(ms * 1_000_000L);
            if (c != 0) {
                assertTrue(VerbsErrors.RNR_MICROS[c] * 7 >= ms * 1000, ms + " ms → code " + c);
            }
        }
    }

    @Test
    void qpAccessFollowsTheContextPermissions() {
        assertEquals(VerbsConstants.IBV_ACCESS_LOCAL_WRITE, VerbsEndpoint.qpAccess(AccessFlags.LOCAL_READ_WRITE));
        assertEquals(VerbsConstants.IBV_ACCESS_LOCAL_WRITE | VerbsConstants.IBV_ACCESS_REMOTE_WRITE,
                VerbsEndpoint.qpAccess(AccessFlags.RDMA_WRITE));
        assertEquals(VerbsConstants.IBV_ACCESS_LOCAL_WRITE | VerbsConstants.IBV_ACCESS_REMOTE_READ
                | VerbsConstants.IBV_ACCESS_REMOTE_WRITE | VerbsConstants.IBV_ACCESS_REMOTE_ATOMIC,
                VerbsEndpoint.qpAccess(AccessFlags.ANY_RDMA));
    }

    @Test
    void verbsTalksOnlyToVerbs() {
        assertEquals(RdmaTransportType.VERBS, RdmaTransportType.resolve(RdmaTransportType.VERBS,
                RdmaTransportType.VERBS, false));
        assertNull(RdmaTransportType.resolve(RdmaTransportType.VERBS, RdmaTransportType.TCP, false));
        assertNull(RdmaTransportType.resolve(RdmaTransportType.AUTO, RdmaTransportType.VERBS, true));
        assertEquals(RdmaTransportType.SHM, RdmaTransportType.resolve(RdmaTransportType.AUTO, RdmaTransportType.AUTO,
                true));
    }

    @Test
    void verbsTransportOnASoftwareDeviceIsRefusedAtStart() {
        io.jdoca.core.dev.Dev sw = io.jdoca.core.dev.Devices.open("sw0");
        assertFalse(Rdma.capTransportTypeIsSupported(sw.devInfo(), RdmaTransportType.VERBS));
        Rdma r = Rdma.create(sw);
        io.jdoca.core.exec.ProgressEngine pe = io.jdoca.core.exec.ProgressEngine.create();
        assertEquals(DocaError.SUCCESS, pe.connectCtx(r));
        assertEquals(DocaError.SUCCESS, r.setTransport(RdmaTransportType.VERBS));
        assertEquals(DocaError.NOT_SUPPORTED, r.start());
        assertEquals(io.jdoca.core.exec.CtxState.IDLE, r.state());
    }
}
