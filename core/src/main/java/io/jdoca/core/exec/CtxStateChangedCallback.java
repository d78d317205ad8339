package io.jdoca.core.exec;

/**
 * Called on the progress engine's thread (or the caller of start/stop) whenever a context changes
 * state ({@code doca_ctx_state_changed_callback_t}).
 */
@FunctionalInterface
public interface CtxStateChangedCallback {
    void onStateChanged(long userData, Ctx ctx, CtxState previous, CtxState next);
}
