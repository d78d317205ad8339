package io.jdoca.ec;

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
import java.lang.foreign.MemorySegment;

/**
 * The erasure-coding context ({@code doca_ec}): Reed-Solomon over GF(2^8) on the Core runtime,
 * with DOCA's three tasks, {@link EcTaskCreate create}, {@link EcTaskRecover recover} and
 * {@link EcTaskUpdate update}, and its matrices ({@link #matrixCreate}, {@link #matrixCreateRecover},
 * {@link #matrixCreateUpdate}, {@link #matrixCreateFromRaw}).
 *
 * <p>Coding runs inside {@link io.jdoca.core.exec.ProgressEngine#progress()} on the engine's thread,
 * at most {@link #BATCH} tasks per call, in submission order, through an {@link RsEngine} (ISA-L when
 * present, the Vector API otherwise; {@code -Djdoca.ec.engine=java|native}). Blocks are read and
 * written in place through the buffers' segments: nothing is copied and, after start, nothing is
 * allocated. A task whose buffers do not fit (length not a multiple of 64 &times; inputs, a block
 * straddling two buffers of a chain, too little destination tailroom, an unrecoverable loss
 * pattern, a matrix of the wrong kind) completes with INVALID_VALUE and appends nothing.
 *
 * <p>Not thread-safe: configure, submit and progress on one thread.
 */
public final class Ec extends InlineEngineCtx {
    /** Tasks executed per progress call, so one context cannot starve the others on the engine. */
    public static final int BATCH = 16;
    /** Largest block (bytes). */
    public static final int MAX_BLOCK_SIZE = 1 << 30;
    /** Longest buffer chain accepted as source or destination. */
    public static final int MAX_BUF_LIST_LEN = RsEngine.MAX_INPUTS;

    private final Dev dev;
    private final RsEngine engine;
    private final TaskPool<EcTaskCreate> createPool;
    private final TaskPool<EcTaskRecover> recoverPool;
    private final TaskPool<EcTaskUpdate> updatePool;

    // Scratch for the one task being executed (single-threaded).
    private final MemorySegment[] inSeg = new MemorySegment[RsEngine.MAX_INPUTS];
    private final long[] inOff = new long[RsEngine.MAX_INPUTS];
    private final MemorySegment[] outSeg = new MemorySegment[RsEngine.MAX_OUTPUTS];
    private final long[] outOff = new long[RsEngine.MAX_OUTPUTS];
    private final Buf[] outBuf = new Buf[RsEngine.MAX_OUTPUTS];

    private Ec(Dev dev, RsEngine engine) {
        super("ec", BATCH);
        this.dev = dev;
        this.engine = engine;
        this.createPool = registerTaskType("create", EcTaskCreate::new);
        this.recoverPool = registerTaskType("recover", EcTaskRecover::new);
        this.updatePool = registerTaskType("update", EcTaskUpdate::new);
    }

    /** {@code doca_ec_create}, with the engine {@link RsEngine#create()} picks. */
    public static Ec create(Dev dev) {
        return create(dev, RsEngine.create());
    }

    /** {@code doca_ec_create} with an explicit engine (benchmarks, engine cross-checks). */
    public static Ec create(Dev dev, RsEngine engine) {
        if (dev == null || engine == null) {
            throw new IllegalArgumentException("EC context needs a device and an engine");
        }
        return new Ec(dev, engine);
    }

    public Dev dev() {
        return dev;
    }

    /** The coding engine in use ("java" or "native"). */
    public RsEngine engine() {
        return engine;
    }

    // ------------------------------------------------------------------ capabilities

    /** {@code doca_ec_cap_task_create_is_supported}. */
    public static boolean capTaskCreateIsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_ec_cap_task_recover_is_supported}. */
    public static boolean capTaskRecoverIsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_ec_cap_task_update_is_supported}. */
    public static boolean capTaskUpdateIsSupported(DevInfo info) {
        return info != null;
    }

    /** {@code doca_ec_cap_get_max_block_size}. */
    public static long capGetMaxBlockSize(DevInfo info) {
        return MAX_BLOCK_SIZE;
    }

    /** {@code doca_ec_cap_get_max_buf_list_len}. */
    public static int capGetMaxBufListLen(DevInfo info) {
        return MAX_BUF_LIST_LEN;
    }

    /** Largest data-block count of a matrix. */
    public static int capGetMaxDataBlocks(DevInfo info) {
        return EcMatrix.MAX_DATA_BLOCKS;
    }

    /** Largest redundancy-block count of a matrix. */
    public static int capGetMaxRdncBlocks(DevInfo info) {
        return EcMatrix.MAX_RDNC_BLOCKS;
    }

    // ------------------------------------------------------------------ matrices (control path)

    /** {@code doca_ec_matrix_create(ec, type, k, m)}; throws DocaException(INVALID_VALUE) outside the limits. */
    public EcMatrix matrixCreate(EcMatrixType type, int dataBlocks, int rdncBlocks) {
        return EcMatrix.create(type, dataBlocks, rdncBlocks, this);
    }

    /** {@code doca_ec_matrix_create_from_raw}: m&times;k redundancy coefficients, row-major. */
    public EcMatrix matrixCreateFromRaw(byte[] coding, int dataBlocks, int rdncBlocks) {
        return EcMatrix.createFromRaw(coding, dataBlocks, rdncBlocks, this);
    }

    /** {@code doca_ec_matrix_create_recover}; see {@link EcMatrix#createRecover}. */
    public EcMatrix matrixCreateRecover(EcMatrix coding, int[] missingIndices) {
        return coding.createRecover(missingIndices);
    }

    /** {@code doca_ec_matrix_create_update}; see {@link EcMatrix#createUpdate}. */
    public EcMatrix matrixCreateUpdate(EcMatrix coding, int[] updateIndices) {
        return coding.createUpdate(updateIndices);
    }

    // ------------------------------------------------------------------ tasks

    /** {@code doca_ec_task_create_set_conf}. */
    public DocaError taskCreateSetConf(TaskCallback<EcTaskCreate> success, TaskCallback<EcTaskCreate> error,
            int numTasks) {
        return createPool.setConf(success, error, numTasks);
    }

    /** {@code doca_ec_task_recover_set_conf}. */
    public DocaError taskRecoverSetConf(TaskCallback<EcTaskRecover> success, TaskCallback<EcTaskRecover> error,
            int numTasks) {
        return recoverPool.setConf(success, error, numTasks);
    }

    /** {@code doca_ec_task_update_set_conf}. */
    public DocaError taskUpdateSetConf(TaskCallback<EcTaskUpdate> success, TaskCallback<EcTaskUpdate> error,
            int numTasks) {
        return updatePool.setConf(success, error, numTasks);
    }

    /** {@code doca_ec_task_create_allocate_init}; null if none is free (see {@link #lastError()}). */
    public EcTaskCreate taskCreateAllocInit(EcMatrix coding, Buf originalDataBlocks, Buf rdncBlocks, long userData) {
        EcTaskCreate t = createPool.alloc();
        if (t != null) {
            t.init(coding, originalDataBlocks, rdncBlocks);
            t.setUserData(userData);
        }
        return t;
    }

    /** {@code doca_ec_task_recover_allocate_init} with a recover matrix (or a 1-redundancy Vandermonde one). */
    public EcTaskRecover taskRecoverAllocInit(EcMatrix recover, Buf availableBlocks, Buf recoveredData, long userData) {
        return taskRecoverAllocInit(recover, 0, availableBlocks, recoveredData, userData);
    }

    /**
     * Recover with the coding matrix and the loss bitmask (bit i = block i missing): the decode
     * matrix comes from the coding matrix's per-pattern cache (built on a pattern's first use).
     * Too many losses or a singular pattern fails the task with INVALID_VALUE.
     */
    public EcTaskRecover taskRecoverAllocInit(EcMatrix coding, long missingMask, Buf availableBlocks, Buf recoveredData,
            long userData) {
        EcTaskRecover t = recoverPool.alloc();
        if (t != null) {
            t.init(coding, missingMask, availableBlocks, recoveredData);
            t.setUserData(userData);
        }
        return t;
    }

    /** {@code doca_ec_task_update_allocate_init} with an update matrix. */
    public EcTaskUpdate taskUpdateAllocInit(EcMatrix update, Buf originalUpdatedAndRdncBlocks, Buf updatedRdncBlocks,
            long userData) {
        EcTaskUpdate t = updatePool.alloc();
        if (t != null) {
            t.init(update, originalUpdatedAndRdncBlocks, updatedRdncBlocks);
            t.setUserData(userData);
        }
        return t;
    }

    // ------------------------------------------------------------------ engine

    @Override
    protected DocaError startEngine() {
        if (!createPool.isConfigured() && !recoverPool.isConfigured() && !updatePool.isConfigured()) {
            return DocaError.BAD_STATE;
        }
        return DocaError.SUCCESS;
    }



    @Override
    protected DocaError validateTask(Task t) {
        return prepare(t);
    }



    @Override
    protected DocaError execute(Task t) {
        DocaError e = prepare(t);
        if (e != DocaError.SUCCESS) {
            return e;
        }
        engine.encode(preparedLen, preparedTables, inSeg, inOff, outSeg, outOff);
        for (int r = 0; r < preparedTables.rows; r++) {
            outBuf[r].appendData(preparedLen);
            outBuf[r] = null;
        }
        return DocaError.SUCCESS;
    }

    private int preparedLen;
    private RsTables preparedTables;

    /** Resolves the task's matrix and maps its blocks into the scratch arrays; writes nothing. */
    private DocaError prepare(Task t) {
        EcMatrix mx;
        Buf src;
        Buf dst;
        RsTables tables;
        if (t instanceof EcTaskCreate c) {
            mx = c.matrix();
            src = c.originalDataBlocks();
            dst = c.rdncBlocks();
            if (!usable(mx) || mx.kind() != EcMatrix.Kind.CODING) {
                return DocaError.INVALID_VALUE;
            }
            tables = mx.tables();
        } else if (t instanceof EcTaskRecover r) {
            mx = r.matrix();
            src = r.availableBlocks();
            dst = r.recoveredData();
            if (!usable(mx)) {
                return DocaError.INVALID_VALUE;
            }
            long mask = r.missingMask();
            if (mx.kind() == EcMatrix.Kind.RECOVER && mask == 0) {
                tables = mx.tables();
            } else if (mx.kind() == EcMatrix.Kind.CODING && mask != 0) {
                EcMatrix rm = mx.recoverFor(mask);
                if (rm == null) {
                    return DocaError.INVALID_VALUE;
                }
                tables = rm.tables();
            } else if (mx.kind() == EcMatrix.Kind.CODING && mx.rdncBlockCount() == 1 && mx.tables().isXor()) {
                tables = mx.tables();
            } else {
                return DocaError.INVALID_VALUE;
            }
        } else if (t instanceof EcTaskUpdate u) {
            mx = u.matrix();
            src = u.originalUpdatedAndRdncBlocks();
            dst = u.updatedRdncBlocks();
            if (!usable(mx) || mx.kind() != EcMatrix.Kind.UPDATE) {
                return DocaError.INVALID_VALUE;
            }
            tables = mx.tables();
        } else {
            return DocaError.INVALID_VALUE;
        }
        if (src == null || dst == null) {
            return DocaError.INVALID_VALUE;
        }
        int inputs = tables.k;
        long total = 0;
        int chain = 0;
        for (Buf b = src; b != null; b = b.next()) {
            DocaError e = access(b.mmap(), false);
            if (e != DocaError.SUCCESS) {
                return e;
            }
            if (++chain > MAX_BUF_LIST_LEN) {
                return DocaError.INVALID_VALUE;
            }
            total += b.dataLen();
        }
        if (total == 0 || total % inputs != 0) {
            return DocaError.INVALID_VALUE;
        }
        long len = total / inputs;
        if (len % RsEngine.BLOCK_ALIGN != 0 || len > MAX_BLOCK_SIZE) {
            return DocaError.INVALID_VALUE;
        }
        int i = 0;
        for (Buf b = src; b != null; b = b.next()) {
            long dl = b.dataLen();
            if (dl % len != 0) {
                return DocaError.INVALID_VALUE; // a block would straddle two buffers
            }
            for (long o = 0; o < dl; o += len) {
                inSeg[i] = b.segment();
                inOff[i] = b.dataOffset() + o;
                i++;
            }
        }
        Buf d = dst;
        long used = 0;
        chain = 0;
        for (int r = 0; r < tables.rows; r++) {
            while (d != null && d.tailroomLen() - used < len) {
                d = d.next();
                used = 0;
                if (++chain >= MAX_BUF_LIST_LEN) {
                    return DocaError.INVALID_VALUE;
                }
            }
            if (d == null) {
                clearOut();
                return DocaError.INVALID_VALUE; // destination too small
            }
            DocaError e = access(d.mmap(), true);
            if (e != DocaError.SUCCESS) {
                clearOut();
                return e;
            }
            outSeg[r] = d.segment();
            outOff[r] = d.tailOffset() + used;
            outBuf[r] = d;
            used += len;
        }
        preparedLen = (int) len;
        preparedTables = tables;
        return DocaError.SUCCESS;
    }

    private void clearOut() {
        for (int r = 0; r < outBuf.length; r++) {
            outBuf[r] = null;
        }
    }

    private boolean usable(EcMatrix mx) {
        return mx != null && (mx.owner() == null || mx.owner() == this);
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
