package io.jdoca.verbs;

import java.net.Inet4Address;

/**
 * The active side of one rdma_cm connection for a single-threaded program (rping's client, the NVMe/RDMA host),
 * as rdma-core's {@code rdma_create_ep} / {@code rdma_connect} helpers do it: its own {@link CmEventChannel} and
 * {@link CmId}; {@link #resolve} runs address and route resolution to ROUTE_RESOLVED, the caller then creates its
 * queue pair on {@link #id()} and {@link #connect}s, which waits for ESTABLISHED (or the failure event) and returns
 * the peer's private data. After that the caller watches {@link #channel()} (DISCONNECTED) itself.
 *
 * <p>Thread rules: one thread; control path (blocking, each wait bounded by the caller's deadline).
 */
public final class CmClient implements AutoCloseable {
    /** How a connect ended: ESTABLISHED (or CONNECT_RESPONSE), or the failure event with its status and data. */
    public record Outcome(int event, int status, byte[] privateData) {
        public boolean established() {
            return event == VerbsConstants.RDMA_CM_EVENT_ESTABLISHED
                    || event == VerbsConstants.RDMA_CM_EVENT_CONNECT_RESPONSE;
        }

        /** "REJECTED (status 8)" etc. */
        public String describe() {
            return RdmaCm.eventName(event) + " (status " + status + ")";
        }
    }

    private final CmEventChannel channel;
    private final CmId id;
    private final CmEvent ev = new CmEvent();
    private final int timeoutMs;

    private CmClient(CmEventChannel channel, CmId id, int timeoutMs) {
        this.channel = channel;
        this.id = id;
        this.timeoutMs = timeoutMs;
    }

    /**
     * A channel and an id, {@code rdma_resolve_addr} then {@code rdma_resolve_route} towards {@code addr:port}
     * ({@code stepTimeoutMs} each, the kernel's bound), waiting until ROUTE_RESOLVED or {@code deadlineNanos}
     * ({@link System#nanoTime()}). Throws {@link VerbsException} naming the failed step; nothing is left open.
     */
    public static CmClient resolve(Inet4Address addr, int port, int stepTimeoutMs, long deadlineNanos) {
        if (!RdmaCm.isAvailable()) {
            throw new VerbsException("librdmacm", RdmaCm.unavailableReason());
        }
        CmEventChannel ch = CmEventChannel.create();
        CmClient c = null;
        try {
            c = new CmClient(ch, CmId.create(ch), stepTimeoutMs);
            c.id.resolveAddr(addr, port, stepTimeoutMs);
            while (true) {
                c.next(deadlineNanos, "address and route resolution of " + addr.getHostAddress());
                int type = c.ev.type();
                int status = c.ev.status();
                c.ev.ack();
                RdmaCm.ClientStep step = c.id.clientStep(type, stepTimeoutMs);
                if (step == RdmaCm.ClientStep.READY_TO_CONNECT) {
                    return c;
                }
                if (step == RdmaCm.ClientStep.FAILED) {
                    throw new VerbsException("rdma_resolve_addr/route", RdmaCm.eventName(type) + " (status " + status
                            + ") resolving " + addr.getHostAddress() + ":" + port);
                }
            }
        } catch (RuntimeException e) {
            if (c != null) {
                c.close();
            } else {
                ch.close();
            }
            throw e;
        }
    }

    private void next(long deadlineNanos, String what) {
        while (true) {
            long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                throw new VerbsException("rdma_cm", what + " timed out");
            }
            if (channel.await(ev, (int) Math.min(left, 1000))) {
                return;
            }
        }
    }

    /** The connection's id (create the QP on it, {@link CmId#createQp}). */
    public CmId id() {
        return id;
    }

    /** The channel: watch its fd for DISCONNECTED after {@link #connect}. */
    public CmEventChannel channel() {
        return channel;
    }

    /** The device context rdma_cm resolved to; throws if the address is not on an RDMA device. */
    public VerbsContext context() {
        VerbsContext c = id.context();
        if (c == null) {
            throw new VerbsException("rdma_cm", "the address is not on an RDMA device");
        }
        return c;
    }

    /**
     * {@code rdma_connect} with {@code p}, then waits until ESTABLISHED / CONNECT_RESPONSE or a failure event
     * (REJECTED, UNREACHABLE, CONNECT_ERROR, ...) or {@code deadlineNanos}. Events of other kinds before it are
     * skipped. Throws {@link VerbsException} on a refused call or the deadline.
     */
    public Outcome connect(ConnParam p, long deadlineNanos) {
        id.connect(p);
        while (true) {
            next(deadlineNanos, "rdma_connect");
            int type = ev.type();
            Outcome o = new Outcome(type, ev.status(), ev.privateDataBytes());
            ev.ack();
            if (o.established() || id.clientStep(type, timeoutMs) == RdmaCm.ClientStep.FAILED
                    || type == VerbsConstants.RDMA_CM_EVENT_DISCONNECTED
                    || type == VerbsConstants.RDMA_CM_EVENT_DEVICE_REMOVAL) {
                return o;
            }
        }
    }

    /** {@code rdma_disconnect}, quietly (the peer may be gone). */
    public void disconnect() {
        try {
            id.disconnect();
        } catch (VerbsException e) {
            // not connected any more: nothing to tell the peer
        }
    }

    /** Destroys the id and the channel (the QP made on the id first). Idempotent. */
    @Override
    public void close() {
        try {
            id.close();
        } finally {
            channel.close();
        }
    }
}
