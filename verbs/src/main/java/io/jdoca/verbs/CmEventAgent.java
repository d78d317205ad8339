package io.jdoca.verbs;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The process's rdma_cm event agent: one {@link CmEventChannel} for every id the process's engines use, and one
 * thread ({@code jdoca-rdma-cm}, control path) that sleeps on its fd, takes each event, hands it to the handler
 * registered for its id and acknowledges it. A CONNECT_REQUEST goes to the listener's handler, and the new id is
 * routed to the same handler from then on. Handlers run on the agent's thread: they copy what they need (the
 * private data is valid only during the call), queue it for their engine and wake it; they must not block.
 * Connection set-up is control path: this thread never carries a completion (those go to completion channels,
 * which the engines sleep on themselves).
 *
 * <p>Thread rules: {@link #createId}, {@link #register}, {@link #unregister} and {@link #destroy} from any thread;
 * handlers on the agent's thread only.
 */
public final class CmEventAgent {
    private static final System.Logger LOG = System.getLogger(CmEventAgent.class.getName());

    /** Receives the events of the ids registered with it. */
    @FunctionalInterface
    public interface Handler {
        /** One event, valid until the call returns (acknowledged after). Agent thread; must not block. */
        void onCmEvent(CmEvent ev);
    }

    private static volatile CmEventAgent instance;

    private final CmEventChannel channel;
    private final Map<Long, Handler> handlers = new ConcurrentHashMap<>();
    private final Thread thread;

    private CmEventAgent() {
        this.channel = CmEventChannel.create();
        this.thread = Thread.ofPlatform().daemon().name("jdoca-rdma-cm").start(this::run);
    }

    /** The process's agent, started on first use. Throws {@link VerbsException} without librdmacm. */
    public static CmEventAgent get() {
        CmEventAgent a = instance;
        if (a == null) {
            synchronized (CmEventAgent.class) {
                a = instance;
                if (a == null) {
                    if (!RdmaCm.isAvailable()) {
                        throw new VerbsException("librdmacm", RdmaCm.unavailableReason());
                    }
                    a = new CmEventAgent();
                    instance = a;
                }
            }
        }
        return a;
    }

    /** A new id on the agent's channel whose events go to {@code h}. */
    public CmId createId(Handler h) {
        CmId id = CmId.create(channel);
        handlers.put(id.address(), h);
        return id;
    }

    /** Routes the events of {@code id} (e.g. a request's new id) to {@code h}. */
    public void register(CmId id, Handler h) {
        handlers.put(id.address(), h);
    }

    /** Stops routing {@code id}'s events (later ones are acknowledged and dropped). */
    public void unregister(CmId id) {
        handlers.remove(id.address());
    }

    /** {@link #unregister(CmId)} by the id's address (an id another library destroys, e.g. with its QP). */
    public void unregister(long idAddress) {
        handlers.remove(idAddress);
    }

    /** {@link #unregister}, then {@code rdma_destroy_id}. Not from inside a handler for that same id's event. */
    public void destroy(CmId id) {
        unregister(id);
        id.close();
    }

    /** The agent thread (tests look for it by name). */
    public Thread thread() {
        return thread;
    }

    private void run() {
        CmEvent ev = new CmEvent();
        while (true) {
            try {
                if (!channel.await(ev, -1)) {
                    continue; // EINTR, or another event raced: look again
                }
                dispatch(ev);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "rdma_cm event agent: " + e);
                ev.ack();
            }
        }
    }

    private void dispatch(CmEvent ev) {
        long id = ev.id();
        Handler h;
        if (ev.type() == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
            // by the listener, always: a new id may reuse the address of one destroyed without unregistering
            h = handlers.get(ev.listenId());
            if (h != null) {
                handlers.put(id, h); // the connection's later events go where its request went
            }
        } else {
            h = handlers.get(id);
        }
        boolean destroy = false;
        try {
            if (h != null) {
                h.onCmEvent(ev);
                destroy = ev.destroyRequested();
            } else {
                LOG.log(System.Logger.Level.DEBUG, "rdma_cm " + ev.name() + " for an id no one handles");
                // an unhandled request's id would leak: reject and destroy it
                if (ev.type() == VerbsConstants.RDMA_CM_EVENT_CONNECT_REQUEST) {
                    CmId.fromRequest(ev).reject(null);
                    destroy = true;
                }
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "rdma_cm " + ev.name() + " handler failed: " + e);
        } finally {
            ev.ack();
        }
        if (destroy) {
            handlers.remove(id);
            try {
                CmId.ofAddress(id).close();
            } catch (VerbsException e) {
                LOG.log(System.Logger.Level.WARNING, "rdma_destroy_id: " + e.getMessage());
            }
        }
    }
}
