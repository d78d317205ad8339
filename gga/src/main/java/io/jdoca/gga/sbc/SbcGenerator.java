package io.jdoca.gga.sbc;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.ec.Ec;
import io.jdoca.ec.EcMatrix;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.ec.EcTaskCreate;
import io.jdoca.storage.wire.BinaryContent;
import io.jdoca.gga.CompressedContainer;
import io.jdoca.gga.GgaLayout;
import io.jdoca.compress.Lz4Codec;
import io.jdoca.compress.Lz4StreamCodec;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The GGA {@code .sbc} generator ({@code gga_offload_sbc_generator.cpp}, reference §3
 * "Generator"): for each block B of the zero-padded input, LZ4-compress it into a
 * {@link CompressedContainer}, append the first B/2 bytes to data_1 and the last B/2 to data_2, run
 * an EC create (2 data + 1 redundancy, the chosen matrix) over the container and append the B/2
 * parity bytes to data_p; then write the three files with block size B/2.
 *
 * <p>The EC create runs as a task of an {@link Ec} context on a {@link ProgressEngine}, as DOCA's
 * generator does. Control-path tool: single thread, allocates freely.
 */
public final class SbcGenerator {
    private static final System.Logger LOG = System.getLogger(SbcGenerator.class.getName());

    /** What was generated. */
    public record Result(int blockSize, int blockCount, long inputBytes, long compressedBytes) {
        /** Mean compression ratio (input / LZ4 stream bytes). */
        public double ratio() {
            return compressedBytes == 0 ? 0 : (double) blockCount * blockSize / compressedBytes;
        }
    }

    /**
     * The largest --block-size: the service's scratch chunk is 2.5 B per transaction, and a block is read in one piece.
     */
    public static final int MAX_BLOCK_SIZE = 16 << 20;

    private SbcGenerator() {
    }

    /**
     * Generates {@code data1}, {@code data2} and {@code dataP} from {@code input}.
     *
     * <p>Nothing is half-created: the three files are written under temporary names next to their
     * targets and renamed only once all three are complete.
     *
     * @throws DocaException INVALID_VALUE for a bad block size, an empty input, outputs that are not
     *                       three distinct files (or one is the input), or a block that does not compress
     *                       into B − 12 bytes (DOCA's generator fails the same way); IO_FAILED for file errors
     */
    public static Result generate(Dev dev, Path input, Path data1, Path data2, Path dataP, int blockSize,
            EcMatrixType matrixType) {
        if (blockSize <= 0 || blockSize % GgaLayout.EC_ALIGN != 0 || (blockSize / 2) % GgaLayout.EC_ALIGN != 0
                || blockSize > MAX_BLOCK_SIZE) {
            // B/2 is both a target block and an EC block: doca_ec wants multiples of 64.
            throw new DocaException(DocaError.INVALID_VALUE,
                    "--block-size must be a multiple of 128 (B/2 must be a multiple"
                    + " of 64 for doca_ec) between 128 and " + MAX_BLOCK_SIZE + ", got " + blockSize);
        }
        long inputSize;
        try {
            inputSize = Files.size(input);
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "--original-input-data: cannot read " + input + ": "
                    + e.getMessage(), e);
        }
        if (inputSize == 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "--original-input-data " + input
                    + " is empty: nothing to store");
        }
        checkDistinct(input, data1, data2, dataP);
        long blocks = (inputSize + blockSize - 1) / blockSize;
        int half = blockSize / 2;
        if (blocks * half > BinaryContent.MAX_CONTENT || blocks > Integer.MAX_VALUE) {
            throw new DocaException(DocaError.INVALID_VALUE, "input too large: " + inputSize + " bytes");
        }
        int n = (int) blocks;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(blocks * blockSize, 64);
            readInto(input, in, inputSize);
            MemorySegment d1 = arena.allocate((long) n * half, 64);
            MemorySegment d2 = arena.allocate((long) n * half, 64);
            MemorySegment dp = arena.allocate((long) n * half, 64);
            // Work area: container (B) | parity (b) | LZ4 stream scratch (B).
            MemorySegment work = arena.allocate(2L * blockSize + half, 64);
            long containerOff = 0;
            long parityOff = blockSize;
            long scratchOff = blockSize + half;
            long compressed = encodeAll(dev, in, n, blockSize, matrixType, work, containerOff, parityOff, scratchOff,
                    d1,
                    d2, dp);
            writeAllOrNothing(new Path[] {data1, data2, dataP}, new MemorySegment[] {d1, d2, dp}, half, n);
            LOG.log(System.Logger.Level.INFO, "sbc: " + n + " blocks of " + blockSize + " → 3 × " + n + " × " + half);
            return new Result(blockSize, n, inputSize, compressed);
        }
    }

    private static long encodeAll(Dev dev, MemorySegment in, int n, int blockSize, EcMatrixType type,
            MemorySegment work,
            long containerOff, long parityOff, long scratchOff, MemorySegment d1, MemorySegment d2, MemorySegment dp) {
        int half = blockSize / 2;
        Lz4StreamCodec lz4 = new Lz4StreamCodec(Lz4Codec.create());
        MemoryMap mmap = MemoryMap.create();
        check(mmap.setMemrange(work), "mmap memrange");
        check(mmap.addDev(dev), "mmap add dev");
        check(mmap.setPermissions(AccessFlags.LOCAL_READ_WRITE), "mmap permissions");
        check(mmap.start(), "mmap start");
        BufInventory inv = BufInventory.create(2);
        check(inv.start(), "inventory start");
        ProgressEngine pe = ProgressEngine.create();
        Ec ec = Ec.create(dev);
        DocaError[] status = {null};
        check(ec.taskCreateSetConf((t, ud, cud) -> status[0] = t.status(), (t, ud, cud) -> status[0] = t.status(), 1),
                "ec task create conf");
        check(pe.connectCtx(ec), "connect ec");
        check(ec.start(), "ec start");
        try {
            EcMatrix matrix = ec.matrixCreate(type, 2, 1);
            long base = work.address();
            Buf src = inv.getByData(mmap, base + containerOff, blockSize);
            Buf dst = inv.getByAddr(mmap, base + parityOff, half);
            long total = 0;
            for (int i = 0; i < n; i++) {
                long inOff = (long) i * blockSize;
                int csize = CompressedContainer.pack(lz4, in, inOff, blockSize, work, scratchOff, work, containerOff);
                if (csize < 0) {
                    throw new DocaException(DocaError.INVALID_VALUE, "block " + i + " does not compress into "
                            + CompressedContainer.maxPayload(blockSize) + " bytes (block size " + blockSize
                            + "); GGA needs compressible data, as DOCA's generator (use a larger block size)");
                }
                total += csize;
                dst.resetDataLen();
                status[0] = null;
                EcTaskCreate t = ec.taskCreateAllocInit(matrix, src, dst, i);
                if (t == null) {
                    throw new DocaException(ec.lastError(), "ec task alloc");
                }
                check(t.submit(), "ec create submit");
                pe.progressUntil(() -> status[0] != null, IdleStrategy.yielding(), 10_000_000_000L);
                t.free();
                if (status[0] != DocaError.SUCCESS) {
                    throw new DocaException(status[0] == null ? DocaError.TIME_OUT : status[0], "ec create of block "
                            + i);
                }
                long outOff = (long) i * half;
                MemorySegment.copy(work, containerOff, d1, outOff, half);
                MemorySegment.copy(work, containerOff + half, d2, outOff, half);
                MemorySegment.copy(work, parityOff, dp, outOff, half);
            }
            inv.release(src);
            inv.release(dst);
            return total;
        } finally {
            ec.stop();
            pe.progressUntil(() -> ec.state() == io.jdoca.core.exec.CtxState.IDLE, IdleStrategy.yielding(),
                    5_000_000_000L);
            pe.close();
            mmap.stop();
            mmap.close();
        }
    }

    /** The three outputs must be three different files, none of them the input. */
    private static void checkDistinct(Path input, Path data1, Path data2, Path dataP) {
        Path[] out = {data1, data2, dataP};
        String[] flag = {"--data-1", "--data-2", "--data-p"};
        for (int i = 0; i < 3; i++) {
            if (same(out[i], input)) {
                throw new DocaException(DocaError.INVALID_VALUE, flag[i] + " " + out[i] + " is the input file"
                        + " (--original-input-data)");
            }
            for (int j = i + 1; j < 3; j++) {
                if (same(out[i], out[j])) {
                    throw new DocaException(DocaError.INVALID_VALUE, flag[i] + " and " + flag[j]
                            + " name the same file ("
                            + out[i] + "): the three outputs must be different files");
                }
            }
        }
    }

    private static boolean same(Path a, Path b) {
        if (a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize())) {
            return true;
        }
        try {
            return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
        } catch (IOException e) {
            return false;
        }
    }

    /** Writes each file under a temporary name, then renames all three; on any failure removes what it wrote. */
    private static void writeAllOrNothing(Path[] files, MemorySegment[] content, int half, int n) {
        Path[] tmp = new Path[files.length];
        boolean done = false;
        try {
            for (int i = 0; i < files.length; i++) {
                Path abs = files[i].toAbsolutePath();
                tmp[i] = abs.resolveSibling("." + abs.getFileName() + ".tmp-" + ProcessHandle.current().pid());
                BinaryContent.write(tmp[i], half, n, content[i]);
            }
            for (int i = 0; i < files.length; i++) {
                Files.move(tmp[i], files[i], java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                tmp[i] = null;
            }
            done = true;
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "cannot write the .sbc files: " + e.getMessage(), e);
        } finally {
            if (!done) {
                for (Path t : tmp) {
                    if (t != null) {
                        try {
                            Files.deleteIfExists(t);
                        } catch (IOException ignored) {
                            // best effort
                        }
                    }
                }
            }
        }
    }

    private static void readInto(Path input, MemorySegment dst, long size) {
        try (FileChannel fc = FileChannel.open(input, StandardOpenOption.READ)) {
            var bb = dst.asSlice(0, size).asByteBuffer();
            while (bb.hasRemaining()) {
                if (fc.read(bb) < 0) {
                    throw new DocaException(DocaError.IO_FAILED, input + " shrank while reading");
                }
            }
        } catch (IOException e) {
            throw new DocaException(DocaError.IO_FAILED, "cannot read " + input + ": " + e.getMessage(), e);
        }
    }

    private static void check(DocaError e, String what) {
        if (e != DocaError.SUCCESS) {
            throw new DocaException(e, what);
        }
    }
}
