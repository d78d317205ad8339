package io.jdoca.systemtests.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.MmapExport;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTransportType;
import io.jdoca.rdma.SyncEventRemoteNet;
import io.jdoca.rdma.samples.RdmaPeerSample;
import io.jdoca.testkit.JavaProcess;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12 item 10: a sync event exported with core's {@code SyncEvent.exportToRemoteNet()} in one
 * JVM ({@link RdmaPeerSample} echo with {@code --sync-event}) is imported with
 * {@code SyncEventRemoteNet.createFromExport} in this one and driven with the remote-net sync event
 * tasks, per transport; the child sees the final value. The same blob with its capability altered
 * is refused (NOT_PERMITTED) and changes nothing.
 */
class RdmaSyncEventTwoProcessSystemTest {
    private static final Duration T = Duration.ofSeconds(60);

    @ParameterizedTest
    @EnumSource(value = RdmaTransportType.class, names = {"SHM", "TCP"})
    void remoteNetSyncEventRoundTripAcrossTwoJvms(RdmaTransportType transport, @TempDir Path dir) throws Exception {
        Path ld = dir.resolve("child.desc");
        Path re = dir.resolve("parent.desc");
        Path mm = dir.resolve("child-mmap.desc");
        Path ev = dir.resolve("child-event.desc");
        try (JavaProcess child = JavaProcess.start("rdma-sync-event-" + transport, RdmaPeerSample.class.getName(),
                List.of("echo", "--transport", transport.name(), "-ld", ld.toString(), "-re", re.toString(), "-m",
                        mm.toString(), "--sync-event", ev.toString()));
                SharedRegion region = SharedMemory.allocate(1 << 16)) {
            Dev dev = Devices.open("sw0");
            MemoryMap map = MemoryMap.create();
            map.setMemrange(region.segment());
            map.addDev(dev);
            map.setPermissions(AccessFlags.LOCAL_READ_WRITE);
            assertEquals(DocaError.SUCCESS, map.start());
            BufInventory inv = BufInventory.create(64);
            inv.start();
            ProgressEngine pe = ProgressEngine.create();
            Rdma rdma = Rdma.create(dev);
            rdma.setTransport(transport);
            long[] st = new long[2]; // ok, errors
            DocaError[] lastError = new DocaError[1];
            rdma.taskRemoteNetSyncEventGetSetConf((t, ud, cud) -> {
                st[0]++;
                t.free();
            }, (t, ud, cud) -> {
                st[1]++;
                lastError[0] = t.status();
                t.free();
            }, 8);
            rdma.taskRemoteNetSyncEventNotifySetSetConf((t, ud, cud) -> {
                st[0]++;
                t.free();
            }, (t, ud, cud) -> {
                st[1]++;
                lastError[0] = t.status();
                t.free();
            }, 8);
            rdma.taskRemoteNetSyncEventNotifyAddSetConf((t, ud, cud) -> {
                st[0]++;
                t.free();
            }, (t, ud, cud) -> {
                st[1]++;
                lastError[0] = t.status();
                t.free();
            }, 8);
            pe.connectCtx(rdma);
            assertEquals(DocaError.IN_PROGRESS, rdma.start());
            RdmaExport x = rdma.export();
            RdmaPeerSample.writeDescriptor(re, x.blob());
            assertEquals(DocaError.SUCCESS, rdma.connect(RdmaPeerSample.readDescriptor(ld, 60_000), x.connection()));
            IdleStrategy idle = IdleStrategy.backoff();
            assertTrue(pe.progressUntil(() -> rdma.state() == CtxState.RUNNING, idle, T.toNanos()), "connected");
            child.awaitOutput("RUNNING " + transport, T);
            RdmaConnection c = x.connection();
            MemorySegment mem = region.segment();
            byte[] blob = RdmaPeerSample.readDescriptor(ev, 10_000);

            // A forged capability: refused before the event's memory is touched.
            byte[] forged = blob.clone();
            MmapExport e = MmapExport.decode(Arrays.copyOfRange(blob, 8, blob.length));
            byte[] wrong = new MmapExport(e.kind(), e.shared(), e.permissions(), e.pid(), e.mapId(), e.baseAddress(),
                    e.length(), e.shmOffset(), e.hostId(), e.regionPid(), e.regionSeq(), e.cap0() ^ 0x8000, e.cap1()).encode();
            System.arraycopy(wrong, 0, forged, 8, wrong.length);
            DocaException refused = assertThrows(DocaException.class, () -> SyncEventRemoteNet.createFromExport(forged, dev));
            assertEquals(DocaError.NOT_PERMITTED, refused.error());

            try (SyncEventRemoteNet rev = SyncEventRemoteNet.createFromExport(blob, dev)) {
                mem.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1000);
                Buf setSrc = inv.getByData(map, map.baseAddress(), 8);
                assertEquals(DocaError.SUCCESS, rdma.taskRemoteNetSyncEventNotifySetAllocInit(c, rev, setSrc, 1).submit());
                assertTrue(pe.progressUntil(() -> st[0] + st[1] >= 1, idle, T.toNanos()), "notify-set");
                Buf prev = inv.getByAddr(map, map.baseAddress() + 64, 8);
                assertEquals(DocaError.SUCCESS, rdma.taskRemoteNetSyncEventNotifyAddAllocInit(c, rev, prev, 23, 2).submit());
                assertTrue(pe.progressUntil(() -> st[0] + st[1] >= 2, idle, T.toNanos()), "notify-add");
                Buf got = inv.getByAddr(map, map.baseAddress() + 128, 8);
                assertEquals(DocaError.SUCCESS, rdma.taskRemoteNetSyncEventGetAllocInit(c, rev, got, 3).submit());
                assertTrue(pe.progressUntil(() -> st[0] + st[1] >= 3, idle, T.toNanos()), "get");
                assertEquals(0, st[1], "errors (last " + lastError[0] + ")");
                assertEquals(1000, mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 64), "value before the add");
                assertEquals(1023, mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 128), "value read back");
                setSrc.decRefcount();
                prev.decRefcount();
                got.decRefcount();
            }

            rdma.stop();
            assertTrue(pe.progressUntil(() -> rdma.state() == CtxState.IDLE, idle, T.toNanos()), "IDLE");
            assertEquals(0, child.awaitExit(T), child.output());
            assertTrue(child.output().contains("EVENT 1023"), child.output());
            map.close();
        }
    }
}
