package io.jdoca.nvmf.resv;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The answer to a Reservation Report (NVMe Base 2.0 §7, Reservation Report): a status and, on
 * success, the Reservation Status Extended Data Structure to return to the host.
 *
 * <p>The layout (little-endian; Base 2.0 figures "Reservation Status Extended Data Structure" and
 * "Registered Controller Extended Data Structure"; SPDK's {@code spdk_nvme_reservation_status_extended_data},
 * Linux's {@code nvme_reservation_status_ext}):
 * <pre>
 * header, 64 bytes
 *   03:00  GEN     Generation, the PRGEN counter
 *   04     RTYPE   Reservation Type, 0 when none is held
 *   06:05  REGCTL  Number of Registered Controllers: every one, even when the buffer is too short for all
 *   08:07  reserved
 *   09     PTPLS   Persist Through Power Loss State, bit 0
 *   63:10  reserved
 * one Registered Controller Extended Data Structure per registrant, 64 bytes each, from byte 64
 *   01:00  CNTLID  Controller ID (FFFFh: dynamic, or several controllers of the host)
 *   02     RCSTS   Reservation Status, bit 0: the host holds the reservation (every registrant does
 *                  for the All Registrants types)
 *   07:03  reserved
 *   15:08  RKEY    Reservation Key
 *   31:16  HOSTID  128-bit Host Identifier, the bytes as the host sent them
 *   63:32  reserved
 * </pre>
 * The 24-byte non-extended form (EDS cleared) carries 64-bit host identifiers; NVMe-oF hosts have
 * 128-bit ones, so the engine answers it with Host Identifier Inconsistent Format, as the spec asks
 * when the format requested does not match the host identifiers in use (Linux nvmet and SPDK do too).
 *
 * <p>Immutable once made (do not modify {@code data}); safe from any thread.
 *
 * @param status the NVMe status ({@link ReservationStatus})
 * @param data   the bytes to transfer: the structure, cut to the length the host asked for; empty on failure
 */
public record ReservationReport(int status, byte[] data) {
    /** Bytes of the extended header. */
    public static final int HEADER_BYTES = 64;
    /** Bytes of one Registered Controller Extended Data Structure. */
    public static final int ENTRY_BYTES = 64;

    /** A failed report. */
    public static ReservationReport failure(int status) {
        return new ReservationReport(status, new byte[0]);
    }

    /**
     * The extended structure of {@code state}, its first {@code lengthBytes} bytes (the host's
     * buffer: Number of Dwords + 1, times 4); never more than the structure, so a huge NUMD costs
     * nothing. {@code lengthBytes} is at least 1.
     */
    static byte[] extended(ReservationSnapshot state, int lengthBytes, ControllerIdResolver cntlids) {
        int n = state.registrants().size();
        ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + n * ENTRY_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, state.generation());
        b.put(4, (byte) (state.type() == null ? 0 : state.type().code()));
        b.putShort(5, (short) n);
        b.put(9, (byte) (state.ptpl() ? 1 : 0));
        boolean all = state.type() != null && state.type().allRegistrants();
        int at = HEADER_BYTES;
        for (ReservationSnapshot.Registrant r : state.registrants()) {
            HostId h = r.host();
            b.putShort(at, (short) cntlids.cntlid(h.hi(), h.lo()));
            b.put(at + 2, (byte) (all || h.equals(state.holder()) ? 1 : 0));
            b.putLong(at + 8, r.key());
            // The Host Identifier is a byte string, not a number: its bytes in the host's order.
            b.order(ByteOrder.BIG_ENDIAN).putLong(at + 16, h.hi()).putLong(at + 24, h.lo());
            b.order(ByteOrder.LITTLE_ENDIAN);
            at += ENTRY_BYTES;
        }
        byte[] full = b.array();
        return lengthBytes >= full.length ? full : Arrays.copyOf(full, lengthBytes);
    }

    public boolean success() {
        return status == ReservationStatus.SUCCESS;
    }
}
