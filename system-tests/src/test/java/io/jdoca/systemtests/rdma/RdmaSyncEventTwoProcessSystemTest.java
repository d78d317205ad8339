package io.jdoca.systemtests.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.MmapExport;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaTransportType;
import io.jdoca.rdma.SyncEventRemoteNet;
import io.jdoca.rdma.samples.RdmaPeerSample;
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
        Path ev = dir.resolve("child-event.desc");
        try (RdmaPeerFixture f = new RdmaPeerFixture("rdma-sync-event", transport, dir, 1 << 16, 64,
                List.of("--sync-event", ev.toString()))) {
            Rdma rdma = f.rdma;
            MemoryMap map = f.map;
            BufInventory inv = f.inv;
            Dev dev = f.dev;
            rdma.taskRemoteNetSyncEventGetSetConf(f.done(0), f.failed(), 8);
            rdma.taskRemoteNetSyncEventNotifySetSetConf(f.done(0), f.failed(), 8);
            rdma.taskRemoteNetSyncEventNotifyAddSetConf(f.done(0), f.failed(), 8);
            RdmaConnection c = f.connect();
            MemorySegment mem = f.region.segment();
            byte[] blob = RdmaPeerSample.readDescriptor(ev, 10_000);

            // A forged capability: refused before the event's memory is touched.
            byte[] forged = blob.clone();
            MmapExport e = MmapExport.decode(Arrays.copyOfRange(blob, 8, blob.length));
            byte[] wrong = new MmapExport(e.kind(), e.shared(), e.permissions(), e.pid(), e.mapId(), e.baseAddress(),
                    e.length(), e.shmOffset(), e.hostId(), e.regionPid(), e.regionSeq(), e.cap0() ^ 0x8000,
                            e.cap1()).encode();
            System.arraycopy(wrong, 0, forged, 8, wrong.length);
            DocaException refused = assertThrows(DocaException.class, () -> SyncEventRemoteNet.createFromExport(forged,
                    dev));
            assertEquals(DocaError.NOT_PERMITTED, refused.error());

            try (SyncEventRemoteNet rev = SyncEventRemoteNet.createFromExport(blob, dev)) {
                mem.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 1000);
                Buf setSrc = inv.getByData(map, map.baseAddress(), 8);
                assertEquals(DocaError.SUCCESS, rdma.taskRemoteNetSyncEventNotifySetAllocInit(c, rev, setSrc,
                        1).submit());
                f.progressUntil(() -> f.done[0] + f.errors >= 1, "notify-set");
                Buf prev = inv.getByAddr(map, map.baseAddress() + 64, 8);
                assertEquals(DocaError.SUCCESS, rdma.taskRemoteNetSyncEventNotifyAddAllocInit(c, rev, prev, 23,
                        2).submit());
                f.progressUntil(() -> f.done[0] + f.errors >= 2, "notify-add");
                Buf got = inv.getByAddr(map, map.baseAddress() + 128, 8);
                assertEquals(DocaError.SUCCESS, rdma.taskRemoteNetSyncEventGetAllocInit(c, rev, got, 3).submit());
                f.progressUntil(() -> f.done[0] + f.errors >= 3, "get");
                assertEquals(0, f.errors, "errors (last " + f.lastError + ")");
                assertEquals(1000, mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 64), "value before the add");
                assertEquals(1023, mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 128), "value read back");
                setSrc.decRefcount();
                prev.decRefcount();
                got.decRefcount();
            }

            f.disconnectAndExpectCleanChildExit();
            assertTrue(f.child.output().contains("EVENT 1023"), f.child.output());
        }
    }
}
