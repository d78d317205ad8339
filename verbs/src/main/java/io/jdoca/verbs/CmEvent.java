package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemorySegment;

/**
 * One rdma_cm event ({@code struct rdma_cm_event}) as a flyweight: {@link CmEventChannel#next} points it at the
 * event the library handed out, the accessors read it in place, and {@link #ack()} gives it back
 * ({@code rdma_ack_cm_event}); the private data is only valid until then. For a CONNECT_REQUEST, {@link #id()} is
 * the new connection's id ({@link CmId#fromRequest}) and {@link #listenId()} the listener's.
 *
 * <p>Thread rules: the thread that took the event.
 */
@SuppressWarnings("restricted") // FFM: rdma_cm hands the event and its private data out as raw pointers
public final class CmEvent {
    private MemorySegment event = MemorySegment.NULL;
    private boolean destroyAfterAck;

    void hold(MemorySegment raw) {
        event = raw.reinterpret(VerbsLayouts.RDMA_CM_EVENT.byteSize());
        destroyAfterAck = false;
    }

    /** True between {@link CmEventChannel#next} and {@link #ack()}. */
    public boolean held() {
        return !event.equals(MemorySegment.NULL);
    }

    /** {@code enum rdma_cm_event_type} ({@code RDMA_CM_EVENT_*}). */
    public int type() {
        return event.get(JAVA_INT, VerbsLayouts.CM_EVENT_EVENT);
    }

    /** The event's status (0, or an errno / reject reason). */
    public int status() {
        return event.get(JAVA_INT, VerbsLayouts.CM_EVENT_STATUS);
    }

    /** The address of the id the event is for (a new id for CONNECT_REQUEST). */
    public long id() {
        return event.get(ADDRESS, VerbsLayouts.CM_EVENT_ID).address();
    }

    /** The listener's id address for CONNECT_REQUEST, else 0. */
    public long listenId() {
        return event.get(ADDRESS, VerbsLayouts.CM_EVENT_LISTEN_ID).address();
    }

    /** {@code rdma_event_str}. */
    public String name() {
        return RdmaCm.eventName(type());
    }

    public int privateDataLength() {
        MemorySegment p = event.get(ADDRESS, VerbsLayouts.CM_EVENT_PRIVATE_DATA);
        return p.equals(MemorySegment.NULL) ? 0 : event.get(JAVA_BYTE, VerbsLayouts.CM_EVENT_PRIVATE_DATA_LEN) & 0xff;
    }

    /** The peer's private data (a request's, an accept's, a reject's), valid until {@link #ack()}; empty if none. */
    public MemorySegment privateData() {
        int len = privateDataLength();
        return len == 0 ? MemorySegment.NULL
                : event.get(ADDRESS, VerbsLayouts.CM_EVENT_PRIVATE_DATA).reinterpret(len);
    }

    /** A copy of {@link #privateData()}. */
    public byte[] privateDataBytes() {
        return privateData().toArray(JAVA_BYTE);
    }

    /** A request's RDMA read depths, from the passive side's view. */
    public int responderResources() {
        return event.get(JAVA_BYTE, VerbsLayouts.CM_EVENT_RESPONDER_RESOURCES) & 0xff;
    }

    public int initiatorDepth() {
        return event.get(JAVA_BYTE, VerbsLayouts.CM_EVENT_INITIATOR_DEPTH) & 0xff;
    }

    /** The peer's QP number in a request or response (a QP the peer created itself). */
    public int qpNum() {
        return event.get(JAVA_INT, VerbsLayouts.CM_EVENT_QP_NUM);
    }

    /** The {@code struct rdma_cm_event *} (for code still reading it by layout; valid until {@link #ack()}). */
    public MemorySegment raw() {
        return event;
    }

    /**
     * Asks the {@link CmEventAgent} that delivered this event to destroy its id once it is acknowledged
     * ({@code rdma_destroy_id} waits for the acknowledgement): a refused request's id.
     */
    public void destroyIdAfterAck() {
        destroyAfterAck = true;
    }

    boolean destroyRequested() {
        return destroyAfterAck;
    }

    /** {@code rdma_ack_cm_event}. Idempotent. */
    public void ack() {
        if (!event.equals(MemorySegment.NULL)) {
            MemorySegment e = event;
            event = MemorySegment.NULL;
            RdmaCm.ackCmEvent(e);
        }
    }
}
