package io.jdoca.core.mem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.sync.SyncEvent;
import io.jdoca.testkit.JavaProcess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class MemoryMapTest {
    private final Dev dev = Devices.open("sw0");

    private static void assertError(Runnable r, DocaError e) {
        assertThatThrownBy(r::run).isInstanceOf(DocaException.class)
                .satisfies(x -> assertThat(((DocaException) x).error()).isEqualTo(e));
    }

    @Test
    void lifecycleAndStateChecks() {
        try (Arena a = Arena.ofConfined()) {
            MemoryMap m = MemoryMap.create();
            assertThat(m.start()).as("no range yet").isEqualTo(DocaError.INVALID_VALUE);
            assertThat(m.setMemrange(MemorySegment.ofArray(new byte[16]))).as("heap "
                    + "memory").isEqualTo(DocaError.INVALID_VALUE);
            assertThat(m.setMemrange(a.allocate(256))).isEqualTo(DocaError.SUCCESS);
            assertThat(m.start()).as("no device yet").isEqualTo(DocaError.INVALID_VALUE);
            assertThat(m.addDev(dev)).isEqualTo(DocaError.SUCCESS);
            assertThat(m.addDev(dev)).isEqualTo(DocaError.ALREADY_EXIST);
            assertThat(m.setPermissions(1 << 10)).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(m.start()).isEqualTo(DocaError.SUCCESS);
            assertThat(m.state()).isEqualTo(MmapState.STARTED);
            assertThat(m.setPermissions(AccessFlags.LOCAL_READ_WRITE)).isEqualTo(DocaError.BAD_STATE);
            assertThat(m.addDev(Devices.open("sw1"))).isEqualTo(DocaError.BAD_STATE);
            assertThat(m.start()).isEqualTo(DocaError.BAD_STATE);
            assertThat(m.contains(m.baseAddress(), 256)).isTrue();
            assertThat(m.contains(m.baseAddress() + 1, 256)).isFalse();
            assertThat(m.stop()).isEqualTo(DocaError.SUCCESS);
            assertThat(m.stop()).isEqualTo(DocaError.BAD_STATE);
        }
    }

    @Test
    void exportNeedsTheMatchingPermission() {
        try (SharedRegion r = SharedMemory.allocate(8192)) {
            MemoryMap m = MemoryMap.create();
            m.setMemrange(r.segment());
            m.addDev(dev);
            m.setPermissions(AccessFlags.LOCAL_READ_WRITE);
            assertError(() -> m.exportPci(dev), DocaError.BAD_STATE);
            m.start();
            assertError(() -> m.exportPci(dev), DocaError.NOT_PERMITTED);
            assertError(() -> m.exportRdma(dev), DocaError.NOT_PERMITTED);
            assertError(() -> m.exportPci(Devices.open("sw1")), DocaError.NOT_PERMITTED);
        }
    }

    @Test
    void pciExportNeedsSharedMemory() {
        try (Arena a = Arena.ofConfined()) {
            MemoryMap m = MemoryMap.create();
            m.setMemrange(a.allocate(4096));
            m.addDev(dev);
            m.setPermissions(AccessFlags.PCI_READ_WRITE | AccessFlags.RDMA_READ);
            m.start();
            assertError(() -> m.exportPci(dev), DocaError.NOT_SUPPORTED);
            // RDMA export of private memory is allowed (reached through the TCP transport).
            MmapExport e = MmapExport.decode(m.exportRdma(dev));
            assertThat(e.shared()).isFalse();
            assertThat(MemoryMap.findExported(e.mapId())).isSameAs(m);
            m.close();
            assertThat(MemoryMap.findExported(e.mapId())).isNull();
        }
    }

    @Test
    void importInTheSameProcessSharesThePages() {
        try (SharedRegion r = SharedMemory.allocate(8192)) {
            MemoryMap m = MemoryMap.create();
            m.setMemrange(r.segment().asSlice(4096, 1024));
            m.addDev(dev);
            m.setPermissions(AccessFlags.PCI_READ_ONLY);
            m.start();
            MemoryMap imp = MemoryMap.createFromExport(m.exportPci(dev), Devices.open("sw1"));
            assertThat(imp.isImported()).isTrue();
            assertThat(imp.baseAddress()).isEqualTo(m.baseAddress());
            assertThat(imp.length()).isEqualTo(1024);
            assertThat(imp.permissions()).isEqualTo(AccessFlags.PCI_READ_ONLY);
            r.segment().set(ValueLayout.JAVA_INT, 4096 + 8, 0xCAFEBABE);
            assertThat(imp.segment().get(ValueLayout.JAVA_INT, 8)).isEqualTo(0xCAFEBABE);
            imp.close();
            m.close();
        }
    }

    @Test
    void malformedBlobsAreInvalidValue() {
        assertError(() -> MemoryMap.createFromExport(new byte[3], dev), DocaError.INVALID_VALUE);
        assertError(() -> MemoryMap.createFromExport(new byte[200], dev), DocaError.INVALID_VALUE);
    }

    @Property(tries = 300)
    void decodingGarbageNeverEscapesAsAnythingButDocaException(@ForAll @Size(max = 300) byte[] garbage) {
        try {
            MmapExport.decode(garbage);
        } catch (DocaException e) {
            assertThat(e.error()).isIn(DocaError.INVALID_VALUE, DocaError.UNSUPPORTED_VERSION);
        }
    }

    @Property(tries = 200)
    void decodingABitFlippedBlobIsSafe(@ForAll int position, @ForAll byte xor) {
        byte[] blob = new MmapExport(MmapExport.Kind.RDMA, true, 6, 1234, 99, 0x1000, 4096, 0,
                java.util.UUID.randomUUID(), 1234, 7, 0x1122334455667788L, -3L).encode();
        blob[Math.floorMod(position, blob.length)] ^= xor;
        try {
            MmapExport e = MmapExport.decode(blob);
            assertThat(e.length()).isPositive();
        } catch (DocaException e) {
            assertThat(e.error()).isIn(DocaError.INVALID_VALUE, DocaError.UNSUPPORTED_VERSION);
        }
    }

    @Test
    void exportRoundTripsEveryField() {
        java.util.UUID host = java.util.UUID.randomUUID();
        MmapExport e = new MmapExport(MmapExport.Kind.PCI, true, 48, 77, -5, 0x7f00_0000_1000L, 1L << 33, 4096, host,
                0xfffffffeL, 2, 0x0123456789abcdefL, 0xfedcba9876543210L);
        assertThat(MmapExport.decode(e.encode())).isEqualTo(e);
    }

    @Test
    void anotherProcessWritesIntoAnExportedMap() throws Exception {
        try (SharedRegion r = SharedMemory.allocate(64 * 1024)) {
            MemoryMap m = MemoryMap.create();
            m.setMemrange(r.segment());
            m.addDev(dev);
            m.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.PCI_READ_WRITE);
            m.start();
            String hex = HexFormat.of().formatHex(m.exportPci(dev));
            try (JavaProcess p = JavaProcess.start("peer", ExportPeer.class.getName(), List.of("mmap-write", hex,
                    "65536"))) {
                assertThat(p.awaitExit(Duration.ofSeconds(60))).as(p.output()).isZero();
                assertThat(p.output()).contains("base=" + Long.toHexString(m.baseAddress()));
            }
            for (int i = 0; i < 65536; i++) {
                assertThat(r.segment().get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) (i * 7 + 3));
            }
            m.close();
        }
    }

    @Test
    void syncEventAcrossTwoProcesses() throws Exception {
        SyncEvent e = SyncEvent.create();
        e.addPublisherLocationCpu(dev);
        e.addSubscriberLocationRemotePci();
        assertThat(e.start()).isEqualTo(DocaError.SUCCESS);
        String hex = HexFormat.of().formatHex(e.exportToRemotePci(dev));
        try (JavaProcess p = JavaProcess.start("sync-peer", ExportPeer.class.getName(), List.of("sync-wait", hex))) {
            Thread.sleep(200);
            e.updateSet(42);
            assertThat(e.waitEq(142, -1L, Duration.ofSeconds(30).toNanos())).as(p.output()).isTrue();
            assertThat(p.awaitExit(Duration.ofSeconds(30))).as(p.output()).isZero();
            assertThat(p.output()).contains("saw 42");
        }
        e.close();
    }

    @Test
    void sharedRegionFileIsRemovedOnClose() {
        SharedRegion r = SharedMemory.allocate(4096);
        assertThat(Files.exists(r.path())).isTrue();
        r.close();
        assertThat(Files.exists(r.path())).isFalse();
    }
}
