package io.jdoca.gga;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The gateway's write-ahead dirty-stripe log (issue 29 item 6): the three targets' {@link DirtyStripes}
 * in one file ({@code --dirty-log}), mapped shared, so that a stripe logged dirty is in the file before
 * the degraded write that made it dirty is acknowledged, and a gateway restarted after a crash (or a
 * host restart) still knows which stripes to resync. Without a file ({@link #inMemory()}) the logs live
 * in memory, as before.
 *
 * <p>File layout (little-endian): a 4096-byte header, then one bitmap per target (data_1, data_2,
 * data_p; bit {@code s} of 64-bit word {@code s/64} = stripe {@code s}), each rounded up to 4096 bytes.
 * <pre>
 *   off size field
 *    0   8   magic "JDGGADL1"
 *    8   4   version (1)
 *   12   4   target block size (bytes)
 *   16   8   stripes per target
 *   24   8   bitmap bytes per target (a multiple of 4096)
 *   32  3×128 the targets as configured ({@code ip:port}): u16 length + UTF-8, per slot
 * </pre>
 * A file is bound to the targets it names: one with dirty stripes for other targets (or another
 * geometry) is refused rather than replayed onto the wrong storage; a clean one is rewritten. The
 * file is locked while the gateway runs (a second gateway cannot share it), and removed at exit when
 * nothing is dirty.
 *
 * <p>Not thread-safe except through its {@link DirtyStripes} (see there): the control thread opens,
 * sizes, flushes and closes it.
 */
public final class DirtyLog implements AutoCloseable {
    /** The bytes "JDGGADL1" read as a little-endian u64. */
    static final long MAGIC = 0x314C44414747444AL;
    static final int VERSION = 1;
    static final int HEADER = 4096;
    private static final int PAGE = 4096;
    private static final int SLOT = 128;
    private static final int OFF_SLOTS = 32;

    private final Path path;
    private final List<String> targets;
    private final DirtyStripes[] logs = new DirtyStripes[TargetRole.COUNT];
    private FileChannel fc;
    private FileLock lock;
    private Arena arena;
    private MemorySegment map;
    private int blockSize;

    private DirtyLog(Path path, List<String> targets) {
        this.path = path;
        this.targets = List.copyOf(targets);
    }

    /** Logs in memory only (in-process tests and benchmarks; {@code --dirty-log none}). */
    public static DirtyLog inMemory() {
        return new DirtyLog(null, List.of("", "", ""));
    }

    /**
     * Opens (and locks) the log at {@code path} for {@code targets}; an existing file for the same
     * targets is replayed ({@link #pending}). IN_USE if another process holds it; BAD_STATE if it
     * holds dirty stripes of other targets; IO_FAILED if it cannot be read or is not a dirty log.
     */
    public static DirtyLog open(Path path, List<String> targets) {
        DirtyLog d = new DirtyLog(path, targets);
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            d.fc = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            try {
                d.lock = d.fc.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException sameProcess) {
                d.lock = null;
            }
            if (d.lock == null) {
                d.fc.close();
                throw new DocaException(DocaError.IN_USE, "--dirty-log " + path + " is in use by another gga-offload");
            }
            if (d.fc.size() > 0) {
                d.load();
            }
            return d;
        } catch (IOException e) {
            d.closeQuietly();
            throw new DocaException(DocaError.IO_FAILED, "--dirty-log " + path + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            d.closeQuietly();
            throw e;
        }
    }

    /** Where the log is kept; null in memory. */
    public Path path() {
        return path;
    }

    /** Reads an existing file: the same targets are mapped and replayed; a clean file of others is dropped. */
    private void load() throws IOException {
        ByteBuffer h = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
        fc.read(h, 0);
        h.flip();
        if (h.remaining() < HEADER || h.getLong(0) != MAGIC || h.getInt(8) != VERSION) {
            throw new IOException("not a gga-offload dirty-stripe log (bad magic or version); remove it or give"
                    + " another --dirty-log");
        }
        int bs = h.getInt(12);
        long stripes = h.getLong(16);
        long bitmap = h.getLong(24);
        if (bs <= 0 || stripes <= 0 || bitmap != pageRound(DirtyStripes.bytesFor(stripes))
                || fc.size() < HEADER + 3 * bitmap) {
            throw new IOException("its header is inconsistent (block size " + bs + ", " + stripes + " stripes, file of "
                    + fc.size() + " bytes); remove it or give another --dirty-log");
        }
        String[] named = new String[TargetRole.COUNT];
        for (int r = 0; r < TargetRole.COUNT; r++) {
            int off = OFF_SLOTS + r * SLOT;
            int len = Short.toUnsignedInt(h.getShort(off));
            named[r] = len > SLOT - 2 ? "?" : new String(h.array(), off + 2, len, StandardCharsets.UTF_8);
        }
        mapFile(bs, stripes);
        if (!List.of(named).equals(targets)) {
            long dirty = 0;
            for (DirtyStripes l : logs) {
                dirty += l.count();
            }
            if (dirty > 0) {
                throw new DocaException(DocaError.BAD_STATE, "--dirty-log " + path + " holds " + dirty
                        + " dirty stripes of the targets " + String.join(", ", named) + ", not of " + String.join(", ",
                        targets)
                        + ": start gga-offload with those targets to resync them, or remove the file to forget them");
            }
            unmap(); // clean, for other targets: rewritten at the first query
        }
    }

    /** Dirty stripes of {@code role} (0 before the geometry is known and nothing was replayed). */
    public long pending(int role) {
        return logs[role] == null ? 0 : logs[role].count();
    }

    /** The three logs (null entries until {@link #ensureGeometry}); handed to the workers. */
    public DirtyStripes[] stripes() {
        return logs;
    }

    /**
     * The targets hold {@code stripes} stripes of {@code blockSize} bytes: keeps the logs that match,
     * (re)creates them otherwise. BAD_STATE if the geometry changed while stripes wait for a resync.
     */
    public void ensureGeometry(long stripes, int blockSize) {
        if (logs[0] != null && logs[0].stripes() == stripes && this.blockSize == blockSize) {
            return;
        }
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if (pending(r) != 0) {
                throw new DocaException(DocaError.BAD_STATE, "target " + TargetRole.name(r) + " changed its geometry ("
                        + stripes + " blocks of " + blockSize + " bytes now) while " + pending(r)
                        + " of its stripes wait for a resync");
            }
        }
        if (path == null) {
            for (int r = 0; r < TargetRole.COUNT; r++) {
                logs[r] = new DirtyStripes(stripes);
            }
            this.blockSize = blockSize;
            return;
        }
        try {
            unmap();
            long bitmap = pageRound(DirtyStripes.bytesFor(stripes));
            fc.truncate(0);
            ByteBuffer h = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
            h.putLong(0, MAGIC).putInt(8, VERSION).putInt(12, blockSize).putLong(16, stripes).putLong(24, bitmap);
            for (int r = 0; r < TargetRole.COUNT; r++) {
                byte[] t = targets.get(r).getBytes(StandardCharsets.UTF_8);
                int len = Math.min(t.length, SLOT - 2);
                h.putShort(OFF_SLOTS + r * SLOT, (short) len).put(OFF_SLOTS + r * SLOT + 2, t, 0, len);
            }
            fc.write(h, 0);
            fc.write(ByteBuffer.allocate(1), HEADER + 3 * bitmap - 1); // zero bitmaps, sized
            fc.force(true);
            mapFile(blockSize, stripes);
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "--dirty-log " + path + ": " + e.getMessage(), e);
        }
    }

    private void mapFile(int bs, long stripes) throws IOException {
        long bitmap = pageRound(DirtyStripes.bytesFor(stripes));
        arena = Arena.ofShared();
        map = fc.map(FileChannel.MapMode.READ_WRITE, 0, HEADER + 3 * bitmap, arena);
        for (int r = 0; r < TargetRole.COUNT; r++) {
            logs[r] = new DirtyStripes(stripes, map.asSlice(HEADER + r * bitmap, bitmap), true);
        }
        blockSize = bs;
    }

    private void unmap() {
        for (int r = 0; r < TargetRole.COUNT; r++) {
            logs[r] = null;
        }
        if (arena != null) {
            arena.close();
            arena = null;
            map = null;
        }
    }

    private static long pageRound(long n) {
        return (n + PAGE - 1) / PAGE * PAGE;
    }

    /** Flushes the whole log to the file (after a resync cleared stripes). */
    public void force() {
        if (map != null) {
            map.force();
        }
    }

    /** A one-line description for the start-up output. */
    public String describe() {
        if (path == null) {
            return "dirty-stripe log in memory (--dirty-log none: a gateway restart forgets it)";
        }
        return "dirty-stripe log " + path.toAbsolutePath() + " (flushed before each degraded write is acknowledged)";
    }

    /** Flushes, unlocks and closes; the file is removed (still locked) when no stripe is dirty: nothing to remember. */
    @Override
    public void close() {
        boolean clean = true;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            clean &= pending(r) == 0;
        }
        force();
        if (path != null && clean && fc != null) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // left behind: harmless, a clean log is rewritten at the next start
            }
        }
        closeQuietly();
    }

    private void closeQuietly() {
        unmap();
        try {
            if (lock != null) {
                lock.release();
            }
            if (fc != null) {
                fc.close();
            }
        } catch (IOException ignored) {
            // best effort
        }
        lock = null;
        fc = null;
    }
}
