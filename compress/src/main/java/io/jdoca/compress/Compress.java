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
import io.jdoca.core.mem.MmapExport;

/**
 * The compression context ({@code doca_compress}) on the Core runtime, with software engines:
 * LZ4 block and LZ4 stream ({@link Lz4StreamCodec}) decompression as DOCA defines them, the
 * matching LZ4 compression the GGA write path needs, and raw deflate both ways.
 *
 * <p>Tasks run inside {@link io.jdoca.core.exec.ProgressEngine#progress()} on the engine's thread,
 * at most {@link #BATCH} per call, in submission order. Source: the data of one buffer;
 * destination: the tailroom of one buffer, whose data length grows by the output length. Outcomes:
 * SUCCESS; TOO_BIG when the output does not fit in the destination's tailroom (nothing appended);
 * INVALID_VALUE for corrupt or truncated input, a bad block checksum or unusable buffers;
 * NOT_PERMITTED for memory the context may not access. No exception leaves the data path, and
 * after start nothing is allocated.
 *
 * <p>Not thread-safe: configure, submit and progress on one thread.
 */
public final class Compress extends InlineEngineCtx {
    /** Tasks executed per progress call (LZ4 of 64 KiB costs ~100 us; keep a progress call short). */
    public static final int BATCH = 8;
    /** Largest source or destination buffer. */
    public static final long MAX_BUF_SIZE = Integer.MAX_VALUE;

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

    /** {@code doca_compress_cap_task_*_get_max_buf_list_len}: one buffer per side. */
    public static int capGetMaxBufListLen(DevInfo info) {
        return 1;
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

    /** {@code doca_compress_task_decompress_lz4_stream_alloc_init(compress, has_block_checksum, are_blocks_independent, src, dst, ud)}. */
    public CompressTaskDecompressLz4Stream taskDecompressLz4StreamAllocInit(boolean hasBlockChecksum, boolean blocksIndependent,
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
        if (!compressDeflatePool.isConfigured() && !decompressDeflatePool.isConfigured() && !compressLz4BlockPool.isConfigured()
                && !decompressLz4BlockPool.isConfigured() && !compressLz4StreamPool.isConfigured()
                && !decompressLz4StreamPool.isConfigured()) {
            return DocaError.BAD_STATE;
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
        Buf s = t.src();
        Buf d = t.dst();
        DocaError e = check(s, d);
        if (e != DocaError.SUCCESS) {
            return e;
        }
        int srcLen = (int) s.dataLen();
        int cap = (int) Math.min(Integer.MAX_VALUE, d.tailroomLen());
        int r;
        if (t instanceof CompressTaskDecompressLz4Stream ds) {
            r = lz4Stream.decompress(ds.hasBlockChecksum(), ds.areBlocksIndependent(), s.segment(), s.dataOffset(), srcLen,
                    d.segment(), d.tailOffset(), cap);
        } else if (t instanceof CompressTaskCompressLz4Stream) {
            r = lz4Stream.compress(s.segment(), s.dataOffset(), srcLen, d.segment(), d.tailOffset(), cap);
        } else if (t instanceof CompressTaskDecompressLz4Block) {
            r = srcLen == 0 ? Lz4Codec.ERR_MALFORMED : lz4.decompress(s.segment(), s.dataOffset(), srcLen, d.segment(), d.tailOffset(), cap);
        } else if (t instanceof CompressTaskCompressLz4Block) {
            r = lz4.compress(s.segment(), s.dataOffset(), srcLen, d.segment(), d.tailOffset(), cap);
        } else if (t instanceof CompressTaskCompressDeflate) {
            r = deflate == null ? Lz4Codec.ERR_MALFORMED
                    : deflate.compress(s.segment(), s.dataOffset(), srcLen, d.segment(), d.tailOffset(), cap);
        } else if (t instanceof CompressTaskDecompressDeflate) {
            r = deflate == null ? Lz4Codec.ERR_MALFORMED
                    : deflate.decompress(s.segment(), s.dataOffset(), srcLen, d.segment(), d.tailOffset(), cap);
        } else {
            return DocaError.INVALID_VALUE;
        }
        if (r < 0) {
            return r == Lz4Codec.ERR_DST_TOO_SMALL ? DocaError.TOO_BIG : DocaError.INVALID_VALUE;
        }
        d.appendData(r);
        return DocaError.SUCCESS;
    }

    private DocaError check(Buf src, Buf dst) {
        if (src == null || dst == null || src.next() != null || dst.next() != null) {
            return DocaError.INVALID_VALUE;
        }
        DocaError e = access(src.mmap(), false);
        if (e != DocaError.SUCCESS) {
            return e;
        }
        e = access(dst.mmap(), true);
        if (e != DocaError.SUCCESS) {
            return e;
        }
        return src.dataLen() > MAX_BUF_SIZE ? DocaError.INVALID_VALUE : DocaError.SUCCESS;
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
