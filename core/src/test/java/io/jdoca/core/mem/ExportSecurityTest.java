package io.jdoca.core.mem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.sync.SyncEvent;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12 item 1: an export blob from the wire can make this process map only memory jdoca
 * exported, with the export's capability, from this user's private shared-memory directory.
 */
class ExportSecurityTest {
    private final Dev dev = Devices.open("sw0");

    private static DocaError errorOf(Runnable r) {
        try {
            r.run();
        } catch (DocaException e) {
            return e.error();
        }
        throw new AssertionError("no DocaException");
    }

    private static boolean mappedHere(Path p) throws IOException {
        return Files.readString(Path.of("/proc/self/maps")).contains(p.toAbsolutePath().toString());
    }

    /** A version-1 blob (the old layout) naming any file: main mapped it read-write. */
    private static byte[] legacyBlob(Path file, long length) {
        byte[] path = file.toAbsolutePath().toString().getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[66 + path.length];
        MemorySegment s = MemorySegment.ofArray(out);
        UUID host = MemoryMap.localHostUuid();
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 0, MmapExport.MAGIC);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 4, (short) 1);
        s.set(ValueLayout.JAVA_BYTE, 6, (byte) 1);
        s.set(ValueLayout.JAVA_BYTE, 7, (byte) 1);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 8, AccessFlags.PCI_READ_WRITE);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 12, 1);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, 42);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 24, 0x1000);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 32, length);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 40, 0);
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 48, host.getMostSignificantBits());
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 56, host.getLeastSignificantBits());
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 64, (short) path.length);
        System.arraycopy(path, 0, out, 66, path.length);
        return out;
    }

    @Test
    void aBlobNamingAnArbitraryFileIsRefusedAndTheFileIsNotMapped(@TempDir Path tmp) throws IOException {
        Path victim = tmp.resolve("victim.bin");
        byte[] content = new byte[8192];
        Arrays.fill(content, (byte) 0x5a);
        Files.write(victim, content);
        assertThatThrownBy(() -> MemoryMap.createFromExport(legacyBlob(victim, 8192), dev))
                .isInstanceOf(DocaException.class)
                .satisfies(e -> assertThat(((DocaException) e).error()).isEqualTo(DocaError.UNSUPPORTED_VERSION))
                .hasMessageContaining("version 1");
        assertThat(mappedHere(victim)).as("victim file mapped").isFalse();
        assertThat(Files.readAllBytes(victim)).isEqualTo(content);
    }

    private MemoryMap sharedMap(SharedRegion r, long off, long len) {
        MemoryMap m = MemoryMap.create();
        m.setMemrange(r.segment().asSlice(off, len));
        m.addDev(dev);
        m.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.PCI_READ_WRITE | AccessFlags.ANY_RDMA);
        assertThat(m.start()).isEqualTo(DocaError.SUCCESS);
        return m;
    }

    private static byte[] with(byte[] blob, java.util.function.UnaryOperator<MmapExport> change) {
        return change.apply(MmapExport.decode(blob)).encode();
    }

    @Test
    void aWrongCapabilityIsNotPermitted() {
        try (SharedRegion r = SharedMemory.allocate(8192)) {
            MemoryMap m = sharedMap(r, 0, 4096);
            byte[] blob = m.exportPci(dev);
            MmapExport e = MmapExport.decode(blob);
            assertThat(e.cap0() | e.cap1()).as("capability drawn").isNotZero();
            byte[] wrong = with(blob, x -> new MmapExport(x.kind(), x.shared(), x.permissions(), x.pid(), x.mapId(),
                    x.baseAddress(), x.length(), x.shmOffset(), x.hostId(), x.regionPid(), x.regionSeq(), x.cap0(),
                    x.cap1() ^ 1));
            assertThat(errorOf(() -> MemoryMap.createFromExport(wrong, dev,
                    "test-peer"))).isEqualTo(DocaError.NOT_PERMITTED);
            // The right one still imports.
            MemoryMap ok = MemoryMap.createFromExport(blob, dev);
            assertThat(ok.segment().byteSize()).isEqualTo(4096);
            ok.close();
            m.close();
        }
    }

    @Test
    void aStaleBlobIsNotPermittedOnceTheMapStopped() {
        try (SharedRegion r = SharedMemory.allocate(8192)) {
            MemoryMap m = sharedMap(r, 0, 4096);
            byte[] blob = m.exportRdma(dev);
            m.close();
            assertThat(errorOf(() -> MemoryMap.createFromExport(blob, dev))).isEqualTo(DocaError.NOT_PERMITTED);
        }
    }

    @Test
    void aRangeBeyondTheExportedOneIsNotPermitted() {
        try (SharedRegion r = SharedMemory.allocate(3 * 4096)) {
            MemoryMap m = sharedMap(r, 4096, 4096);
            byte[] blob = m.exportPci(dev);
            // Same capability, asking for the whole region instead of the exported page.
            byte[] wider = with(blob, x -> new MmapExport(x.kind(), x.shared(), x.permissions(), x.pid(), x.mapId(),
                    x.baseAddress() - 4096, 3 * 4096, 0, x.hostId(), x.regionPid(), x.regionSeq(), x.cap0(), x.cap1()));
            assertThat(errorOf(() -> MemoryMap.createFromExport(wider, dev))).isEqualTo(DocaError.NOT_PERMITTED);
            m.close();
        }
    }

    @Test
    void aSymlinkPlantedInTheShmDirectoryIsRefused(@TempDir Path tmp) throws IOException {
        try (SharedRegion r = SharedMemory.allocate(8192)) {
            MemoryMap m = sharedMap(r, 0, 4096);
            byte[] blob = m.exportPci(dev);
            // A symlink with a region name, pointing at a genuine region (valid grant table): only
            // O_NOFOLLOW / the lstat check stop it.
            long fakeSeq = r.sequence() + 1_000_000;
            Path link = SharedMemory.directory().resolve(r.ownerPid() + "-" + fakeSeq);
            Files.createSymbolicLink(link, r.path());
            try {
                byte[] viaLink = with(blob, x -> new MmapExport(x.kind(), x.shared(), x.permissions(), x.pid(),
                        x.mapId(),
                        x.baseAddress(), x.length(), x.shmOffset(), x.hostId(), x.regionPid(), fakeSeq, x.cap0(),
                                x.cap1()));
                assertThat(errorOf(() -> MemoryMap.createFromExport(viaLink, dev))).isEqualTo(DocaError.NOT_PERMITTED);
                // And a symlink to a file of the test, by ring name.
                Path victim = tmp.resolve("victim");
                Files.write(victim, new byte[8192]);
                Files.delete(link);
                Files.createSymbolicLink(link, victim);
                assertThat(errorOf(() -> SharedMemory.mapExisting(r.ownerPid() + "-" + fakeSeq, 0, 4096)))
                        .isEqualTo(DocaError.NOT_PERMITTED);
                assertThat(mappedHere(victim)).isFalse();
            } finally {
                Files.deleteIfExists(link);
            }
            m.close();
        }
    }

    @Test
    void aPlantedFileThatJdocaDidNotCreateIsRefused() throws IOException {
        Path planted = SharedMemory.checkedDirectory(true).resolve(ProcessHandle.current().pid() + "-999999999");
        Files.write(planted, new byte[8192]);
        try {
            byte[] blob = new MmapExport(MmapExport.Kind.PCI, true, AccessFlags.PCI_READ_WRITE, 1, 5, 0x1000, 4096, 0,
                    MemoryMap.localHostUuid(), ProcessHandle.current().pid(), 999_999_999L, 1, 2).encode();
            assertThat(errorOf(() -> MemoryMap.createFromExport(blob, dev))).isEqualTo(DocaError.NOT_PERMITTED);
            assertThat(mappedHere(planted)).isFalse();
        } finally {
            Files.deleteIfExists(planted);
        }
    }

    @Test
    void regionIdsOnTheWireCannotBePaths() {
        assertThat(errorOf(() -> SharedMemory.mapExisting("../../etc/passwd", 0,
                8))).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(errorOf(() -> SharedMemory.mapExisting("/dev/shm/x", 0, 8))).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(errorOf(() -> SharedMemory.mapExisting("1-2/../3-4", 0, 8))).isEqualTo(DocaError.INVALID_VALUE);
    }

    @Test
    void theShmDirectoryIsPrivateAndChecked(@TempDir Path base) throws IOException {
        String old = System.getProperty("jdoca.shm.dir");
        System.setProperty("jdoca.shm.dir", base.toString());
        try {
            SharedRegion r = SharedMemory.allocate(4096);
            Path dir = r.path().getParent();
            assertThat(dir.getFileName().toString()).isEqualTo("jdoca-" + SharedMemory.euid());
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(r.path()))).isEqualTo("rw-------");
            r.close();
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            assertThat(errorOf(() -> SharedMemory.allocate(4096))).isEqualTo(DocaError.NOT_PERMITTED);
            Files.delete(dir);
            Path elsewhere = Files.createDirectory(base.resolve("elsewhere"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Files.createSymbolicLink(dir, elsewhere);
            assertThat(errorOf(() -> SharedMemory.allocate(4096))).isEqualTo(DocaError.NOT_PERMITTED);
            assertThat(errorOf(() -> SharedMemory.mapExisting("1-1", 0, 8))).isEqualTo(DocaError.NOT_PERMITTED);
        } finally {
            if (old == null) {
                System.clearProperty("jdoca.shm.dir");
            } else {
                System.setProperty("jdoca.shm.dir", old);
            }
        }
    }

    @Test
    void syncEventExportsCarryACapabilityToo() {
        SyncEvent e = SyncEvent.create();
        e.addPublisherLocationCpu(dev);
        e.addSubscriberLocationRemotePci();
        assertThat(e.start()).isEqualTo(DocaError.SUCCESS);
        byte[] blob = e.exportToRemotePci(dev);
        byte[] wrong = with(blob, x -> new MmapExport(x.kind(), x.shared(), x.permissions(), x.pid(), x.mapId(),
                x.baseAddress(), x.length(), x.shmOffset(), x.hostId(), x.regionPid(), x.regionSeq(), ~x.cap0(),
                        x.cap1()));
        assertThat(errorOf(() -> SyncEvent.createFromExport(dev, wrong))).isEqualTo(DocaError.NOT_PERMITTED);
        SyncEvent imp = SyncEvent.createFromExport(dev, blob);
        e.updateSet(7);
        assertThat(imp.get()).isEqualTo(7);
        imp.close();
        e.close();
    }
}
