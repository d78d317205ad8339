package io.jdoca.core.exec;

/**
 * The context state machine of {@code doca_ctx.h}: IDLE = 0, STARTING = 1, RUNNING = 2, STOPPING = 3.
 *
 * <pre>
 *   IDLE ──start──▶ STARTING ──(connected/ready)──▶ RUNNING
 *     ▲  └─start (synchronous)──────────────────────▶ │
 *     │                 │ stop / start failed          │ stop
 *     └──── STOPPING ◀──┴──────────────────────────────┘
 *             (in-flight tasks flushed, tasks freed)
 * </pre>
 * A transition not listed in {@link #canTransitionTo} is illegal and is reported as BAD_STATE.
 */
public enum CtxState {
    IDLE(0),
    STARTING(1),
    RUNNING(2),
    STOPPING(3);

    private final int value;

    CtxState(int value) {
        this.value = value;
    }

    /** DOCA's numeric value ({@code enum doca_ctx_states}). */
    public int value() {
        return value;
    }

    /** The explicit transition table. */
    public boolean canTransitionTo(CtxState next) {
        return switch (this) {
            case IDLE -> next == STARTING || next == RUNNING;
            case STARTING -> next == RUNNING || next == STOPPING || next == IDLE;
            case RUNNING -> next == STOPPING || next == IDLE;
            case STOPPING -> next == IDLE;
        };
    }
}
