package io.jdoca.nvmf.resv;

/**
 * Reservation Register Action (RREGA), Reservation Register Command Dword 10 bits 02:00 (NVMe Base
 * 2.0 §7, Reservation Register). 011b-111b are reserved: {@link #of(int)} answers {@code null} and the
 * engine answers Invalid Field in Command.
 *
 * <p>Constants; safe from any thread.
 */
public enum RegisterAction {
    /** 000b: register the New Reservation Key (NRKEY). */
    REGISTER,
    /** 001b: unregister the host (CRKEY must match unless IEKEY). */
    UNREGISTER,
    /** 010b: replace the host's key by NRKEY (CRKEY must match unless IEKEY). */
    REPLACE;

    private static final RegisterAction[] BY_CODE = values();

    /** The RREGA value. */
    public int code() {
        return ordinal();
    }

    /** The action with RREGA {@code code}, or {@code null} for a reserved value. */
    public static RegisterAction of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
