package io.jdoca.comch;

/**
 * New and expired remote consumer events ({@code doca_comch_event_consumer}): the peer created (or
 * stopped) a consumer a local producer can send to. Called on the progress-engine thread of the
 * server or client owning the connection.
 */
@FunctionalInterface
public interface ComchEventConsumer {
    void onConsumer(ComchConnection connection, int remoteConsumerId);
}
