package io.jdoca.storage.common;

import io.jdoca.storage.wire.ControlCodec;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlPayload;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;

/**
 * A control channel ({@code storage::control::channel} in DOCA's {@code control_channel.hpp}): one
 * API over a TCP client, a TCP server, a Comch client and a Comch server, with DOCA's framing
 * ({@link ControlCodec}). Non-blocking {@link #poll()} drives the transport; {@link #request} sends
 * a request and waits for the response with the same message_id, parking unrelated messages.
 *
 * <p>Malformed frames from the peer never surface as exceptions from {@link #poll()}: a server
 * channel answers them with an {@code error_response} (echoing the ids when readable) and keeps
 * serving; a frame length over the limit closes the connection.
 *
 * <p>Not thread-safe: the control thread only. Control path (allocates).
 */
public interface ControlChannel extends AutoCloseable {

    /** True while a peer is connected. */
    boolean isConnected();

    /** True once a connected peer has gone away (closed, reset or rejected as malformed). */
    boolean wasDisconnected();

    /** Drives the transport once; returns the next received message or null. */
    ControlMessage poll();

    /** Sends one message; throws {@link DocaException} (NOT_CONNECTED, CONNECTION_RESET, ...) on failure. */
    void send(ControlMessage message);

    /** Waits up to {@code timeoutNanos} for a message (parked ones first); null on timeout or disconnect. */
    ControlMessage receive(long timeoutNanos);

    /**
     * Sends {@code req} and waits for the message with its message_id: returns it if its type is
     * {@code req.type().responseType()}; throws a {@link DocaException} with the peer's code for an
     * error_response, UNEXPECTED for another type, TIME_OUT on timeout, CONNECTION_RESET on disconnect.
     */
    ControlMessage request(ControlMessage req, long timeoutNanos);

    /**
     * Server: the owner has released everything the last client held; serve the next one (fresh
     * framing, nothing parked). No-op for a client channel or while a client is connected.
     */
    void nextSession();

    /** Who the connected peer is, for the operator's lines (its address, or its Comch identity); null when unknown. */
    default String peerDescription() {
        return null;
    }

    /** Human-readable endpoint, for logs. */
    String describe();

    @Override
    void close();

    /** Throws the DocaException an error_response stands for. */
    static DocaException errorOf(ControlMessage m, String context) {
        ControlPayload.ErrorResponse e = m.asError();
        return new DocaException(DocaError.fromCode(e.errorCode()), context + ": peer replied error_response("
                + DocaError.fromCode(e.errorCode()).docaName() + "): " + e.message());
    }
}
