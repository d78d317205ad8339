package io.jdoca.sta;

import io.jdoca.sta.backend.StaBeQueue;
/**
 * The back-end timeout event ({@code doca_sta_event_back_end_timeout_register_cb}): a back-end
 * operation took longer than {@link Sta#setBackendTimeoutNanos}.
 *
 * <p>Called on the main context's progress-engine thread.
 */
@FunctionalInterface
public interface StaBackendTimeoutCallback {
    void onBackendTimeout(StaBeQueue queue, StaNamespace ns, int opcode, long elapsedNanos);
}
