package io.jdoca.comch;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.exec.TaskQueue;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;

/**
 * The receiving end of the Comch fast path ({@code doca_comch_consumer}): created on a connection
 * and a memory map holding its receive buffers. Starting it creates its shared-memory ring and
 * announces it to the peer, which sees a new-consumer event with {@link #id()}; stopping it
 * announces the expiry and flushes posted receives through their error callbacks (SHUTDOWN).
 *
 * <p>Messages wait in the ring until a receive is posted; a message longer than the posted buffer's
 * tailroom completes that receive with TOO_BIG and is dropped. No allocation after start.
 *
 * <p>Not thread-safe: one progress-engine thread (which may differ from the connection's).
 */
public final class ComchConsumer extends Ctx {
    private static final java.security.SecureRandom CAPS = new java.security.SecureRandom();
    static final System.Logger LOG = System.getLogger("io.jdoca.comch");
    private static final int BATCH = 64;

    private final ComchConnection connection;
    private final MemoryMap mmap;
    private final TaskPool<ComchConsumerTaskPostRecv> recvPool;
    private final TaskQueue posted = new TaskQueue();
    private final int id;
    private int maxMsgSize = 4096;
    private int ringSlots = 256;
    private SharedRegion region;
    private ComchRing ring;
    private long tail;
    private boolean stopping;
    private long received;

    private ComchConsumer(ComchConnection connection, MemoryMap mmap) {
        super("comch-consumer");
        this.connection = connection;
        this.mmap = mmap;
        this.id = connection.allocateConsumerId();
        this.recvPool = registerTaskType("post_recv", ComchConsumerTaskPostRecv::new);
    }

    /** {@code doca_comch_consumer_create(connection, mmap)}. */
    public static ComchConsumer create(ComchConnection connection, MemoryMap mmap) {
        if (connection == null || mmap == null) {
            throw new DocaException(DocaError.INVALID_VALUE, "consumer needs a connection and a memory map");
        }
        return new ComchConsumer(connection, mmap);
    }

    /** The id the peer's producers address ({@code doca_comch_consumer_get_id}). */
    public int id() {
        return id;
    }

    public ComchConnection connection() {
        return connection;
    }

    public MemoryMap mmap() {
        return mmap;
    }

    /** Largest message this consumer accepts; IDLE only. Default 4096. */
    public DocaError setMaxMsgSize(int size) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (size <= 0 || size > Comch.MAX_CONSUMER_MSG_SIZE) {
            return DocaError.INVALID_VALUE;
        }
        this.maxMsgSize = size;
        return DocaError.SUCCESS;
    }

    /** Ring capacity in messages (rounded up to a power of two); IDLE only. Default 256. */
    public DocaError setRingSlots(int slots) {
        if (state() != CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (slots <= 0 || slots > (1 << 20)) {
            return DocaError.INVALID_VALUE;
        }
        int p = 1;
        while (p < slots) {
            p <<= 1;
        }
        this.ringSlots = p;
        return DocaError.SUCCESS;
    }

    public int ringSlots() {
        return ringSlots;
    }

    /** {@code doca_comch_consumer_task_post_recv_set_conf}. */
    public DocaError taskPostRecvSetConf(TaskCallback<ComchConsumerTaskPostRecv> ok,
            TaskCallback<ComchConsumerTaskPostRecv> err, int n) {
        return recvPool.setConf(ok, err, n);
    }

    /** {@code doca_comch_consumer_task_post_recv_alloc_init(buf)}; null on failure ({@link #lastError()}). */
    public ComchConsumerTaskPostRecv taskPostRecvAllocInit(Buf buf, long userData) {
        ComchConsumerTaskPostRecv t = recvPool.alloc();
        if (t != null) {
            t.buf = buf;
            t.setUserData(userData);
        }
        return t;
    }

    /** Messages delivered so far. */
    public long received() {
        return received;
    }

    @Override
    protected DocaError onStart() {
        if (!connection.isOpen()) {
            return DocaError.NOT_CONNECTED;
        }
        int stride = ComchRing.strideFor(maxMsgSize);
        long bytes = ComchRing.bytesFor(ringSlots, stride);
        try {
            region = SharedMemory.allocate(bytes);
            ring = new ComchRing(region.segment(), ringSlots, stride, maxMsgSize);
            ring.format();
            tail = 0;
            stopping = false;
            // Only the holder of this announcement's capability can map the ring (see SharedMemory).
            long c0;
            long c1;
            do {
                c0 = CAPS.nextLong();
                c1 = CAPS.nextLong();
            } while ((c0 | c1) == 0);
            SharedMemory.grant(region, ComchWire.ringGrant(id), 0, region.size(), c0, c1);
            connection.writeFrame(ComchWire.consumerNew(id, ringSlots, stride, maxMsgSize, bytes, c0, c1,
                    region.name()));
            return DocaError.SUCCESS;
        } catch (DocaException e) {
            LOG.log(Level.WARNING, "consumer {0}: start failed: {1}", id, e.getMessage());
            closeRegion();
            return e.error();
        }
    }

    @Override
    protected void onStop() {
        stopping = true;
        if (connection.isOpen()) {
            try {
                connection.writeFrame(ComchWire.consumerExpired(id));
            } catch (DocaException ignored) {
                // the peer is gone: nothing to tell
            }
        }
    }

    @Override
    protected void onIdle() {
        closeRegion();
    }

    private void closeRegion() {
        SharedRegion r = region;
        region = null;
        ring = null;
        if (r != null) {
            r.close();
        }
    }

    @Override
    protected DocaError validateTask(Task t) {
        ComchConsumerTaskPostRecv r = (ComchConsumerTaskPostRecv) t;
        if (r.buf == null || r.buf.mmap() != mmap || r.buf.segment() == null) {
            return DocaError.INVALID_VALUE;
        }
        return DocaError.SUCCESS;
    }

    @Override
    protected DocaError onSubmit(Task t) {
        posted.add(t);
        return DocaError.SUCCESS;
    }

    @Override
    public boolean hasPendingWork() {
        ComchRing r = ring;
        return (stopping && !posted.isEmpty()) || (!posted.isEmpty() && r != null && r.headAcquire() != tail);
    }

    @Override
    public long maxSleepNanos() {
        // The producer is in another process and cannot wake this engine.
        return 20_000L;
    }

    @Override
    protected int work() {
        int n = 0;
        if (stopping) {
            Task t;
            while ((t = posted.poll()) != null) {
                complete(t, DocaError.SHUTDOWN);
                n++;
            }
            return n;
        }
        ComchRing r = ring;
        if (r == null || posted.isEmpty()) {
            return 0;
        }
        long head = r.headAcquire();
        while (n < BATCH && tail != head && !posted.isEmpty()) {
            ComchConsumerTaskPostRecv t = (ComchConsumerTaskPostRecv) posted.poll();
            int len = r.slotLen(tail);
            int immLen = r.slotImmLen(tail);
            long slot = r.slotOffset(tail);
            Buf b = t.buf;
            DocaError st;
            if (len < 0 || len > r.maxMsg || immLen < 0 || immLen > Comch.MAX_IMM_DATA_LEN) {
                st = DocaError.INVALID_VALUE;
            } else if (len > b.tailroomLen()) {
                st = DocaError.TOO_BIG;
            } else {
                MemorySegment.copy(r.seg, slot + ComchRing.SLOT_DATA, b.segment(), b.tailOffset(), len);
                b.appendData(len);
                if (immLen > 0) {
                    MemorySegment.copy(r.seg, java.lang.foreign.ValueLayout.JAVA_BYTE, slot + ComchRing.SLOT_IMM,
                            t.imm, 0,
                            immLen);
                }
                t.immLen = immLen;
                st = DocaError.SUCCESS;
                received++;
            }
            r.consumed(tail);
            tail++;
            complete(t, st);
            n++;
        }
        return n;
    }

    @Override
    public String toString() {
        return "ComchConsumer[id=" + id + ", " + state() + "]";
    }
}
