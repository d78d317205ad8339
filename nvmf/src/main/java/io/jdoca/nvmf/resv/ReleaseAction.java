package io.jdoca.nvmf.resv;

/**
 * Reservation Release Action (RRELA), Reservation Release Command Dword 10 bits 02:00 (NVMe Base 2.0
 * §7, Reservation Release). 010b-111b are reserved: {@link #of(int)} answers {@code null} and the
 * engine answers Invalid Field in Command.
 *
 * <p>Constants; safe from any thread.
 */
public enum ReleaseAction {
    /** 000b: the holder releases the reservation of type RTYPE. */
    RELEASE,
    /** 001b: release the reservation and unregister every registrant. */
    CLEAR;

    private static final ReleaseAction[] BY_CODE = values();

    /** The RRELA value. */
    public int code() {
        return ordinal();
    }

    /** The action with RRELA {@code code}, or {@code null} for a reserved value. */
    public static ReleaseAction of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
