package io.jdoca.compress;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.exec.InlineEngineCtx;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.mem.MmapExport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

/**
 * The compression context ({@code doca_compress}) on the Core runtime, with software engines:
 * LZ4 block and LZ4 stream ({@link Lz4StreamCodec}) decompression as DOCA defines them, the
 * matching LZ4 compression the GGA write path needs, and raw deflate both ways.
 *
 * <p>Tasks run inside {@link io.jdoca.core.exec.ProgressEngine#progress()} on the engine's thread,
 * at most {@link #BATCH} per call, in submission order. Source: the data of a buffer, or the
 * concatenated data of a buffer list ({@link Buf#chainList}) of up to {@link #MAX_BUF_LIST_LEN};
 * destination: the tailroom of a buffer, or the tailrooms of a list filled in order, whose data
 * lengths grow by the output. A single buffer per side is zero-copy; a list is gathered into, or the
 * output scattered from, a scratch buffer of {@link #maxChainedTaskSize()} bytes allocated at start.
 * Outcomes: SUCCESS; TOO_BIG when the output does not fit in the destination's tailroom (nothing
 * appended to any buffer); NOT_SUPPORTED when a list's side exceeds {@link #maxChainedTaskSize()};
 * INVALID_VALUE for corrupt or truncated input, a bad block checksum, a list longer than
 * {@link #MAX_BUF_LIST_LEN} or unusable buffers; NOT_PERMITTED for memory the context may not
 * access. With {@link #setChecksumsEnabled} a successful task also carries DOCA's checksums of the
 * uncompressed data. No exception leaves the data path, and after start nothing is allocated.
 *
 * <p>Not thread-safe: configure, submit and progress on one thread.
 */
public final class Compress extends InlineEngineCtx {
    /** Tasks executed per progress call (LZ4 of 64 KiB costs ~100 us; keep a progress call short). */
    public static final int BATCH = 8;
    /** Largest source or destination buffer. */
    public static final long MAX_BUF_SIZE = Integer.MAX_VALUE;
    /** Longest buffer list per side ({@code doca_compress_cap_task_*_get_max_buf_list_len}). */
    public static final int MAX_BUF_LIST_LEN = 16;
    /** Default {@link #maxChainedTaskSize()}: 1 MiB, i.e. 2 MiB of scratch memory per started context. */
    public static final int DEFAULT_MAX_CHAINED_TASK_SIZE = 1 << 20;

    private final Dev dev;
    private final Lz4Codec lz4;
    private final Lz4StreamCodec lz4Stream;
    private final int deflateLevel;
    private DeflateCodec deflate;
    private final TaskPool<CompressTaskCompressDeflate> compressDeflatePool;
    private final TaskPool<CompressTaskDecompressDeflate> decompressDeflatePool;
    private final TaskPool<CompressTaskCompressLz4Block> compressLz4BlockPool;
    private final TaskPool<CompressTaskDecompressLz4Block> decompressLz4BlockPool;
    private final TaskPool<CompressTaskCompressLz4Stream> compressLz4StreamPool;
    private final TaskPool<CompressTaskDecompressLz4Stream> decompressLz4StreamPool;
    private int maxChainedTaskSize = DEFAULT_MAX_CHAINED_TASK_SIZE;
    // Codecs need contiguous memory: a chained source is copied into gather, and the output for a
    // chained destination is produced in scatter, then copied out once it is known to be complete.
    private MemorySegment gather;
    private MemorySegment scatter;
    private boolean checksums;
    private final CRC32 crc32 = new CRC32();
    private final Adler32 adler32 = new Adler32();
    private final SegmentBuffers views = new SegmentBuffers();
    // Set by check() for the task it validated: total source data, total destination tailroom.
    private long srcTotal;
    private long dstRoom;

    private Compress(Dev dev, Lz4Codec lz4, int deflateLevel) {
        super("compress", BATCH);
        this.dev = dev;
        this.lz4 = lz4;
        this.lz4Stream = new Lz4StreamCodec(lz4);
        this.deflateLevel = deflateLevel;
        this.compressDeflatePool = registerTaskType("compress_deflate", CompressTaskCompressDeflate::new);
        this.decompressDeflatePool = registerTaskType("decompress_deflate", CompressTaskDecompressDeflate::new);
        this.compressLz4BlockPool = registerTaskType("compress_lz4_block", CompressTaskCompressLz4Block::new);
        this.decompressLz4BlockPool = registerTaskType("decompress_lz4_block", CompressTaskDecompressLz4Block::new);
        this.compressLz4StreamPool = registerTaskType("compress_lz4_stream", CompressTaskCompressLz4Stream::new);
        this.decompressLz4StreamPool = registerTaskType("decompress_lz4_stream", CompressTaskDecompressLz4Stream::new);
    }

    /** {@code doca_compress_create}, with the LZ4 codec {@link Lz4Codec#create()} picks. */
    public static Compress create(Dev dev) {
        return create(dev, Lz4Codec.create(), java.util.zip.Deflater.DEFAULT_COMPRESSION);
    }

    /** With an explicit LZ4 codec and deflate level (-1 = zlib default, 1..9). */
    public static Compress create(Dev dev, Lz4Codec lz4, int deflateLevel) {
        if (dev == null || lz4 == null) {
            throw new IllegalArgumentException("Compress context needs a device and an LZ4 codec");
        }
        return new Compress(dev, lz4, deflateLevel);
    }

    public Dev dev() {
        return dev;
    }

    /** The LZ4 codec in use. */
    public Lz4Codec lz4Codec() {
        return lz4;
    }

    // ------------------------------------------------------------------ capabilities

    /** {@code doca_compress_cap_task_decompress_lz4_stream_is_supported}. */
    public static boolean capTaskDecompressLz4StreamIsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_compress_cap_task_decompress_lz4_block_is_supported}. */
    public static boolean capTaskDecompressLz4BlockIsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_compress_cap_task_compress_deflate_is_supported}. */
    public static boolean capTaskCompressDeflateIsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_compress_cap_task_decompress_deflate_is_supported}. */
    public static boolean capTaskDecompressDeflateIsSupported(DevInfo info) {
        return info != null;
    }

    /** LZ4 compression (block and stream): a jdoca software addition. */
    public static boolean capTaskCompressLz4IsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_compress_cap_task_*_get_max_buf_size}. */
    public static long capGetMaxBufSize(DevInfo info) {
        return MAX_BUF_SIZE;
    }

    /**
     * {@code doca_compress_cap_task_*_get_max_buf_list_len}: {@link #MAX_BUF_LIST_LEN} for every task
     * type; a list's total size is bounded by the context's {@link #maxChainedTaskSize()}.
     */
    public static int capGetMaxBufListLen(DevInfo info) {
        return MAX_BUF_LIST_LEN;
    }

    // ------------------------------------------------------------------ context configuration

    /**
     * Bounds a task whose source or destination is a buffer list: the list's source data, or the
     * output written into a destination list, must not exceed {@code bytes} (NOT_SUPPORTED
     * otherwise, nothing appended). Two scratch buffers of this size are allocated at start; 0
     * disables lists. Single buffers are not bounded by it. BAD_STATE unless the context is idle.
     */
    public DocaError setMaxChainedTaskSize(int bytes) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (bytes < 0) {
            return DocaError.INVALID_VALUE;
        }
        maxChainedTaskSize = bytes;
        return DocaError.SUCCESS;
    }

    /** See {@link #setMaxChainedTaskSize}. */
    public int maxChainedTaskSize() {
        return maxChainedTaskSize;
    }

    /**
     * Whether successful tasks carry DOCA's checksums of the uncompressed data (CRC-32 and Adler-32
     * for deflate, CRC-32 and xxHash-32 for LZ4 decompression); off by default because software
     * pays for them (a pass over the data per checksum), where DOCA's hardware computes them inline.
     * Takes effect for tasks executed afterwards, in any state.
     */
    public void setChecksumsEnabled(boolean enabled) {
        this.checksums = enabled;
    }

    public boolean checksumsEnabled() {
        return checksums;
    }

    // ------------------------------------------------------------------ task configuration

    public DocaError taskCompressDeflateSetConf(TaskCallback<CompressTaskCompressDeflate> ok,
            TaskCallback<CompressTaskCompressDeflate> err, int n) {
        return compressDeflatePool.setConf(ok, err, n);
    }

    public DocaError taskDecompressDeflateSetConf(TaskCallback<CompressTaskDecompressDeflate> ok,
            TaskCallback<CompressTaskDecompressDeflate> err, int n) {
        return decompressDeflatePool.setConf(ok, err, n);
    }

    public DocaError taskCompressLz4BlockSetConf(TaskCallback<CompressTaskCompressLz4Block> ok,
            TaskCallback<CompressTaskCompressLz4Block> err, int n) {
        return compressLz4BlockPool.setConf(ok, err, n);
    }

    public DocaError taskDecompressLz4BlockSetConf(TaskCallback<CompressTaskDecompressLz4Block> ok,
            TaskCallback<CompressTaskDecompressLz4Block> err, int n) {
        return decompressLz4BlockPool.setConf(ok, err, n);
    }

    public DocaError taskCompressLz4StreamSetConf(TaskCallback<CompressTaskCompressLz4Stream> ok,
            TaskCallback<CompressTaskCompressLz4Stream> err, int n) {
        return compressLz4StreamPool.setConf(ok, err, n);
    }

    public DocaError taskDecompressLz4StreamSetConf(TaskCallback<CompressTaskDecompressLz4Stream> ok,
            TaskCallback<CompressTaskDecompressLz4Stream> err, int n) {
        return decompressLz4StreamPool.setConf(ok, err, n);
    }

    // ------------------------------------------------------------------ task allocation (data path)

    /** {@code doca_compress_task_compress_deflate_alloc_init}; null if none free (see {@link #lastError()}). */
    public CompressTaskCompressDeflate taskCompressDeflateAllocInit(Buf src, Buf dst, long userData) {
        return init(compressDeflatePool.alloc(), src, dst, userData);
    }

    /** {@code doca_compress_task_decompress_deflate_alloc_init}. */
    public CompressTaskDecompressDeflate taskDecompressDeflateAllocInit(Buf src, Buf dst, long userData) {
        return init(decompressDeflatePool.alloc(), src, dst, userData);
    }

    /** LZ4 block compression (jdoca). */
    public CompressTaskCompressLz4Block taskCompressLz4BlockAllocInit(Buf src, Buf dst, long userData) {
        return init(compressLz4BlockPool.alloc(), src, dst, userData);
    }

    /** {@code doca_compress_task_decompress_lz4_block_alloc_init}. */
    public CompressTaskDecompressLz4Block taskDecompressLz4BlockAllocInit(Buf src, Buf dst, long userData) {
        return init(decompressLz4BlockPool.alloc(), src, dst, userData);
    }

    /** LZ4 stream compression as the GGA write path and the sbc generator produce it (jdoca). */
    public CompressTaskCompressLz4Stream taskCompressLz4StreamAllocInit(Buf src, Buf dst, long userData) {
        return init(compressLz4StreamPool.alloc(), src, dst, userData);
    }

    /**
     * {@code doca_compress_task_decompress_lz4_stream_alloc_init(compress, has_block_checksum,
     * are_blocks_independent, src, dst, ud)}.
     */
    public CompressTaskDecompressLz4Stream taskDecompressLz4StreamAllocInit(boolean hasBlockChecksum,
            boolean blocksIndependent,
            Buf src, Buf dst, long userData) {
        CompressTaskDecompressLz4Stream t = init(decompressLz4StreamPool.alloc(), src, dst, userData);
        if (t != null) {
            t.setHasBlockChecksum(hasBlockChecksum);
            t.setAreBlocksIndependent(blocksIndependent);
        }
        return t;
    }

    private static <T extends CompressTask> T init(T t, Buf src, Buf dst, long userData) {
        if (t != null) {
            t.init(src, dst);
            t.setUserData(userData);
        }
        return t;
    }

    // ------------------------------------------------------------------ engine

    @Override
    protected DocaError startEngine() {
        if (!compressDeflatePool.isConfigured() && !decompressDeflatePool.isConfigured()
                && !compressLz4BlockPool.isConfigured()
                && !decompressLz4BlockPool.isConfigured() && !compressLz4StreamPool.isConfigured()
                && !decompressLz4StreamPool.isConfigured()) {
            return DocaError.BAD_STATE;
        }
        if (maxChainedTaskSize == 0) {
            gather = null;
            scatter = null;
        } else if (gather == null || gather.byteSize() != maxChainedTaskSize) {
            try {
                // Kept across stop/start; the GC frees them with the context.
                Arena a = Arena.ofAuto();
                gather = a.allocate(maxChainedTaskSize, 64);
                scatter = a.allocate(maxChainedTaskSize, 64);
            } catch (OutOfMemoryError e) {
                gather = null;
                scatter = null;
                return DocaError.NO_MEMORY;
            }
        }
        if (deflate == null && (compressDeflatePool.isConfigured() || decompressDeflatePool.isConfigured())) {
            deflate = new DeflateCodec(deflateLevel);
        }
        return DocaError.SUCCESS;
    }


    @Override
    protected void onIdle() {
        if (deflate != null) {
            deflate.close();
            deflate = null;
        }
    }

    @Override
    protected DocaError validateTask(Task t) {
        CompressTask c = (CompressTask) t;
        return check(c.src(), c.dst());
    }




    @Override
    protected DocaError execute(Task task) {
        CompressTask t = (CompressTask) task;
        t.clearChecksums();
        Buf s = t.src();
        Buf d = t.dst();
        DocaError e = check(s, d);
        if (e != DocaError.SUCCESS) {
            return e;
        }
        int srcLen = (int) srcTotal;
        MemorySegment sseg;
        long soff;
        if (s.next() == null) {
            sseg = s.segment();
            soff = s.dataOffset();
        } else {
            gather(s);
            sseg = gather;
            soff = 0;
        }
        boolean chainedDst = d.next() != null;
        MemorySegment dseg = chainedDst ? scatter : d.segment();
        long doff = chainedDst ? 0 : d.tailOffset();
        int cap = (int) Math.min(Integer.MAX_VALUE, chainedDst ? Math.min(dstRoom, scatter.byteSize()) : dstRoom);
        int r = run(t, sseg, soff, srcLen, dseg, doff, cap);
        if (r < 0) {
            if (r != Lz4Codec.ERR_DST_TOO_SMALL) {
                return DocaError.INVALID_VALUE;
            }
            // The list had room the scratch buffer lacks: the limit, not the destination, is at fault.
            return chainedDst && dstRoom > cap ? DocaError.NOT_SUPPORTED : DocaError.TOO_BIG;
        }
        if (checksums) {
            if (t instanceof CompressTaskCompressDeflate) {
                checksums(t, sseg, soff, srcLen, true, false);
            } else if (t instanceof CompressTaskDecompressDeflate) {
                checksums(t, dseg, doff, r, true, false);
            } else if (t instanceof CompressTaskDecompressLz4Block || t instanceof CompressTaskDecompressLz4Stream) {
                checksums(t, dseg, doff, r, false, true);
            }
        }
        if (chainedDst) {
            scatter(d, r);
        } else {
            d.appendData(r);
        }
        return DocaError.SUCCESS;
    }

    /** The codec call for the task's type: an output length or a negative {@link Lz4Codec} error. */
    private int run(CompressTask t, MemorySegment s, long soff, int srcLen, MemorySegment d, long doff, int cap) {
        if (t instanceof CompressTaskDecompressLz4Stream ds) {
            return lz4Stream.decompress(ds.hasBlockChecksum(), ds.areBlocksIndependent(),
                    s, soff, srcLen, d, doff, cap);
        } else if (t instanceof CompressTaskCompressLz4Stream) {
            return lz4Stream.compress(s, soff, srcLen, d, doff, cap);
        } else if (t instanceof CompressTaskDecompressLz4Block) {
            return srcLen == 0 ? Lz4Codec.ERR_MALFORMED : lz4.decompress(s, soff, srcLen, d, doff, cap);
        } else if (t instanceof CompressTaskCompressLz4Block) {
            return lz4.compress(s, soff, srcLen, d, doff, cap);
        } else if (t instanceof CompressTaskCompressDeflate) {
            return deflate == null ? Lz4Codec.ERR_MALFORMED : deflate.compress(s, soff, srcLen, d, doff, cap);
        } else if (t instanceof CompressTaskDecompressDeflate) {
            return deflate == null ? Lz4Codec.ERR_MALFORMED : deflate.decompress(s, soff, srcLen, d, doff, cap);
        }
        return Lz4Codec.ERR_MALFORMED;
    }

    /** Concatenates a source list's data at the start of {@link #gather} (check() bounded the total). */
    private void gather(Buf src) {
        long off = 0;
        for (Buf b = src; b != null; b = b.next()) {
            long n = b.dataLen();
            if (n > 0) {
                MemorySegment.copy(b.segment(), b.dataOffset(), gather, off, n);
                off += n;
            }
        }
    }

    /** Appends {@code scatter[0, len)} across a destination list's tailrooms in order (check() saw the room). */
    private void scatter(Buf dst, int len) {
        long off = 0;
        for (Buf b = dst; b != null && off < len; b = b.next()) {
            long n = Math.min(b.tailroomLen(), len - off);
            if (n > 0) {
                MemorySegment.copy(scatter, off, b.segment(), b.tailOffset(), n);
                b.appendData(n);
                off += n;
            }
        }
    }

    /** CRC-32 plus Adler-32 or xxHash-32 of {@code seg[off, +len)} into the task. */
    private void checksums(CompressTask t, MemorySegment seg, long off, int len, boolean adler, boolean xxh) {
        crc32.reset();
        adler32.reset();
        ByteBuffer b = views.window(views.in(seg), off, len);
        if (b != null) {
            // Direct buffers go to zlib's (intrinsified) loops by address: no copy, no allocation.
            crc32.update(b);
            if (adler) {
                b.position((int) off);
                adler32.update(b);
            }
        } else {
            // Heap memory or a map over 2 GiB (no cached view): byte at a time rather than allocate one.
            for (long p = off, end = off + len; p < end; p++) {
                int v = seg.get(ValueLayout.JAVA_BYTE, p);
                crc32.update(v);
                if (adler) {
                    adler32.update(v);
                }
            }
        }
        t.crcCs = (int) crc32.getValue();
        t.adlerCs = adler ? (int) adler32.getValue() : 0;
        t.xxhCs = xxh ? XxHash32.hash(seg, off, len, 0) : 0;
    }

    /**
     * Validates both sides and records {@link #srcTotal} and {@link #dstRoom}. The list walks are
     * bounded by {@link #MAX_BUF_LIST_LEN}, so a cyclic list is rejected rather than looped on.
     */
    private DocaError check(Buf src, Buf dst) {
        if (src == null || dst == null) {
            return DocaError.INVALID_VALUE;
        }
        long total = 0;
        int n = 0;
        for (Buf b = src; b != null; b = b.next()) {
            if (++n > MAX_BUF_LIST_LEN) {
                return DocaError.INVALID_VALUE;
            }
            DocaError e = access(b.mmap(), false);
            if (e != DocaError.SUCCESS) {
                return e;
            }
            total += b.dataLen();
        }
        if (total > MAX_BUF_SIZE) {
            return DocaError.INVALID_VALUE;
        }
        if (n > 1 && (gather == null || total > gather.byteSize())) {
            return DocaError.NOT_SUPPORTED;
        }
        long room = 0;
        n = 0;
        for (Buf b = dst; b != null; b = b.next()) {
            if (++n > MAX_BUF_LIST_LEN) {
                return DocaError.INVALID_VALUE;
            }
            DocaError e = access(b.mmap(), true);
            if (e != DocaError.SUCCESS) {
                return e;
            }
            room += b.tailroomLen();
        }
        if (n > 1 && scatter == null) {
            return DocaError.NOT_SUPPORTED;
        }
        srcTotal = total;
        dstRoom = room;
        return DocaError.SUCCESS;
    }

    private DocaError access(MemoryMap m, boolean write) {
        if (m == null || !m.isStarted()) {
            return DocaError.INVALID_VALUE;
        }
        if (!m.isLocallyAccessible() || !m.hasDev(dev)) {
            return DocaError.NOT_PERMITTED;
        }
        if (m.isImported()) {
            if (m.importedFrom().kind() != MmapExport.Kind.PCI) {
                return DocaError.NOT_PERMITTED;
            }
            int need = write ? AccessFlags.PCI_READ_WRITE : AccessFlags.PCI_READ_ONLY | AccessFlags.PCI_READ_WRITE;
            return (m.permissions() & need) != 0 ? DocaError.SUCCESS : DocaError.NOT_PERMITTED;
        }
        return !write || m.hasPermission(AccessFlags.LOCAL_READ_WRITE) ? DocaError.SUCCESS : DocaError.NOT_PERMITTED;
    }
}
