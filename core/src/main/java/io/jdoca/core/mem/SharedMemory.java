package io.jdoca.core.mem;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.config.CoreProperties;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * Allocates and maps shared-memory regions and remembers the ones this process owns, so a
 * {@link MemoryMap} whose range lies in one can be exported to another process on this host.
 *
 * <p><b>Where.</b> Every region is a file {@code <pid>-<seq>} in this user's private directory
 * {@code /dev/shm/jdoca-<euid>/} (base directory {@code jdoca.shm.dir} if set). The directory is
 * created mode 0700 and checked on every use: a real directory (not a symlink), owned by this
 * process's effective uid, with no group or other permission bits. Files are created with
 * {@code O_CREAT|O_EXCL|O_NOFOLLOW}, mode 0600. Importers name a region by its id (owner pid and
 * sequence, never a path from the wire), open it with {@code O_NOFOLLOW} and check that it is a
 * regular file owned by this uid and private. So a peer can at most make this process map a file
 * jdoca created for this user; other users cannot plant or replace files in the directory.
 *
 * <p><b>Grants.</b> The first {@value #HEADER_PAGE} bytes of a region file are its grant table,
 * written only by the owner: one 64-byte slot per exported map (map id, offset and length of the
 * exported range in the data area, 128-bit capability). {@link #mapGranted} reads the table with
 * {@code pread} (twice, to reject a torn read) and compares the presented capability in constant
 * time before it maps anything: a blob with a wrong capability, a map id that is not granted (never
 * exported, or stopped since: a stale or replayed blob) or a range outside the grant gets
 * NOT_PERMITTED and no byte of the data is mapped.
 *
 * <pre>
 *   header page: 0 u64 magic 'JDSHMRG1' | 8 u32 version 1 | 12 u32 slot count | 16..63 reserved
 *   slot i at 64 + 64·i: 0 u64 map id (0 = free; written last, cleared first) | 8 u64 offset
 *                        | 16 u64 length | 24 u64 cap0 | 32 u64 cap1 | 40..63 reserved
 * </pre>
 *
 * <p>Files of processes that died are removed on the next allocation. Control path only.
 * Thread-safe.
 */
public final class SharedMemory {
    /** Bytes before a region's data: the grant table. */
    public static final int HEADER_PAGE = 4096;
    static final long HEADER_MAGIC = 0x3147524D4853444AL; // "JDSHMRG1" little-endian
    static final int SLOT = 64;
    static final int SLOTS = HEADER_PAGE / SLOT - 1;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final Pattern NAME = Pattern.compile("([1-9][0-9]{0,9})-([1-9][0-9]{0,18})");
    private static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> PRIVATE_FILE = PosixFilePermissions.fromString("rw-------");
    private static final EnumSet<PosixFilePermission> GROUP_OTHER = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    private static final List<SharedRegion> REGIONS = new CopyOnWriteArrayList<>();
    private static final AtomicLong SEQ = new AtomicLong();
    private static volatile boolean janitorRan;
    private static volatile String hostId;
    private static volatile long euid = -1;

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

    /**
     * This user's private directory for shared regions, {@code <base>/jdoca-<euid>}: base
     * {@code /dev/shm} (the temporary directory where there is none), or {@code jdoca.shm.dir}.
     * Not created or checked here; see {@link #checkedDirectory(boolean)}.
     */
    public static Path directory() {
        String d = CoreProperties.SHM_DIR.asString();
        Path base;
        if (!d.isBlank()) {
            base = Path.of(d);
        } else {
            Path shm = Path.of("/dev/shm");
            base = Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        }
        return base.resolve("jdoca-" + euid());
    }

    /**
     * The private directory, created (mode 0700) when {@code create} and missing, after checking it:
     * NOT_PERMITTED (with the reason) if it is a symlink, not a directory, owned by another uid or
     * open to group or others; NOT_FOUND if it does not exist and {@code create} is false.
     */
    public static Path checkedDirectory(boolean create) {
        Path dir = directory();
        if (create && !Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
            } catch (FileAlreadyExistsException e) {
                // another thread or process of this user made it: checked below
            } catch (IOException e) {
                throw new DocaException(DocaError.NO_MEMORY, "cannot create the shared-memory directory " + dir
                        + ": " + e);
            }
        }
        PosixFileAttributes a;
        try {
            a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new DocaException(DocaError.NOT_FOUND, "no shared-memory directory " + dir);
        } catch (IOException e) {
            throw new DocaException(DocaError.NOT_PERMITTED, "cannot inspect the shared-memory directory " + dir
                    + ": " + e);
        }
        String why = a.isSymbolicLink() ? "is a symbolic link" : !a.isDirectory() ? "is not a directory"
                : uidOf(dir) != euid() ? "is owned by uid " + uidOf(dir) + ", not " + euid()
                : !java.util.Collections.disjoint(a.permissions(), GROUP_OTHER)
                        ? "is accessible to group or others (" + PosixFilePermissions.toString(a.permissions()) + ")"
                        : null;
        if (why != null) {
            throw new DocaException(DocaError.NOT_PERMITTED, "shared-memory directory " + dir + " " + why
                    + ": refusing to use it (remove it; jdoca recreates it mode 0700)");
        }
        return dir;
    }

    /** Allocates {@code size} zeroed bytes of shared memory (page-aligned). */
    public static SharedRegion allocate(long size) {
        if (size <= 0 || size > Long.MAX_VALUE - HEADER_PAGE) {
            throw new DocaException(DocaError.INVALID_VALUE, "shared region size must be > 0, was " + size);
        }
        Path dir = checkedDirectory(true);
        cleanStale(dir);
        long pid = ProcessHandle.current().pid();
        long seq = SEQ.incrementAndGet();
        Path path = dir.resolve(pid + "-" + seq);
        Arena arena = Arena.ofShared();
        Set<OpenOption> opts = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS);
        try (FileChannel fc = FileChannel.open(path, opts, PosixFilePermissions.asFileAttribute(PRIVATE_FILE))) {
            fc.truncate(0);
            fc.write(ByteBuffer.allocate(1), HEADER_PAGE + size - 1);
            MemorySegment all = fc.map(FileChannel.MapMode.READ_WRITE, 0, HEADER_PAGE + size, arena);
            MemorySegment header = all.asSlice(0, HEADER_PAGE);
            header.set(ValueLayout.JAVA_INT_UNALIGNED, 8, 1);
            header.set(ValueLayout.JAVA_INT_UNALIGNED, 12, SLOTS);
            LONG.setRelease(header, 0L, HEADER_MAGIC);
            SharedRegion r = new SharedRegion(path, pid, seq, arena, header, all.asSlice(HEADER_PAGE, size), true);
            REGIONS.add(r);
            return r;
        } catch (IOException | RuntimeException e) {
            arena.close();
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // nothing more to do
            }
            throw new DocaException(DocaError.NO_MEMORY, "cannot create shared region " + path + " of " + size
                    + " bytes: " + e);
        }
    }

    // ------------------------------------------------------------------ grants (owner side)

    /**
     * Records in {@code r}'s grant table that {@code [offset, offset + length)} of its data is
     * exported as map {@code mapId} with capability {@code (c0, c1)}. Idempotent per map id.
     * NO_MEMORY when all {@value #SLOTS} slots are taken.
     */
    public static void grant(SharedRegion r, long mapId, long offset, long length, long c0, long c1) {
        MemorySegment h = r.header();
        if (h == null || mapId == 0) {
            throw new DocaException(DocaError.NOT_PERMITTED, "only the owner of " + r + " can grant access to it");
        }
        synchronized (r) {
            int free = -1;
            for (int i = 0; i < SLOTS; i++) {
                long at = SLOT + (long) SLOT * i;
                long id = (long) LONG.getAcquire(h, at);
                if (id == mapId) {
                    return;
                }
                if (id == 0 && free < 0) {
                    free = i;
                }
            }
            if (free < 0) {
                throw new DocaException(DocaError.NO_MEMORY, "shared region " + r.name() + " has " + SLOTS
                        + " exported maps already");
            }
            long at = SLOT + (long) SLOT * free;
            h.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, offset);
            h.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 16, length);
            h.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 24, c0);
            h.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 32, c1);
            LONG.setRelease(h, at, mapId);
        }
    }

    /** Withdraws map {@code mapId}'s grant: later imports of its blobs get NOT_PERMITTED. */
    public static void revoke(SharedRegion r, long mapId) {
        MemorySegment h = r.header();
        if (h == null) {
            return;
        }
        synchronized (r) {
            for (int i = 0; i < SLOTS; i++) {
                long at = SLOT + (long) SLOT * i;
                if ((long) LONG.getAcquire(h, at) == mapId) {
                    LONG.setRelease(h, at, 0L);
                    h.asSlice(at + 8, SLOT - 8).fill((byte) 0);
                }
            }
        }
    }

    // ------------------------------------------------------------------ imports

    /**
     * Maps {@code length} bytes at {@code offset} of region {@code regionPid-regionSeq}'s data,
     * exported as {@code mapId}, after checking the presented capability against the region's grant
     * table (see the class comment). NOT_PERMITTED (naming {@code peer}, e.g. the connection the
     * blob came from) for a wrong or stale capability or a range outside the grant, NOT_FOUND when
     * the region is gone. The mapping is not registered as owned: closing it only unmaps.
     */
    public static SharedRegion mapGranted(long regionPid, long regionSeq, long mapId, long c0, long c1, long offset,
            long length, String peer) {
        Path path = regionPath(regionPid, regionSeq);
        try (FileChannel fc = openChecked(path)) {
            byte[] first = readHeader(fc, path);
            byte[] second = readHeader(fc, path);
            if (!java.util.Arrays.equals(first, second)) {
                throw denied(path, peer, "its grant table changed while being read");
            }
            MemorySegment h = MemorySegment.ofArray(first);
            boolean granted = false;
            for (int i = 0; i < SLOTS; i++) {
                long at = SLOT + (long) SLOT * i;
                if (h.get(ValueLayout.JAVA_LONG_UNALIGNED, at) != mapId || mapId == 0) {
                    continue;
                }
                long gOff = h.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 8);
                long gLen = h.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 16);
                long diff = (h.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 24) ^ c0)
                        | (h.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 32) ^ c1);
                if (diff != 0) {
                    throw denied(path, peer, "wrong capability for map " + Long.toHexString(mapId));
                }
                if (offset < gOff || length > gLen || offset - gOff > gLen - length) {
                    throw denied(path, peer, "range outside what map " + Long.toHexString(mapId) + " exports");
                }
                granted = true;
                break;
            }
            if (!granted) {
                throw denied(path, peer, "map " + Long.toHexString(mapId) + " is not exported (stale or forged blob)");
            }
            return mapData(fc, path, regionPid, regionSeq, offset, length);
        } catch (IOException e) {
            throw new DocaException(DocaError.NOT_FOUND, "cannot map shared region " + regionPid + "-" + regionSeq
                    + " (did the exporter exit?): " + e.getMessage());
        }
    }

    /**
     * {@link #mapGranted(long, long, long, long, long, long, long, String)} for a region named by
     * {@link SharedRegion#name()} (e.g. a transport ring a peer announced with its grant id and
     * capability). INVALID_VALUE for a malformed name.
     */
    public static SharedRegion mapGranted(String name, long grantId, long c0, long c1, long offset, long length,
            String peer) {
        long[] id = parseName(name);
        return mapGranted(id[0], id[1], grantId, c0, c1, offset, length, peer);
    }

    private static long[] parseName(String name) {
        java.util.regex.Matcher m = name == null ? null : NAME.matcher(name);
        if (m == null || !m.matches()) {
            throw new DocaException(DocaError.INVALID_VALUE, "not a jdoca shared region id: '" + name + "'");
        }
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    /**
     * Maps {@code length} bytes at {@code offset} of the data of the region named {@code name}
     * ({@link SharedRegion#name()}, e.g. a transport ring announced by a peer on this host). The
     * name must be {@code <pid>-<seq>}; the file is opened in the private directory with the same
     * checks as {@link #mapGranted} but no capability. INVALID_VALUE for a malformed name.
     */
    public static SharedRegion mapExisting(String name, long offset, long length) {
        long[] id = parseName(name);
        long pid = id[0];
        long seq = id[1];
        Path path = regionPath(pid, seq);
        try (FileChannel fc = openChecked(path)) {
            readHeader(fc, path);
            return mapData(fc, path, pid, seq, offset, length);
        } catch (IOException e) {
            throw new DocaException(DocaError.NOT_FOUND, "cannot map shared region " + name
                    + " (did the exporter exit?): " + e.getMessage());
        }
    }

    private static Path regionPath(long pid, long seq) {
        if (pid <= 0 || seq <= 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "bad shared region id " + pid + "-" + seq);
        }
        return checkedDirectory(false).resolve(pid + "-" + seq);
    }

    /** O_NOFOLLOW open of a region file, then: a regular file, this uid's, mode 0600 or stricter. */
    private static FileChannel openChecked(Path path) throws IOException {
        // lstat first, for a clear refusal of a planted symlink; O_NOFOLLOW closes the race after it.
        if (Files.isSymbolicLink(path)) {
            throw new DocaException(DocaError.NOT_PERMITTED, "shared region " + path + " is a symbolic link: refused");
        }
        FileChannel fc = FileChannel.open(path, Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS));
        try {
            PosixFileAttributes a = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            String why = !a.isRegularFile() ? "is not a regular file"
                    : uidOf(path) != euid() ? "is owned by uid " + uidOf(path)
                    : !java.util.Collections.disjoint(a.permissions(), GROUP_OTHER) ? "is accessible to group or others"
                    : null;
            if (why != null) {
                throw new DocaException(DocaError.NOT_PERMITTED, "shared region " + path + " " + why + ": refused");
            }
            return fc;
        } catch (IOException | RuntimeException e) {
            fc.close();
            throw e;
        }
    }

    private static byte[] readHeader(FileChannel fc, Path path) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(HEADER_PAGE).order(ByteOrder.LITTLE_ENDIAN);
        while (b.hasRemaining()) {
            if (fc.read(b, b.position()) < 0) {
                break;
            }
        }
        if (b.hasRemaining() || b.getLong(0) != HEADER_MAGIC || b.getInt(8) != 1) {
            throw new DocaException(DocaError.NOT_PERMITTED, "shared region " + path
                    + " is not a jdoca region: refused");
        }
        return b.array();
    }

    private static SharedRegion mapData(FileChannel fc, Path path, long pid, long seq, long offset, long length)
            throws IOException {
        long dataSize = fc.size() - HEADER_PAGE;
        if (offset < 0 || length <= 0 || offset > dataSize - length) {
            throw new DocaException(DocaError.INVALID_VALUE,
                    "range " + offset + "+" + length + " outside shared region " + pid + "-" + seq + " of "
                    + dataSize + " bytes");
        }
        // Map from a page boundary and slice: map offsets must be page-aligned.
        long fileOff = HEADER_PAGE + offset;
        long pageOff = fileOff & ~4095L;
        Arena arena = Arena.ofShared();
        try {
            MemorySegment seg = fc.map(FileChannel.MapMode.READ_WRITE, pageOff, length + (fileOff - pageOff), arena);
            return new SharedRegion(path, pid, seq, arena, null, seg.asSlice(fileOff - pageOff, length), false);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private static DocaException denied(Path path, String peer, String why) {
        String msg = "import of shared region " + path.getFileName() + (peer == null ? "" : " from " + peer)
                + " refused: " + why;
        System.getLogger(SharedMemory.class.getName()).log(System.Logger.Level.WARNING, msg);
        return new DocaException(DocaError.NOT_PERMITTED, msg);
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

    /** This process's effective uid (from {@code /proc/self/status}). */
    static long euid() {
        long u = euid;
        if (u < 0) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                    if (line.startsWith("Uid:")) {
                        u = Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
                        break;
                    }
                }
            } catch (IOException | RuntimeException e) {
                throw new DocaException(DocaError.NOT_SUPPORTED, "cannot read this process's uid: " + e);
            }
            if (u < 0) {
                throw new DocaException(DocaError.NOT_SUPPORTED, "no Uid line in /proc/self/status");
            }
            euid = u;
        }
        return u;
    }

    private static long uidOf(Path p) {
        try {
            return ((Number) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Identifies this host (boot id), so an importer can tell whether an export came from a process
     * on the same machine and may be mapped directly. Not a secret: capabilities protect exports.
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

    private static void cleanStale(Path dir) {
        if (janitorRan) {
            return;
        }
        janitorRan = true;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                java.util.regex.Matcher m = NAME.matcher(p.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                try {
                    if (ProcessHandle.of(Long.parseLong(m.group(1))).isEmpty()) {
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
