package io.jdoca.nvmf.resv;

/**
 * Decoding of the reservation commands' fields (NVMe Base 2.0 §7): Command Dword 10 and 11 and the
 * little-endian data structures the host sends.
 *
 * <pre>
 * Register  CDW10: RREGA 02:00, IEKEY 03, CPTPL 31:30   data (16 bytes): CRKEY 07:00, NRKEY 15:08
 * Acquire   CDW10: RACQA 02:00, IEKEY 03, RTYPE 15:08   data (16 bytes): CRKEY 07:00, PRKEY 15:08
 * Release   CDW10: RRELA 02:00, IEKEY 03, RTYPE 15:08   data (8 bytes):  CRKEY 07:00
 * Report    CDW10: NUMD 31:00 (0's based dwords)         CDW11: EDS 00
 * </pre>
 *
 * <p>Stateless; safe from any thread.
 */
public final class ReservationFields {
    /** Bytes of the Reservation Register and Acquire data structures. */
    public static final int REGISTER_ACQUIRE_DATA_BYTES = 16;
    /** Bytes of the Reservation Release data structure. */
    public static final int RELEASE_DATA_BYTES = 8;

    private ReservationFields() {
    }

    /** RREGA, RACQA or RRELA: bits 02:00. */
    public static int action(int cdw10) {
        return cdw10 & 7;
    }

    /** IEKEY, Ignore Existing Key: bit 03. */
    public static boolean iekey(int cdw10) {
        return (cdw10 & 8) != 0;
    }

    /** RTYPE of Acquire and Release: bits 15:08. */
    public static int rtype(int cdw10) {
        return cdw10 >>> 8 & 0xff;
    }

    /** CPTPL of Register: bits 31:30. */
    public static int cptpl(int cdw10) {
        return cdw10 >>> 30;
    }

    /**
     * The Report buffer in bytes, (NUMD + 1) * 4, capped at {@link Integer#MAX_VALUE} (the structure
     * is never that long; the engine cuts to the structure).
     */
    public static int reportLengthBytes(int cdw10) {
        return (int) Math.min(Integer.MAX_VALUE, ((cdw10 & 0xffffffffL) + 1) * 4);
    }

    /** EDS of Report, CDW11 bit 00: the extended (128-bit Host Identifier) structure. */
    public static boolean eds(int cdw11) {
        return (cdw11 & 1) != 0;
    }

    /** The little-endian 64-bit key at {@code offset} of a data structure (CRKEY 0, NRKEY / PRKEY 8). */
    public static long key(byte[] data, int offset) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | (data[offset + i] & 0xffL);
        }
        return v;
    }
}
