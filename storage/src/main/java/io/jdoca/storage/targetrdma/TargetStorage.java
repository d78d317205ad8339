package io.jdoca.storage.targetrdma;

import io.jdoca.core.DocaError;
import io.jdoca.storage.common.Msync;
import io.jdoca.core.DocaException;
import io.jdoca.storage.wire.BinaryContent;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The memory that backs target-rdma's blocks: page-aligned off-heap memory (DOCA: volatile), or —
 * beyond DOCA — a file mapped shared ({@code --backing-file}), so that every write lands in the
 * file's page cache the moment the RDMA transfer completes, before the response is sent, and the
 * blocks survive a restart of the target (and a crash of the process); what survives the host is
 * the {@link Durability} mode's. Initial content comes from an
 * {@code .sbc} file (whose header overrides the geometry) or a plain file of exactly
 * {@code block_size × block_count} bytes (reference §3).
 *
 * <p>Control path; the segment is then used by the worker threads.
 */
final class TargetStorage implements AutoCloseable {
    private final Arena arena;
    private final MemorySegment segment;
    private final int blockSize;
    private final int blockCount;
    private final String description;
    private boolean perWrite;

    private TargetStorage(Arena arena, MemorySegment segment, int blockSize, int blockCount, String description) {
        this.arena = arena;
        this.segment = segment;
        this.blockSize = blockSize;
        this.blockCount = blockCount;
        this.description = description;
    }

    /** As {@link #open(int, int, Path, Path, Durability)} with {@link Durability#SESSION}. */
    static TargetStorage open(int blockSize, int blockCount, Path binaryContent, Path backingFile) {
        return open(blockSize, blockCount, binaryContent, backingFile, Durability.SESSION);
    }

    /**
     * Opens the storage; with {@code backingFile} and {@link Durability#WRITE} every write is to be
     * flushed before its response ({@link #durabilityPerWrite()}). WRITE without a backing file is
     * INVALID_VALUE: memory has nothing to flush to.
     */
    static TargetStorage open(int blockSize, int blockCount, Path binaryContent, Path backingFile,
            Durability durability) {
        if (durability == Durability.WRITE && backingFile == null) {
            throw new DocaException(DocaError.INVALID_VALUE, "--durability write needs --backing-file (memory-backed"
                    + " blocks do not survive the process)");
        }
        if (durability == Durability.WRITE && !Msync.available()) {
            throw new DocaException(DocaError.NOT_SUPPORTED, "--durability write: this system has no msync");
        }
        TargetStorage s = openStorage(blockSize, blockCount, binaryContent, backingFile);
        s.perWrite = durability == Durability.WRITE;
        return s;
    }

    private static TargetStorage openStorage(int blockSize, int blockCount, Path binaryContent, Path backingFile) {
        BinaryContent.Header sbc = null;
        if (binaryContent != null) {
            if (!Files.isRegularFile(binaryContent)) {
                throw new DocaException(DocaError.NOT_FOUND, "--binary-content " + binaryContent
                        + " is not a readable file");
            }
            sbc = BinaryContent.readHeader(binaryContent);
            if (sbc != null) {
                blockSize = sbc.blockSize();
                blockCount = sbc.blockCount();
            }
        }
        if (blockSize <= 0 || blockCount <= 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "block size and block count must be > 0");
        }
        long size = (long) blockSize * blockCount;
        if (size > BinaryContent.MAX_CONTENT) {
            throw new DocaException(DocaError.INVALID_VALUE, "storage of " + size + " bytes exceeds 2 GiB");
        }
        if (binaryContent != null && sbc == null) {
            long plain = fileSize(binaryContent);
            if (plain != size) {
                throw new DocaException(DocaError.INVALID_VALUE, "--binary-content " + binaryContent
                        + " has no .sbc header and holds "
                        + plain + " bytes, but block_size × block_count = " + size);
            }
        }
        TargetStorage s;
        boolean fresh = true;
        if (backingFile != null) {
            fresh = !Files.exists(backingFile);
            if (!fresh && fileSize(backingFile) != size) {
                throw new DocaException(DocaError.INVALID_VALUE, "--backing-file " + backingFile + " holds "
                        + fileSize(backingFile) + " bytes, but the storage is " + size + " bytes");
            }
            Arena a = Arena.ofShared();
            try (FileChannel fc = FileChannel.open(backingFile, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                if (fresh) {
                    fc.truncate(0);
                    fc.write(java.nio.ByteBuffer.allocate(1), size - 1);
                }
                MemorySegment seg = fc.map(FileChannel.MapMode.READ_WRITE, 0, size, a);
                s = new TargetStorage(a, seg, blockSize, blockCount, "file " + backingFile + (fresh
                        ? " (new)" : " (existing)"));
            } catch (IOException e) {
                a.close();
                throw new DocaException(DocaError.IO_FAILED, "cannot map --backing-file " + backingFile + ": "
                        + e.getMessage());
            }
        } else {
            Arena a = Arena.ofShared();
            s = new TargetStorage(a, a.allocate(size, 4096), blockSize, blockCount, "memory");
        }
        // A backing file that already exists keeps its blocks: that is the point of it.
        if (binaryContent != null && fresh) {
            BinaryContent.readContent(binaryContent, sbc != null ? BinaryContent.HEADER_SIZE : 0, s.segment);
        } else if (binaryContent != null) {
            System.getLogger("io.jdoca.storage.targetrdma").log(System.Logger.Level.WARNING,
                    "--backing-file exists: ignoring --binary-content and keeping the stored blocks");
        }
        return s;
    }

    private static long fileSize(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "cannot stat " + p + ": " + e.getMessage());
        }
    }

    MemorySegment segment() {
        return segment;
    }

    int blockSize() {
        return blockSize;
    }

    int blockCount() {
        return blockCount;
    }

    long size() {
        return segment.byteSize();
    }

    String description() {
        return segment.isMapped() ? description + (perWrite
                ? ", flushed before each write's response (--durability write)"
                : ", flushed at each session's end (--durability session)") : description;
    }

    /** True when each write's range is flushed to the file before its response ({@link Durability#WRITE}). */
    boolean durabilityPerWrite() {
        return perWrite;
    }

    /** Flushes a mapped backing file to the device (at shutdown). */
    void force() {
        if (segment.isMapped()) {
            segment.force();
        }
    }

    @Override
    public void close() {
        force();
        arena.close();
    }
}
