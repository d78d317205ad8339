package io.jdoca.systemtests.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.DocaError;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaTransportType;
import io.jdoca.rdma.samples.RdmaPeerSample;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two JVMs on loopback, per transport: this test's JVM is the requester, a child JVM runs the
 * echo peer ({@link RdmaPeerSample}). Descriptors go through files, as in the DOCA samples. Checks
 * echoed messages of many sizes, RDMA write then read-back of 1 MiB, fetch-adds, and that the peer
 * sees the disconnect and exits cleanly.
 */
class RdmaTwoProcessSystemTest {
    private static final Duration T = Duration.ofSeconds(60);

    @ParameterizedTest
    @EnumSource(value = RdmaTransportType.class, names = {"SHM", "TCP"})
    void echoWriteReadAndAtomicsAcrossTwoJvms(RdmaTransportType transport, @TempDir Path dir) throws Exception {
        try (RdmaPeerFixture f = new RdmaPeerFixture("rdma-echo", transport, dir, 8L << 20, 1024, List.of())) {
            Rdma rdma = f.rdma;
            MemoryMap map = f.map;
            BufInventory inv = f.inv;
            long[] st = f.done; // recv ok, send ok, one-sided ok
            rdma.setMaxSendBufListLen(1);
            rdma.taskReceiveSetConf(f.done(0), f.failed(), 8);
            rdma.taskSendSetConf(f.done(1), f.failed(), 8);
            rdma.taskWriteSetConf(f.done(2), f.failed(), 32);
            rdma.taskReadSetConf(f.done(2), f.failed(), 32);
            rdma.taskAtomicFetchAddSetConf(f.done(2), f.failed(), 32);
            RdmaConnection c = f.connect();
            assertEquals(transport, c.transport());
            MemorySegment mem = f.region.segment();
            Random rnd = new Random(42);

            // 1. echo: 300 messages from 1 byte to 64 KiB
            for (int i = 0; i < 300; i++) {
                int len = i == 0 ? 1 : i == 1 ? 65536 : 1 + rnd.nextInt(65536);
                byte[] data = new byte[len];
                rnd.nextBytes(data);
                MemorySegment.copy(data, 0, mem, ValueLayout.JAVA_BYTE, 0, len);
                Buf dst = inv.getByAddr(map, map.baseAddress() + (1 << 20), 65536);
                long recvBefore = st[0];
                assertEquals(DocaError.SUCCESS, rdma.taskReceiveAllocInit(dst, i).submit());
                Buf src = inv.getByData(map, map.baseAddress(), len);
                assertEquals(DocaError.SUCCESS, rdma.taskSendAllocInit(c, src, i).submit());
                f.progressUntil(() -> st[0] > recvBefore || f.errors > 0, "echo " + i);
                assertEquals(0, f.errors, "errors");
                assertEquals(len, dst.dataLen());
                byte[] back = new byte[len];
                MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, 1 << 20, back, 0, len);
                assertArrayEquals(data, back, "echo " + i + " of " + len + " bytes");
                dst.decRefcount();
                src.decRefcount();
            }

            // 2. write 1 MiB into the child's memory, read it back
            MemoryMap remote = MemoryMap.createFromExport(RdmaPeerSample.readDescriptor(f.childMmap, 10_000), f.dev);
            byte[] data = new byte[1 << 20];
            rnd.nextBytes(data);
            MemorySegment.copy(data, 0, mem, ValueLayout.JAVA_BYTE, 2 << 20, data.length);
            long ok0 = st[2];
            for (int i = 0; i < 16; i++) {
                rdma.taskWriteAllocInit(c, inv.getByData(map, map.baseAddress() + (2 << 20) + i * 65536L, 65536),
                        inv.getByAddr(remote, remote.baseAddress() + i * 65536L, 65536), i).submit();
            }
            f.progressUntil(() -> st[2] >= ok0 + 16 || f.errors > 0, "writes");
            for (int i = 0; i < 16; i++) {
                rdma.taskReadAllocInit(c, inv.getByData(remote, remote.baseAddress() + i * 65536L, 65536),
                        inv.getByAddr(map, map.baseAddress() + (4 << 20) + i * 65536L, 65536), i).submit();
            }
            f.progressUntil(() -> st[2] >= ok0 + 32 || f.errors > 0, "reads");
            assertEquals(0, f.errors, "errors");
            byte[] back = new byte[data.length];
            MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, 4 << 20, back, 0, back.length);
            assertArrayEquals(data, back, "1 MiB written to the peer and read back");

            // 3. fetch-add on the peer's memory (the spare page after its receive buffers)
            long counterOff = 32L * 65536;
            long ok1 = st[2];
            Buf counter = inv.getByData(remote, remote.baseAddress() + counterOff, 8);
            for (int i = 0; i < 500; i++) {
                Buf res = inv.getByAddr(map, map.baseAddress() + (6 << 20) + (i % 32) * 8L, 8);
                long target = ok1 + i + 1;
                assertEquals(DocaError.SUCCESS, rdma.taskAtomicFetchAddAllocInit(c, counter, res, 3, i).submit());
                f.progressUntil(() -> st[2] >= target || f.errors > 0, "fetch-add " + i);
                assertEquals(3L * i, mem.get(ValueLayout.JAVA_LONG_UNALIGNED, (6 << 20) + (i % 32) * 8L),
                        "previous value");
                res.decRefcount();
            }
            assertEquals(0, f.errors, "errors");

            // 4. disconnect: the child sees it, goes IDLE and exits 0
            f.disconnectAndExpectCleanChildExit();
            assertTrue(f.child.output().contains("IDLE"), f.child.output());
            remote.close();
        }
    }
}
