package io.jdoca.comch;

/**
 * Connection status events of a server ({@code doca_comch_event_connection_status_changed}): a
 * client connected or disconnected. Called on the server's progress-engine thread.
 */
@FunctionalInterface
public interface ComchEventConnectionStatus {
    void onConnectionStatus(ComchConnection connection, boolean connected);
}
