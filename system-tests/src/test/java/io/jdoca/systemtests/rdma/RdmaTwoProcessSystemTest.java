package io.jdoca.systemtests.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTransportType;
import io.jdoca.rdma.samples.RdmaPeerSample;
import io.jdoca.testkit.JavaProcess;
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
        Path ld = dir.resolve("child.desc");
        Path re = dir.resolve("parent.desc");
        Path mm = dir.resolve("child-mmap.desc");
        try (JavaProcess child = JavaProcess.start("rdma-echo-" + transport, RdmaPeerSample.class.getName(),
                List.of("echo", "--transport", transport.name(), "-ld", ld.toString(), "-re", re.toString(), "-m", mm.toString()));
                SharedRegion region = SharedMemory.allocate(8L << 20)) {
            Dev dev = Devices.open("sw0");
            MemoryMap map = MemoryMap.create();
            map.setMemrange(region.segment());
            map.addDev(dev);
            map.setPermissions(AccessFlags.LOCAL_READ_WRITE);
            assertEquals(DocaError.SUCCESS, map.start());
            BufInventory inv = BufInventory.create(1024);
            inv.start();
            ProgressEngine pe = ProgressEngine.create();
            Rdma rdma = Rdma.create(dev);
            rdma.setTransport(transport);
            rdma.setMaxSendBufListLen(1);
            long[] st = new long[4]; // recv ok, send ok, one-sided ok, errors
            rdma.taskReceiveSetConf((t, ud, cud) -> {
                st[0]++;
                t.free();
            }, (t, ud, cud) -> {
                st[3]++;
                t.free();
            }, 8);
            rdma.taskSendSetConf((t, ud, cud) -> {
                st[1]++;
                t.free();
            }, (t, ud, cud) -> {
                st[3]++;
                t.free();
            }, 8);
            rdma.taskWriteSetConf((t, ud, cud) -> {
                st[2]++;
                t.free();
            }, (t, ud, cud) -> {
                st[3]++;
                t.free();
            }, 32);
            rdma.taskReadSetConf((t, ud, cud) -> {
                st[2]++;
                t.free();
            }, (t, ud, cud) -> {
                st[3]++;
                t.free();
            }, 32);
            rdma.taskAtomicFetchAddSetConf((t, ud, cud) -> {
                st[2]++;
                t.free();
            }, (t, ud, cud) -> {
                st[3]++;
                t.free();
            }, 32);
            pe.connectCtx(rdma);
            assertEquals(DocaError.IN_PROGRESS, rdma.start());
            RdmaExport x = rdma.export();
            RdmaPeerSample.writeDescriptor(re, x.blob());
            assertEquals(DocaError.SUCCESS, rdma.connect(RdmaPeerSample.readDescriptor(ld, 60_000), x.connection()));
            IdleStrategy idle = IdleStrategy.backoff();
            assertTrue(pe.progressUntil(() -> rdma.state() == CtxState.RUNNING, idle, T.toNanos()), "connected");
            child.awaitOutput("RUNNING " + transport, T);
            RdmaConnection c = x.connection();
            assertEquals(transport, c.transport());
            MemorySegment mem = region.segment();
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
                assertTrue(pe.progressUntil(() -> st[0] > recvBefore || st[3] > 0, idle, T.toNanos()), "echo " + i);
                assertEquals(0, st[3], "errors");
                assertEquals(len, dst.dataLen());
                byte[] back = new byte[len];
                MemorySegment.copy(mem, ValueLayout.JAVA_BYTE, 1 << 20, back, 0, len);
                assertArrayEquals(data, back, "echo " + i + " of " + len + " bytes");
                dst.decRefcount();
                src.decRefcount();
            }

            // 2. write 1 MiB into the child's memory, read it back
            MemoryMap remote = MemoryMap.createFromExport(RdmaPeerSample.readDescriptor(mm, 10_000), dev);
            byte[] data = new byte[1 << 20];
            rnd.nextBytes(data);
            MemorySegment.copy(data, 0, mem, ValueLayout.JAVA_BYTE, 2 << 20, data.length);
            long ok0 = st[2];
            for (int i = 0; i < 16; i++) {
                rdma.taskWriteAllocInit(c, inv.getByData(map, map.baseAddress() + (2 << 20) + i * 65536L, 65536),
                        inv.getByAddr(remote, remote.baseAddress() + i * 65536L, 65536), i).submit();
            }
            assertTrue(pe.progressUntil(() -> st[2] >= ok0 + 16 || st[3] > 0, idle, T.toNanos()), "writes");
            for (int i = 0; i < 16; i++) {
                rdma.taskReadAllocInit(c, inv.getByData(remote, remote.baseAddress() + i * 65536L, 65536),
                        inv.getByAddr(map, map.baseAddress() + (4 << 20) + i * 65536L, 65536), i).submit();
            }
            assertTrue(pe.progressUntil(() -> st[2] >= ok0 + 32 || st[3] > 0, idle, T.toNanos()), "reads");
            assertEquals(0, st[3], "errors");
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
                assertTrue(pe.progressUntil(() -> st[2] >= target || st[3] > 0, idle, T.toNanos()), "fetch-add " + i);
                assertEquals(3L * i, mem.get(ValueLayout.JAVA_LONG_UNALIGNED, (6 << 20) + (i % 32) * 8L), "previous value");
                res.decRefcount();
            }
            assertEquals(0, st[3], "errors");

            // 4. disconnect: the child sees it, goes IDLE and exits 0
            rdma.stop();
            assertTrue(pe.progressUntil(() -> rdma.state() == CtxState.IDLE, idle, T.toNanos()), "IDLE");
            assertEquals(0, child.awaitExit(T), child.output());
            assertTrue(child.output().contains("IDLE"), child.output());
            remote.close();
            map.close();
        }
    }
}
