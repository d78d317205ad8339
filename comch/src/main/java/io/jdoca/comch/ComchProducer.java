package io.jdoca.comch;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.exec.TaskQueue;
import io.jdoca.core.mem.Buf;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sending end of the Comch fast path ({@code doca_comch_producer}): sends buffers to remote
 * consumers by id. A send completes once the message sits in the consumer's ring; if the ring is
 * full the send waits in order (back-pressure) until the consumer drains it. A remote consumer
 * accepts one producer only (the first one to send claims it; another gets IN_USE); an unknown or
 * expired consumer id completes with NOT_CONNECTED. No allocation after start.
 *
 * <p>Not thread-safe: one progress-engine thread (which may differ from the connection's).
 */
public final class ComchProducer extends Ctx {
    private static final AtomicLong TOKENS = new AtomicLong(ProcessHandle.current().pid() << 24);
    private static final int BATCH = 64;

    private final ComchConnection connection;
    private final TaskPool<ComchProducerTaskSend> sendPool;
    private final TaskQueue queue = new TaskQueue();
    private final long token = TOKENS.incrementAndGet();
    private boolean stopping;
    private ComchConnection.RemoteConsumer cached;
    private long sent;

    private ComchProducer(ComchConnection connection) {
        super("comch-producer");
        this.connection = connection;
        this.sendPool = registerTaskType("send", ComchProducerTaskSend::new);
    }

    /** {@code doca_comch_producer_create(connection)}. */
    public static ComchProducer create(ComchConnection connection) {
        if (connection == null) {
            throw new DocaException(DocaError.INVALID_VALUE, "producer needs a connection");
        }
        return new ComchProducer(connection);
    }

    public ComchConnection connection() {
        return connection;
    }

    /** {@code doca_comch_producer_task_send_set_conf}. */
    public DocaError taskSendSetConf(TaskCallback<ComchProducerTaskSend> ok, TaskCallback<ComchProducerTaskSend> err,
            int n) {
        return sendPool.setConf(ok, err, n);
    }

    /**
     * {@code doca_comch_producer_task_send_alloc_init(buf, imm, imm_len, consumer_id)}; {@code imm}
     * may be null. Null on failure ({@link #lastError()}).
     */
    public ComchProducerTaskSend taskSendAllocInit(Buf buf, java.lang.foreign.MemorySegment imm, int immLen,
            int remoteConsumerId, long userData) {
        ComchProducerTaskSend t = sendPool.alloc();
        if (t == null) {
            return null;
        }
        if (t.setImmData(imm, immLen) != DocaError.SUCCESS) {
            t.free();
            setLastError(DocaError.INVALID_VALUE);
            return null;
        }
        t.buf = buf;
        t.remoteConsumerId = remoteConsumerId;
        t.setUserData(userData);
        return t;
    }

    /** Messages delivered so far. */
    public long sent() {
        return sent;
    }

    @Override
    protected DocaError onStart() {
        if (!connection.isOpen()) {
            return DocaError.NOT_CONNECTED;
        }
        stopping = false;
        cached = null;
        return DocaError.SUCCESS;
    }

    @Override
    protected void onStop() {
        stopping = true;
    }

    @Override
    protected void onIdle() {
        ComchConnection.RemoteConsumer c = cached;
        cached = null;
        if (c != null && !c.expired) {
            c.ring.release(token);
        }
    }

    @Override
    protected DocaError validateTask(Task t) {
        ComchProducerTaskSend s = (ComchProducerTaskSend) t;
        if (s.buf == null || s.buf.segment() == null) {
            return DocaError.INVALID_VALUE;
        }
        return DocaError.SUCCESS;
    }

    @Override
    protected DocaError onSubmit(Task t) {
        queue.add(t);
        return DocaError.SUCCESS;
    }

    @Override
    public boolean hasPendingWork() {
        return !queue.isEmpty();
    }

    @Override
    public long maxSleepNanos() {
        // Waiting for ring space freed by another process: poll again soon.
        return queue.isEmpty() ? Long.MAX_VALUE : 20_000L;
    }

    @Override
    protected int work() {
        int n = 0;
        ComchProducerTaskSend t;
        while (n < BATCH && (t = (ComchProducerTaskSend) queue.peek()) != null) {
            if (stopping) {
                queue.poll();
                complete(t, DocaError.SHUTDOWN);
                n++;
                continue;
            }
            ComchConnection.RemoteConsumer rc = cached;
            if (rc == null || rc.id != t.remoteConsumerId || rc.expired) {
                rc = connection.findRemoteConsumer(t.remoteConsumerId);
                if (rc == null) {
                    queue.poll();
                    complete(t, DocaError.NOT_CONNECTED);
                    n++;
                    continue;
                }
                if (!rc.ring.claim(token)) {
                    queue.poll();
                    complete(t, DocaError.IN_USE);
                    n++;
                    continue;
                }
                cached = rc;
            }
            ComchRing ring = rc.ring;
            Buf b = t.buf;
            long len = b.dataLen();
            if (len > ring.maxMsg) {
                queue.poll();
                complete(t, DocaError.TOO_BIG);
                n++;
                continue;
            }
            long head = ring.headAcquire();
            if (!ring.hasSpace(head)) {
                break;
            }
            ring.publish(head, b.segment(), b.dataOffset(), (int) len, t.imm, t.immLen);
            sent++;
            queue.poll();
            complete(t, DocaError.SUCCESS);
            n++;
        }
        return n;
    }

    @Override
    public String toString() {
        return "ComchProducer[" + state() + ", sent=" + sent + "]";
    }
}
