package io.jdoca.comch;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.exec.TaskPool;
import io.jdoca.core.exec.TaskQueue;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What a {@link ComchServer} and a {@link ComchClient} share: the send task, the message-received
 * and consumer events, and reading jdoca's frames from the rendezvous socket.
 *
 * <p>Not thread-safe: configure, start, stop and progress on one thread.
 */
public abstract sealed class ComchEndpoint extends Ctx permits ComchServer, ComchClient {
    static final System.Logger LOG = System.getLogger("io.jdoca.comch");

    private final TaskPool<ComchTaskSend> sendPool;
    private final TaskQueue sendQueue = new TaskQueue();
    private int maxMsgSize = Comch.MAX_MSG_SIZE;
    private ComchEventMsgRecv msgRecvCb;
    private ComchEventConsumer newConsumerCb;
    private ComchEventConsumer expiredConsumerCb;
    private final byte[] scratch = new byte[ComchWire.MAX_FRAME];
    boolean stopping;
    private static final long SOCKET_POLL_NANOS = 50_000L;
    private long nextSocketPoll;

    ComchEndpoint(String name) {
        super(name);
        sendPool = registerTaskType("send", p -> new ComchTaskSend(p, maxMsgSize));
    }

    /** {@code doca_comch_*_set_max_msg_size}; IDLE only, 1..{@link Comch#MAX_MSG_SIZE}. */
    public DocaError setMaxMsgSize(int size) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        if (size <= 0 || size > Comch.MAX_MSG_SIZE) {
            return DocaError.INVALID_VALUE;
        }
        this.maxMsgSize = size;
        return DocaError.SUCCESS;
    }

    public int maxMsgSize() {
        return maxMsgSize;
    }

    /** {@code doca_comch_*_task_send_set_conf}. */
    public DocaError taskSendSetConf(TaskCallback<ComchTaskSend> success, TaskCallback<ComchTaskSend> error, int n) {
        return sendPool.setConf(success, error, n);
    }

    /** {@code doca_comch_*_event_msg_recv_register}; IDLE only. */
    public DocaError eventMsgRecvRegister(ComchEventMsgRecv cb) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.msgRecvCb = cb;
        return DocaError.SUCCESS;
    }

    /** {@code doca_comch_*_event_consumer_register}: new and expired remote consumers; IDLE only. */
    public DocaError eventConsumerRegister(ComchEventConsumer newConsumer, ComchEventConsumer expiredConsumer) {
        if (state() != io.jdoca.core.exec.CtxState.IDLE) {
            return DocaError.BAD_STATE;
        }
        this.newConsumerCb = newConsumer;
        this.expiredConsumerCb = expiredConsumer;
        return DocaError.SUCCESS;
    }

    /**
     * {@code doca_comch_*_task_send_alloc_init}: copies {@code msg[0, len)} into a pre-allocated
     * task; null if the pool is empty, the context is not running, or the message is too long
     * ({@link #lastError()} says which).
     */
    public ComchTaskSend taskSendAllocInit(ComchConnection conn, byte[] msg, int len) {
        if (len > maxMsgSize || len < 0) {
            setLastError(DocaError.INVALID_VALUE);
            return null;
        }
        ComchTaskSend t = sendPool.alloc();
        if (t == null) {
            return null;
        }
        if (t.setMsg(conn, msg, 0, len) != DocaError.SUCCESS) {
            t.free();
            setLastError(DocaError.INVALID_VALUE);
            return null;
        }
        return t;
    }

    @Override
    protected DocaError validateTask(Task t) {
        if (t instanceof ComchTaskSend s && (s.connection == null || s.connection.endpoint() != this)) {
            return DocaError.INVALID_VALUE;
        }
        return DocaError.SUCCESS;
    }

    @Override
    protected DocaError onSubmit(Task t) {
        sendQueue.add(t);
        return DocaError.SUCCESS;
    }

    @Override
    public boolean hasPendingWork() {
        return !sendQueue.isEmpty();
    }

    @Override
    public long maxSleepNanos() {
        // The peer is another process: it cannot wake this engine.
        return 1_000_000L;
    }

    /**
     * The socket carries control traffic only: it is polled at most every 50 µs, so an endpoint that
     * shares an engine with fast-path contexts costs no syscall (and no NIO allocation) per progress.
     */
    final boolean socketPollDue() {
        long now = System.nanoTime();
        if (now - nextSocketPoll < 0) {
            return false;
        }
        nextSocketPoll = now + SOCKET_POLL_NANOS;
        return true;
    }

    /** Sends queued messages (or flushes them when stopping); returns completions. */
    final int drainSends() {
        int n = 0;
        Task t;
        while ((t = sendQueue.poll()) != null) {
            ComchTaskSend s = (ComchTaskSend) t;
            DocaError st;
            if (stopping) {
                st = DocaError.SHUTDOWN;
            } else if (!s.connection.isOpen()) {
                st = DocaError.NOT_CONNECTED;
            } else {
                ByteBuffer f = ComchWire.frame(ComchWire.MSG, s.len);
                f.put(s.msg, 0, s.len).flip();
                try {
                    s.connection.writeFrame(f);
                    st = DocaError.SUCCESS;
                } catch (DocaException e) {
                    st = e.error();
                }
            }
            complete(s, st);
            n++;
        }
        return n;
    }

    /**
     * Reads what is available on {@code conn}'s socket and dispatches whole frames. Returns the
     * number of events delivered, or -1 if the peer closed or broke the connection.
     */
    final int readFrames(ComchConnection conn) {
        int events = 0;
        ByteBuffer rx = conn.rx();
        try {
            int r = conn.channel().read(rx);
            if (r < 0) {
                return -1;
            }
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "{0}: read failed: {1}", name(), e.getMessage());
            return -1;
        }
        rx.flip();
        while (rx.remaining() >= 5) {
            int len = rx.getInt(rx.position());
            if (len < 1 || len > ComchWire.MAX_FRAME) {
                LOG.log(Level.WARNING, "{0}: bad frame length {1}; dropping the connection", name(), len);
                rx.clear();
                return -1;
            }
            if (rx.remaining() < 4 + len) {
                break;
            }
            rx.getInt();
            byte kind = rx.get();
            int plen = len - 1;
            rx.get(scratch, 0, plen);
            int d = dispatch(conn, kind, scratch, plen);
            if (d < 0) {
                rx.clear();
                return -1;
            }
            events += d;
        }
        rx.compact();
        return events;
    }

    private int dispatch(ComchConnection conn, byte kind, byte[] p, int len) {
        ByteBuffer b = ByteBuffer.wrap(p, 0, len);
        if (kind != ComchWire.HELLO && !admitted(conn)) {
            LOG.log(Level.WARNING, "{0}: frame kind {1} before HELLO; dropping the connection", name(), kind);
            return -1;
        }
        try {
            switch (kind) {
                case ComchWire.MSG -> {
                    if (msgRecvCb != null) {
                        msgRecvCb.onMsgRecv(conn, p, len);
                    }
                    return 1;
                }
                case ComchWire.CONSUMER_NEW -> {
                    int id = b.getInt();
                    int slots = b.getInt();
                    int stride = b.getInt();
                    int maxMsg = b.getInt();
                    long bytes = b.getLong();
                    long cap0 = b.getLong();
                    long cap1 = b.getLong();
                    int pl = b.getInt();
                    if (pl < 0 || pl > b.remaining() || slots <= 0 || Integer.bitCount(slots) != 1 || stride <= 0
                            || maxMsg < 0 || bytes != ComchRing.bytesFor(slots, stride)) {
                        LOG.log(Level.WARNING, "{0}: malformed consumer announcement", name());
                        return -1;
                    }
                    String path = new String(p, b.position(), pl, StandardCharsets.UTF_8);
                    try {
                        conn.addRemote(id, slots, stride, maxMsg, bytes, cap0, cap1, path);
                    } catch (RuntimeException e) {
                        LOG.log(Level.WARNING, "{0}: cannot map consumer {1}: {2}", name(), id, e.getMessage());
                        return 0;
                    }
                    if (newConsumerCb != null) {
                        newConsumerCb.onConsumer(conn, id);
                    }
                    return 1;
                }
                case ComchWire.CONSUMER_EXPIRED -> {
                    int id = b.getInt();
                    if (conn.expireRemote(id) && expiredConsumerCb != null) {
                        expiredConsumerCb.onConsumer(conn, id);
                    }
                    return 1;
                }
                case ComchWire.BYE -> {
                    return -1;
                }
                default -> {
                    return onFrame(conn, kind, b);
                }
            }
        } catch (java.nio.BufferUnderflowException e) {
            LOG.log(Level.WARNING, "{0}: truncated frame of kind {1}", name(), kind);
            return -1;
        } catch (RuntimeException e) {
            // Input from another process must never take the engine down: drop the connection.
            LOG.log(Level.WARNING, "{0}: bad frame of kind {1}: {2}", name(), kind, e.toString());
            return -1;
        }
    }

    /** Whether {@code conn} may send messages and consumers (a server's: once its HELLO admitted it). */
    boolean admitted(ComchConnection conn) {
        return true;
    }

    /** Frame kinds specific to the server or client; -1 drops the connection. */
    abstract int onFrame(ComchConnection conn, byte kind, ByteBuffer payload);

    /** Fires expired events for every remote consumer of a connection that ended. */
    final void expireAllOf(ComchConnection conn) {
        for (int id : conn.expireAll()) {
            if (expiredConsumerCb != null) {
                expiredConsumerCb.onConsumer(conn, id);
            }
        }
    }

    static String readString(ByteBuffer b) {
        int n = b.getInt();
        if (n < 0 || n > b.remaining()) {
            return "";
        }
        byte[] s = new byte[n];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
