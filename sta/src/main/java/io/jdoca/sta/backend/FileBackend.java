package io.jdoca.sta.backend;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.sta.config.StaProperties;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file or block-device back-end: positional I/O ({@code pread}/{@code pwrite} through
 * java.lang.foreign, so the data path allocates nothing). The file is opened twice: with
 * {@code O_DIRECT} where the file system allows it (used for 4096-aligned I/O through the engine's
 * aligned scratch buffer) and buffered (for everything else, and when O_DIRECT is refused, as on
 * tmpfs). A regular file is created or extended to the requested size.
 *
 * <p>The engines reach it asynchronously, each through its own io_uring ({@link #openChannel});
 * the synchronous calls remain for Compare, Dataset Management, Write Zeroes and fallbacks.
 *
 * <p>Thread-safe: positional calls on shared descriptors.
 */
// Restricted FFM calls (libc/kernel entry points, native structs); the launcher runs with --enable-native-access.
@SuppressWarnings("restricted")
public final class FileBackend extends StaBackend {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle OPEN = LINKER.downcallHandle(LIBC.find("open").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle PREAD = LINKER.downcallHandle(LIBC.find("pread").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle PWRITE = LINKER.downcallHandle(LIBC.find("pwrite").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle FDATASYNC = LINKER.downcallHandle(LIBC.find("fdatasync").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LIBC.find("close").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private static final int O_RDWR = 02;
    private static final int O_CREAT = 0100;
    private static final int O_DIRECT = 040000;
    private static final int DIRECT_ALIGN = 4096;

    private final Path path;
    private final int fd;
    private final int directFd;

    /**
     * Opens {@code path}; when {@code sizeBytes} is positive a regular file is created or extended
     * to it, when 0 the current size of the file or device is used. Control path.
     */
    public static FileBackend open(String name, Path path, long sizeBytes) {
        try {
            long size = sizeBytes;
            if (sizeBytes > 0 && !path.toString().startsWith("/dev/")) {
                if (!Files.exists(path)) {
                    Files.createFile(path);
                }
                if (Files.size(path) < sizeBytes) {
                    try (var raf = new java.io.RandomAccessFile(path.toFile(), "rw")) {
                        raf.setLength(sizeBytes);
                    }
                }
            }
            if (size <= 0) {
                try (var ch = java.nio.channels.FileChannel.open(path, java.nio.file.StandardOpenOption.READ)) {
                    size = ch.size();
                }
            }
            return new FileBackend(name, path, size);
        } catch (java.io.IOException e) {
            throw new DocaException(DocaError.OPERATING_SYSTEM, "cannot open back-end file " + path + ": "
                    + e.getMessage(), e);
        }
    }

    private FileBackend(String name, Path path, long sizeBytes) {
        super(name, sizeBytes);
        this.path = path;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocateFrom(path.toString());
            this.fd = (int) OPEN.invokeExact(p, O_RDWR, 0644);
            if (fd < 0) {
                throw new DocaException(DocaError.OPERATING_SYSTEM, "open(" + path + ") failed");
            }
            this.directFd = (int) OPEN.invokeExact(p, O_RDWR | O_DIRECT, 0644);
        } catch (DocaException e) {
            throw e;
        } catch (Throwable t) {
            throw new DocaException(DocaError.OPERATING_SYSTEM, "open(" + path + ") failed: " + t, t);
        }
    }

    @Override
    public String kind() {
        return "file";
    }

    public Path path() {
        return path;
    }

    /** True when O_DIRECT was accepted by the file system. */
    public boolean isDirect() {
        return directFd >= 0;
    }

    private boolean useDirect(long offset, long len, MemorySegment scratch) {
        return directFd >= 0 && (offset % DIRECT_ALIGN) == 0 && (len % DIRECT_ALIGN) == 0
                && scratch.address() % DIRECT_ALIGN == 0 && len <= scratch.byteSize();
    }

    @Override
    public int read(long offset, MemorySegment dst, long dstOff, int len, MemorySegment scratch) {
        try {
            long n;
            if (useDirect(offset, len, scratch)) {
                n = (long) PREAD.invokeExact(directFd, scratch, (long) len, offset);
                if (n == len) {
                    MemorySegment.copy(scratch, 0, dst, dstOff, len);
                    return NvmeStatus.SUCCESS;
                }
            }
            if (dst.isNative()) {
                long done = 0;
                while (done < len) {
                    n = (long) PREAD.invokeExact(fd, dst.asSlice(dstOff + done), len - done, offset + done);
                    if (n <= 0) {
                        return NvmeStatus.DATA_TRANSFER_ERROR;
                    }
                    done += n;
                }
                return NvmeStatus.SUCCESS;
            }
            return NvmeStatus.INTERNAL_ERROR;
        } catch (Throwable t) {
            return NvmeStatus.INTERNAL_ERROR;
        }
    }

    @Override
    public int write(long offset, MemorySegment src, long srcOff, int len, MemorySegment scratch) {
        try {
            if (useDirect(offset, len, scratch)) {
                MemorySegment.copy(src, srcOff, scratch, 0, len);
                long n = (long) PWRITE.invokeExact(directFd, scratch, (long) len, offset);
                if (n == len) {
                    return NvmeStatus.SUCCESS;
                }
            }
            long done = 0;
            while (done < len) {
                long n = (long) PWRITE.invokeExact(fd, src.asSlice(srcOff + done), len - done, offset + done);
                if (n <= 0) {
                    return NvmeStatus.DATA_TRANSFER_ERROR;
                }
                done += n;
            }
            return NvmeStatus.SUCCESS;
        } catch (Throwable t) {
            return NvmeStatus.INTERNAL_ERROR;
        }
    }

    @Override
    public int flush() {
        try {
            return (int) FDATASYNC.invokeExact(fd) == 0 ? NvmeStatus.SUCCESS : NvmeStatus.INTERNAL_ERROR;
        } catch (Throwable t) {
            return NvmeStatus.INTERNAL_ERROR;
        }
    }

    @Override
    public int writeZeroes(long offset, long len, MemorySegment scratch) {
        try {
            long done = 0;
            while (done < len) {
                long n = Math.min(len - done, Zeroes.SEGMENT.byteSize());
                long w = (long) PWRITE.invokeExact(fd, Zeroes.SEGMENT, n, offset + done);
                if (w <= 0) {
                    return NvmeStatus.DATA_TRANSFER_ERROR;
                }
                done += w;
            }
            return NvmeStatus.SUCCESS;
        } catch (Throwable t) {
            return NvmeStatus.INTERNAL_ERROR;
        }
    }

    /**
     * An io_uring channel ({@link IoUringChannel}) for the calling engine; null (synchronous
     * pread/pwrite) when the kernel refuses io_uring or {@code -Djdoca.sta.io_uring=false}.
     */
    @Override
    public StaBackendChannel openChannel(int depth) {
        if (!StaProperties.IO_URING.asBoolean()) {
            return null;
        }
        try {
            return new IoUringChannel(depth, fd, directFd);
        } catch (IllegalStateException | UnsupportedOperationException e) {
            System.getLogger(FileBackend.class.getName()).log(System.Logger.Level.WARNING,
                    "{0}: io_uring unavailable ({1}); synchronous I/O", name(), e.getMessage());
            return null;
        }
    }

    @Override
    protected void close() {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
            if (directFd >= 0) {
                ignored = (int) CLOSE.invokeExact(directFd);
            }
        } catch (Throwable t) {
            // closing a descriptor we own cannot usefully fail here
        }
    }
}
