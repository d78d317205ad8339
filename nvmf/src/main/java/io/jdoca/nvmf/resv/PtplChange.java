package io.jdoca.nvmf.resv;

/**
 * Change Persist Through Power Loss State (CPTPL), Reservation Register Command Dword 10 bits 31:30
 * (NVMe Base 2.0 §7, Reservation Register): the transition of the namespace's PTPL state (off: the
 * reservation and registrants are cleared at power on; on: they survive power loss) that a
 * successful Register makes as a side effect. 01b is reserved: {@link #of(int)} answers {@code null}
 * and the engine answers Invalid Field in Command.
 *
 * <p>Constants; safe from any thread.
 */
public enum PtplChange {
    /** 00b: the PTPL state stays as it is. */
    NO_CHANGE(0),
    /** 10b: PTPL off: reservations are released and registrants cleared on a power on. */
    CLEAR(2),
    /** 11b: PTPL on: reservations and registrants persist across a power loss. */
    SET(3);

    private final int code;

    PtplChange(int code) {
        this.code = code;
    }

    /** The CPTPL value. */
    public int code() {
        return code;
    }

    /** The change with CPTPL {@code code}, or {@code null} for 01b and values outside 0..3. */
    public static PtplChange of(int code) {
        return switch (code) {
            case 0 -> NO_CHANGE;
            case 2 -> CLEAR;
            case 3 -> SET;
            default -> null;
        };
    }

    /** The PTPL state after this change from {@code current}: the transition table of the state. */
    public boolean apply(boolean current) {
        return switch (this) {
            case NO_CHANGE -> current;
            case CLEAR -> false;
            case SET -> true;
        };
    }
}
