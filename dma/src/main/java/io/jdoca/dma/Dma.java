package io.jdoca.dma;

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
import java.lang.foreign.MemorySegment;

/**
 * The DMA context ({@code doca_dma}): a software copy engine on the Core runtime. Its one task,
 * {@link DmaTaskMemcpy}, copies local→local or between local memory and memory imported from a PCI
 * export (the host's memory as the DPU sees it), checking permissions and bounds.
 *
 * <p>Copies run inside {@link io.jdoca.core.exec.ProgressEngine#progress()} on the engine's thread,
 * at most {@link #BATCH} per call, in submission order. Not thread-safe (single engine thread).
 *
 * <p>Permission rules (what a DMA engine may do with a map, from the map's {@link AccessFlags}):
 * reading a local map is always allowed, writing it needs LOCAL_READ_WRITE; reading an imported PCI
 * map needs PCI_READ_ONLY or PCI_READ_WRITE, writing it needs PCI_READ_WRITE; a map imported from
 * an RDMA export, or one not mapped in this process, is NOT_PERMITTED. The map must have this
 * context's device added (imported maps: the device given at import).
 */
public final class Dma extends InlineEngineCtx {
    /** Copies executed per progress call, so one context cannot starve the others on the engine. */
    public static final int BATCH = 64;
    /** Largest single buffer (DOCA reports 2 GiB on BlueField-3). */
    public static final long MAX_BUF_SIZE = 1L << 31;
    /** Longest scatter/gather list accepted. */
    public static final int MAX_BUF_LIST_LEN = 64;

    private final Dev dev;
    private final TaskPool<DmaTaskMemcpy> memcpyPool;

    private Dma(Dev dev) {
        super("dma", BATCH);
        this.dev = dev;
        this.memcpyPool = registerTaskType("memcpy", DmaTaskMemcpy::new);
    }

    /** {@code doca_dma_create}. */
    public static Dma create(Dev dev) {
        if (dev == null) {
            throw new IllegalArgumentException("DMA context needs a device");
        }
        return new Dma(dev);
    }

    public Dev dev() {
        return dev;
    }

    // ------------------------------------------------------------------ capabilities

    /** {@code doca_dma_cap_task_memcpy_is_supported}: every software device supports it. */
    public static boolean capTaskMemcpyIsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_dma_cap_task_memcpy_get_max_buf_size}. */
    public static long capTaskMemcpyGetMaxBufSize(DevInfo info) {
        return MAX_BUF_SIZE;
    }

    /** {@code doca_dma_cap_task_memcpy_get_max_buf_list_len}. */
    public static int capTaskMemcpyGetMaxBufListLen(DevInfo info) {
        return MAX_BUF_LIST_LEN;
    }

    // ------------------------------------------------------------------ tasks

    /** {@code doca_dma_task_memcpy_set_conf}. */
    public DocaError taskMemcpySetConf(TaskCallback<DmaTaskMemcpy> success, TaskCallback<DmaTaskMemcpy> error,
            int numTasks) {
        return memcpyPool.setConf(success, error, numTasks);
    }

    /** {@code doca_dma_task_memcpy_alloc_init}; null if none is free (see {@link #lastError()}). */
    public DmaTaskMemcpy taskMemcpyAllocInit(Buf src, Buf dst, long userData) {
        DmaTaskMemcpy t = memcpyPool.alloc();
        if (t != null) {
            t.setSrc(src);
            t.setDst(dst);
            t.setUserData(userData);
        }
        return t;
    }

    // ------------------------------------------------------------------ engine

    @Override
    protected DocaError startEngine() {
        if (!memcpyPool.isConfigured()) {
            return DocaError.BAD_STATE;
        }
        return DocaError.SUCCESS;
    }


    @Override
    protected DocaError validateTask(Task t) {
        DmaTaskMemcpy m = (DmaTaskMemcpy) t;
        return check(m.src(), m.dst());
    }



    @Override
    protected DocaError execute(Task t) {
        DmaTaskMemcpy m = (DmaTaskMemcpy) t;
        // Re-checked here: trySubmit skips the submit-time checks, and a bad task must fail, not corrupt.
        DocaError e = check(m.src(), m.dst());
        return e == DocaError.SUCCESS ? copy(m.src(), m.dst()) : e;
    }

    private DocaError check(Buf src, Buf dst) {
        if (src == null || dst == null) {
            return DocaError.INVALID_VALUE;
        }
        long total = 0;
        int len = 0;
        for (Buf b = src; b != null; b = b.next()) {
            DocaError e = access(b.mmap(), false);
            if (e != DocaError.SUCCESS) {
                return e;
            }
            if (b.dataLen() > MAX_BUF_SIZE || ++len > MAX_BUF_LIST_LEN) {
                return DocaError.INVALID_VALUE;
            }
            total += b.dataLen();
        }
        long room = 0;
        len = 0;
        for (Buf b = dst; b != null; b = b.next()) {
            DocaError e = access(b.mmap(), true);
            if (e != DocaError.SUCCESS) {
                return e;
            }
            if (++len > MAX_BUF_LIST_LEN) {
                return DocaError.INVALID_VALUE;
            }
            room += b.tailroomLen();
        }
        return total <= room && total <= MAX_BUF_SIZE ? DocaError.SUCCESS : DocaError.INVALID_VALUE;
    }

    private DocaError access(MemoryMap m, boolean write) {
        if (m == null || !m.isStarted()) {
            return DocaError.INVALID_VALUE;
        }
        if (!m.isLocallyAccessible() || !m.hasDev(dev)) {
            return DocaError.NOT_PERMITTED;
        }
        if (m.isImported()) {
            if (m.importedFrom().kind() != io.jdoca.core.mem.MmapExport.Kind.PCI) {
                return DocaError.NOT_PERMITTED;
            }
            int need = write ? AccessFlags.PCI_READ_WRITE : AccessFlags.PCI_READ_ONLY | AccessFlags.PCI_READ_WRITE;
            return (m.permissions() & need) != 0 ? DocaError.SUCCESS : DocaError.NOT_PERMITTED;
        }
        return !write || m.hasPermission(AccessFlags.LOCAL_READ_WRITE) ? DocaError.SUCCESS : DocaError.NOT_PERMITTED;
    }

    /** Gather from the source list's data into the destination list's tailrooms. Allocation-free. */
    private static DocaError copy(Buf src, Buf dst) {
        Buf d = dst;
        while (d != null && d.tailroomLen() == 0) {
            d = d.next();
        }
        for (Buf s = src; s != null; s = s.next()) {
            MemorySegment sseg = s.segment();
            long soff = s.dataOffset();
            long left = s.dataLen();
            while (left > 0) {
                if (d == null) {
                    return DocaError.INVALID_VALUE; // unreachable after check(); guards a buffer changed in flight
                }
                long n = Math.min(left, d.tailroomLen());
                MemorySegment.copy(sseg, soff, d.segment(), d.tailOffset(), n);
                d.appendData(n);
                soff += n;
                left -= n;
                if (d.tailroomLen() == 0) {
                    d = d.next();
                }
            }
        }
        return DocaError.SUCCESS;
    }
}
