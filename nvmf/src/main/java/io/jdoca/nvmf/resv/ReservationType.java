package io.jdoca.nvmf.resv;

import io.jdoca.sta.nvmf.NvmfReservationView;

/**
 * The Reservation Type (RTYPE) of Reservation Acquire and Release, Command Dword 10 bits 15:08
 * (NVMe Base 2.0 §7, Reservation Acquire: "Reservation Type Encoding"), and the RTYPE byte of
 * the Reservation Status data structure. 0h and 07h-FFh are reserved: {@link #of(int)} answers
 * {@code null} for them and the engine turns that into Invalid Field in Command.
 *
 * <p>Constants; safe from any thread.
 */
public enum ReservationType {
    WRITE_EXCLUSIVE(NvmfReservationView.TYPE_WRITE_EXCLUSIVE),
    EXCLUSIVE_ACCESS(NvmfReservationView.TYPE_EXCLUSIVE_ACCESS),
    WRITE_EXCLUSIVE_REGISTRANTS_ONLY(NvmfReservationView.TYPE_WRITE_EXCLUSIVE_REGISTRANTS_ONLY),
    EXCLUSIVE_ACCESS_REGISTRANTS_ONLY(NvmfReservationView.TYPE_EXCLUSIVE_ACCESS_REGISTRANTS_ONLY),
    WRITE_EXCLUSIVE_ALL_REGISTRANTS(NvmfReservationView.TYPE_WRITE_EXCLUSIVE_ALL_REGISTRANTS),
    EXCLUSIVE_ACCESS_ALL_REGISTRANTS(NvmfReservationView.TYPE_EXCLUSIVE_ACCESS_ALL_REGISTRANTS);

    private static final ReservationType[] BY_CODE = {null, WRITE_EXCLUSIVE, EXCLUSIVE_ACCESS,
        WRITE_EXCLUSIVE_REGISTRANTS_ONLY, EXCLUSIVE_ACCESS_REGISTRANTS_ONLY, WRITE_EXCLUSIVE_ALL_REGISTRANTS,
        EXCLUSIVE_ACCESS_ALL_REGISTRANTS};

    private final int code;

    ReservationType(int code) {
        this.code = code;
    }

    /** The RTYPE value, 1..6. */
    public int code() {
        return code;
    }

    /** The type with RTYPE {@code code}, or {@code null} for a reserved value (0, 7..255, anything else). */
    public static ReservationType of(int code) {
        return code > 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /** Types 5 and 6: every registrant is a reservation holder (Base 2.0 §8.19). */
    public boolean allRegistrants() {
        return this == WRITE_EXCLUSIVE_ALL_REGISTRANTS || this == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /**
     * Types 3 and 4. With the All Registrants types these are the ones whose release reaches the
     * other registrants as a Reservation Released notification (they lose access they had as
     * registrants); releasing a Write Exclusive or Exclusive Access reservation notifies no one.
     */
    public boolean registrantsOnly() {
        return this == WRITE_EXCLUSIVE_REGISTRANTS_ONLY || this == EXCLUSIVE_ACCESS_REGISTRANTS_ONLY;
    }

    /** True when releasing a reservation of this type notifies the other registrants (types 3-6). */
    public boolean releaseNotifiesRegistrants() {
        return registrantsOnly() || allRegistrants();
    }
}
