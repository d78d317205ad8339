package io.jdoca.storage.common;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlPayload;
import java.io.PrintStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control side every storage service shares (DOCA's {@code target_rdma},
 * {@code comch_to_rdma_zero_copy} and {@code comch_to_rdma_gga_offload} main loops): serve one
 * client at a time, answer its requests in the strict order of the app's {@link ControlSequence}
 * (anything else gets {@code error_response(UNEXPECTED)} and changes nothing), and when its
 * <em>session</em> ends (its shutdown_request, or the client gone) release everything the session
 * held, print its statistics and wait for the next client. Only an abort (Ctrl-C) ends the process,
 * or with {@code once} (DOCA's behaviour) the first session's end: exit 0 after a shutdown, 1 if
 * the client left first or an abort interrupted a session.
 *
 * <p>Subclasses set the service up in {@code run}, call {@link #serve} with the channel their
 * clients use, and supply one step per state ({@link #step}), the next state ({@link #nextState})
 * and the release of a session ({@link #endSession}).
 *
 * <p>Threads: the control thread only, except the abort flag (any thread) and {@link #metrics()}.
 *
 * @param <S> the app's control state enum; its first constant is "waiting for a query"
 */
public abstract class ControlService<S extends Enum<S> & ControlSequence<S>> {
    private static final Logger LOG = LoggerFactory.getLogger(ControlService.class);
    /** How long one receive waits before the loop looks at the abort flag and the peers again. */
    private static final long POLL_NANOS = 50_000_000L;
    /** {@link #afterPoll}'s "keep serving". */
    protected static final int CONTINUE = -1;

    /** The app's name, the prefix of every line it prints ({@code target-rdma}, {@code zero-copy}, ...). */
    protected final String app;
    /** {@code --cpu}: one data-path worker per entry at most. */
    protected final List<Integer> cpus;
    protected final boolean once;
    protected final AtomicBoolean abort;
    protected final DataPathMetrics metrics;
    private final S waitQuery;
    /** The session's state; only {@link #answer} and {@link #backToWaitQuery} change it. */
    protected S state;
    /** The current client was named on stdout (once per session). */
    private boolean clientAnnounced;

    protected ControlService(String app, S waitQuery, List<Integer> cpus, boolean once, AtomicBoolean abort,
            DataPathMetrics metrics) {
        if (cpus == null || cpus.isEmpty()) {
            throw new DocaException(DocaError.INVALID_VALUE, "at least one --cpu is required");
        }
        this.app = app;
        this.cpus = cpus;
        this.waitQuery = waitQuery;
        this.state = waitQuery;
        this.once = once;
        this.abort = abort;
        this.metrics = metrics;
    }

    /** Runs the whole life of the service on the calling thread; returns the exit code. */
    public abstract int run(PrintStream out);

    /** The data path's Prometheus metrics ({@code --metrics-port}); render from any thread. */
    public final DataPathMetrics metrics() {
        return metrics;
    }

    /** The current control state (control thread). */
    public final S state() {
        return state;
    }

    /** True between a client's query and its session's end. */
    protected final boolean inSession() {
        return state != waitQuery;
    }

    // ------------------------------------------------------------------ what a subclass supplies

    /** Handles {@code m}, the request the current state expects; returns the reply or throws (DocaException). */
    protected abstract ControlMessage step(ControlMessage m);

    /** The state after {@link #step} succeeded. */
    protected abstract S nextState();

    /**
     * Releases everything the session held (data path, workers, imported memory, peer sessions),
     * prints its statistics when {@code printStats}, and calls {@link #backToWaitQuery()}.
     */
    protected abstract void endSession(PrintStream out, boolean printStats);

    /** Who the client is, for the "disconnected before shutdown" line. */
    protected String clientName() {
        return "the initiator";
    }

    /** What the next client is, for the "waiting for the next ..." line. */
    protected String nextClientKind() {
        return "initiator";
    }

    /**
     * After every receive ({@code m} null: nothing arrived): watch the service's own peers.
     * Returns an exit code to end the service, or {@link #CONTINUE}.
     */
    protected int afterPoll(ControlMessage m, PrintStream out) {
        return CONTINUE;
    }

    /** After a reply was sent (DOCA's gga-offload builds its workers after answering init). */
    protected void afterReply(ControlMessage request, ControlMessage reply) {
    }

    // ------------------------------------------------------------------ the template

    /**
     * The session loop: serve → reply → end session → wait for the next client, until an abort (or with once, one
     * session).
     */
    protected final int serve(ControlChannel ch, PrintStream out) {
        while (true) {
            if (abort.get()) {
                out.println(app + ": aborted by user");
                boolean held = inSession();
                endSession(out, true);
                out.flush();
                return held ? 1 : 0;
            }
            ControlMessage m = ch.receive(POLL_NANOS);
            int rc = afterPoll(m, out);
            if (rc != CONTINUE) {
                return rc;
            }
            if (m == null) {
                if (!ch.isConnected() && ch.wasDisconnected()) {
                    boolean held = inSession();
                    if (held || once) {
                        out.println(app + ": " + clientName() + " disconnected before shutdown"
                                + (held ? " (in state " + state + "); its session is released" : ""));
                        out.flush();
                        endSession(out, true);
                    } else {
                        LOG.info("{}: {} left without a session", app, clientName());
                    }
                    if (once) {
                        return 1;
                    }
                    clientAnnounced = false;
                    ch.nextSession();
                }
                continue;
            }
            if (!clientAnnounced) {
                // Whom this session serves, once, on stdout (issue 29 item 4: a pipeline says whom it talks to).
                String who = ch.peerDescription();
                out.println(app + ": session with " + (who == null ? clientName() : who));
                out.flush();
                clientAnnounced = true;
            }
            ControlMessage reply = answer(m);
            try {
                ch.send(reply);
            } catch (DocaException e) {
                LOG.warn("cannot reply {}: {}", reply.type().wireName(), e.getMessage());
            }
            afterReply(m, reply);
            if (state.expected() == null) {
                endSession(out, true);
                if (once) {
                    return 0;
                }
                out.println(app + ": session ended; waiting for the next " + nextClientKind());
                out.flush();
            }
        }
    }

    /** Handles one request according to the strict sequence; always returns the reply to send. */
    protected final ControlMessage answer(ControlMessage m) {
        if (!state.accepts(m.type())) {
            LOG.warn("unexpected {} in state {}", m.type().wireName(), state);
            return m.errorResponse(DocaError.UNEXPECTED, app + " expected "
                    + (state.expected() == null ? "nothing" : state.expected().wireName()) + " but got "
                    + m.type().wireName());
        }
        try {
            ControlMessage reply = step(m);
            S next = nextState();
            if (state.canTransitionTo(next)) {
                state = next;
            }
            return reply;
        } catch (DocaException e) {
            LOG.warn("{} failed: {}", m.type().wireName(), e.getMessage());
            return m.errorResponse(e.error(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("{} failed", m.type().wireName(), e);
            return m.errorResponse(DocaError.UNEXPECTED, String.valueOf(e));
        }
    }

    /** The end of {@link #endSession}: any state goes back to waiting for the next client's query. */
    protected final void backToWaitQuery() {
        if (state != waitQuery && state.canTransitionTo(waitQuery)) {
            state = waitQuery;
        }
        clientAnnounced = false;
    }

    // ------------------------------------------------------------------ helpers the services share

    /**
     * init_storage's request with DOCA's checks: 1..{@link #cpus} cores and 1..{@code maxTransactions}
     * transactions; INVALID_VALUE saying which is wrong otherwise.
     */
    protected final ControlPayload.InitStorage checkInit(ControlMessage m, int maxTransactions) {
        ControlPayload.InitStorage p = m.asInitStorage();
        if (p.coreCount() <= 0 || p.coreCount() > cpus.size()) {
            throw new DocaException(DocaError.INVALID_VALUE, "init_storage asks for "
                    + Integer.toUnsignedString(p.coreCount())
                    + " cores but " + app + " has " + cpus.size() + " (--cpu)");
        }
        if (p.transactionCount() <= 0 || p.transactionCount() > maxTransactions) {
            throw new DocaException(DocaError.INVALID_VALUE, "transaction count "
                    + Integer.toUnsignedString(p.transactionCount()) + " outside 1.." + maxTransactions);
        }
        return p;
    }

    /**
     * Polls {@code ready} (a control command to a worker) until true; TIME_OUT naming {@code what}
     * after {@code timeoutNanos}. Control path: a 2 ms pause between polls leaves the cores to the
     * workers that are connecting.
     */
    protected static void awaitReady(BooleanSupplier ready, long timeoutNanos, String what) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (!ready.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new DocaException(DocaError.TIME_OUT, what);
            }
            pause();
        }
    }

    /** A 2 ms pause of the control thread between two polls of a worker; CONNECTION_ABORTED if interrupted. */
    protected static void pause() {
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocaException(DocaError.CONNECTION_ABORTED, "interrupted");
        }
    }
}
