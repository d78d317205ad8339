package io.jdoca.nvmf.resv;

/**
 * Reservation Acquire Action (RACQA), Reservation Acquire Command Dword 10 bits 02:00 (NVMe Base 2.0
 * §7, Reservation Acquire). 011b-111b are reserved: {@link #of(int)} answers {@code null} and the
 * engine answers Invalid Field in Command.
 *
 * <p>Constants; safe from any thread.
 */
public enum AcquireAction {
    /** 000b: acquire a reservation of type RTYPE. */
    ACQUIRE,
    /** 001b: preempt the reservation and/or the registrations whose key is PRKEY. */
    PREEMPT,
    /** 010b: preempt as {@link #PREEMPT}, and abort the preempted hosts' commands (the caller aborts). */
    PREEMPT_AND_ABORT;

    private static final AcquireAction[] BY_CODE = values();

    /** The RACQA value. */
    public int code() {
        return ordinal();
    }

    /** The action with RACQA {@code code}, or {@code null} for a reserved value. */
    public static AcquireAction of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
