package io.jdoca.rdma;

import io.jdoca.core.DocaError;

/**
 * The transport side of one established connection (SHM or TCP). Called on the engine thread only;
 * a transport with a thread of its own hands results over through lock-free rings.
 */
abstract class RdmaEndpoint {
    final Rdma rdma;
    final RdmaConnection conn;

    RdmaEndpoint(Rdma rdma, RdmaConnection conn) {
        this.rdma = rdma;
        this.conn = conn;
    }

    /** Starts a resolved task ({@link RdmaTask#result} holds a local failure to report in order). */
    abstract DocaError submit(RdmaTask t);

    /** One duty cycle: moves data, delivers completions in order; returns completions delivered. */
    abstract int work();

    abstract boolean hasPendingWork();

    /** Begins closing; every task still held completes with {@code reason} (in order) during {@link #work()}. */
    abstract void close(DocaError reason);

    /** True once closed and every task it held has been completed. */
    abstract boolean isDrained();

    /** Frees OS resources once drained (unmap, close sockets). */
    abstract void release();

    /** End of the context's duty cycle (engine thread): send what was held back during it. */
    void afterWork() {
    }

    /** Longest the engine may sleep between polls of this endpoint. */
    abstract long maxSleepNanos();
}
