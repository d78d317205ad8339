package io.jdoca.core.mem;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Allocates and maps shared-memory regions ({@code /dev/shm/jdoca-<pid>-<n>}) and remembers the
 * ones this process owns, so a {@link MemoryMap} whose range lies in one can be exported to another
 * process on this host. Files of processes that died are removed on the next allocation.
 *
 * <p>Control path only. Thread-safe.
 */
public final class SharedMemory {
    private static final List<SharedRegion> REGIONS = new CopyOnWriteArrayList<>();
    private static final AtomicLong SEQ = new AtomicLong();
    private static volatile boolean janitorRan;
    private static volatile String hostId;

    static {
        // Normal exit: remove the files of regions still open. (A killed process leaves them to the janitor.)
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (SharedRegion r : REGIONS) {
                try {
                    Files.deleteIfExists(r.path());
                } catch (IOException ignored) {
                    // best effort
                }
            }
        }, "jdoca-shm-cleanup"));
    }

    private SharedMemory() {
    }

    /** The directory shared regions live in: {@code /dev/shm}, or {@code jdoca.shm.dir}. */
    public static Path directory() {
        String d = System.getProperty("jdoca.shm.dir");
        if (d != null) {
            return Path.of(d);
        }
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** Allocates {@code size} zeroed bytes of shared memory (page-aligned). */
    public static SharedRegion allocate(long size) {
        if (size <= 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "shared region size must be > 0, was " + size);
        }
        cleanStale();
        long pid = ProcessHandle.current().pid();
        Path path = directory().resolve("jdoca-" + pid + "-" + SEQ.incrementAndGet());
        try (RandomAccessFile f = new RandomAccessFile(path.toFile(), "rw")) {
            f.setLength(size);
        } catch (IOException e) {
            throw new DocaException(DocaError.NO_MEMORY, "cannot create shared region " + path + " of " + size + " bytes", e);
        }
        Arena arena = Arena.ofShared();
        try (FileChannel fc = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment seg = fc.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            SharedRegion r = new SharedRegion(path, arena, seg, true);
            REGIONS.add(r);
            return r;
        } catch (IOException e) {
            arena.close();
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // nothing more to do
            }
            throw new DocaException(DocaError.NO_MEMORY, "cannot map shared region " + path, e);
        }
    }

    /**
     * Maps {@code length} bytes at {@code offset} of another process's region (an import). The
     * mapping is not registered as owned: closing it only unmaps.
     */
    public static SharedRegion mapExisting(Path path, long offset, long length) {
        Arena arena = Arena.ofShared();
        try (FileChannel fc = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long fileSize = fc.size();
            if (offset < 0 || length <= 0 || offset + length > fileSize) {
                arena.close();
                throw new DocaException(DocaError.INVALID_VALUE,
                        "range " + offset + "+" + length + " outside shared region " + path + " of " + fileSize + " bytes");
            }
            // Map from a page boundary and slice: map offsets must be page-aligned.
            long pageOff = offset & ~4095L;
            MemorySegment seg = fc.map(FileChannel.MapMode.READ_WRITE, pageOff, length + (offset - pageOff), arena);
            return new SharedRegion(path, arena, seg.asSlice(offset - pageOff, length), false);
        } catch (IOException e) {
            arena.close();
            throw new DocaException(DocaError.NOT_FOUND, "cannot map shared region " + path + " (did the exporter exit?)", e);
        }
    }

    /** The owned region containing {@code [address, address+length)}, or null. */
    public static SharedRegion find(long address, long length) {
        for (SharedRegion r : REGIONS) {
            if (r.contains(address, length)) {
                return r;
            }
        }
        return null;
    }

    static void unregister(SharedRegion r) {
        REGIONS.remove(r);
    }

    /**
     * Identifies this host (boot id), so an importer can tell whether an export came from a process
     * on the same machine and may be mapped directly.
     */
    public static String hostId() {
        String h = hostId;
        if (h == null) {
            try {
                h = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
            } catch (IOException | RuntimeException e) {
                h = UUID.nameUUIDFromBytes(System.getProperty("user.name", "?").getBytes()).toString();
            }
            hostId = h;
        }
        return h;
    }

    private static void cleanStale() {
        if (janitorRan) {
            return;
        }
        janitorRan = true;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory(), "jdoca-*-*")) {
            for (Path p : ds) {
                String[] parts = p.getFileName().toString().split("-");
                try {
                    long pid = Long.parseLong(parts[1]);
                    if (ProcessHandle.of(pid).isEmpty()) {
                        Files.deleteIfExists(p);
                    }
                } catch (NumberFormatException | IOException ignored) {
                    // not ours, or already gone
                }
            }
        } catch (IOException ignored) {
            // no directory listing: nothing to clean
        }
    }
}
