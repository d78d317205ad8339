package io.jdoca.comch;

/**
 * The message-received event ({@code doca_comch_event_msg_recv}): called on the progress-engine
 * thread of the server or client with one whole control message. {@code msg} is a scratch array
 * valid only during the call (bytes {@code [0, len)}); copy what you keep.
 */
@FunctionalInterface
public interface ComchEventMsgRecv {
    void onMsgRecv(ComchConnection connection, byte[] msg, int len);
}
