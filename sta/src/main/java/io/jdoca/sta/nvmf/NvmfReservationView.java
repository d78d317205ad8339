package io.jdoca.sta.nvmf;

import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;

/**
 * One namespace's reservation as the I/O data path checks it (NVMe Base 2.0 §8.19 "Reservations"):
 * the reservation type, the holder's 128-bit Host Identifier and the registrants' Host Identifiers.
 *
 * <p><b>No reservation is {@code null}.</b> A namespace keeps its view in one volatile field that
 * holds {@code null} while no reservation is held (registrants alone restrict nothing), so an I/O
 * pays one volatile read and a null test; {@link #NONE} names that convention and
 * {@link #conflicts(NvmfReservationView, long, long, boolean)} takes the field as it is. The
 * management thread builds a new view on every reservation change and publishes it with one write.
 *
 * <p>Host Identifiers are two longs: {@code hi} is bytes 0-7 of the 16-byte identifier read
 * big-endian, {@code lo} bytes 8-15 (so {@code new UUID(hi, lo)} prints the bytes in order).
 *
 * <p>Command classes, for the table "Command Behavior in the Presence of a Reservation" (Base 2.0
 * §8.19; the NVM Command Set 1.0 names the I/O commands of each class): the <em>read class</em> is
 * Read, Compare and Verify; the <em>write class</em> is Write, Write Uncorrectable, Write Zeroes,
 * Dataset Management, Copy and Flush. Flush is a write because it makes written data durable: NVMe
 * 1.4's table listed it there, and Linux nvmet ({@code nvmet_pr_check_cmd_access}) and SPDK
 * ({@code nvmf_ns_reservation_request_check}) both check it as one, as they do the subset of the
 * other opcodes they implement. The reservation commands are in neither class: their own rules
 * (keys, holder) decide, see {@link #commandClass(int)}.
 *
 * <p>Immutable and safe to share between threads. {@link #conflicts(long, long, boolean)} allocates
 * nothing and takes no lock: it scans the registrant array linearly (a handful of hosts).
 */
public final class NvmfReservationView {
    /** The view of a namespace without a reservation: {@code null}, by convention (see the class comment). */
    public static final NvmfReservationView NONE = null;

    public static final int TYPE_WRITE_EXCLUSIVE = 1;
    public static final int TYPE_EXCLUSIVE_ACCESS = 2;
    public static final int TYPE_WRITE_EXCLUSIVE_REGISTRANTS_ONLY = 3;
    public static final int TYPE_EXCLUSIVE_ACCESS_REGISTRANTS_ONLY = 4;
    public static final int TYPE_WRITE_EXCLUSIVE_ALL_REGISTRANTS = 5;
    public static final int TYPE_EXCLUSIVE_ACCESS_ALL_REGISTRANTS = 6;

    /** {@link #commandClass(int)}: not subject to the conflict table. */
    public static final int CLASS_NONE = 0;
    /** {@link #commandClass(int)}: the read command class. */
    public static final int CLASS_READ = 1;
    /** {@link #commandClass(int)}: the write command class. */
    public static final int CLASS_WRITE = 2;

    /** Reservation Conflict, generic status 83h with DNR: what the data path answers a conflict with. */
    public static final int CONFLICT_STATUS = NvmeStatus.RESERVATION_CONFLICT;

    // Opcodes of the NVM Command Set 1.0 figure 18 that NvmeOpcode does not name.
    private static final int IO_WRITE_UNCORRECTABLE = 0x04;
    private static final int IO_VERIFY = 0x0c;
    private static final int IO_COPY = 0x19;

    private final int type;
    private final boolean allRegistrants;
    private final long holderHi;
    private final long holderLo;
    /** Registrant Host Identifiers as pairs: [hi0, lo0, hi1, lo1, ...]. */
    private final long[] registrants;

    /**
     * A view of a held reservation. Control path: validates and copies.
     *
     * @param type        1..6, the Reservation Type (RTYPE) of the reservation
     * @param holderHi    the holder's Host Identifier; ignored for the All Registrants types, where
     *                    every registrant is a holder
     * @param holderLo    see {@code holderHi}
     * @param registrants the registrants' Host Identifiers as pairs {@code [hi, lo, hi, lo, ...]}
     * @throws IllegalArgumentException on a type outside 1..6 or an odd-length array
     */
    public NvmfReservationView(int type, long holderHi, long holderLo, long[] registrants) {
        if (type < TYPE_WRITE_EXCLUSIVE || type > TYPE_EXCLUSIVE_ACCESS_ALL_REGISTRANTS) {
            throw new IllegalArgumentException("reservation type " + type + " is not 1..6");
        }
        if ((registrants.length & 1) != 0) {
            throw new IllegalArgumentException("registrants must be (hi, lo) pairs");
        }
        this.type = type;
        this.allRegistrants = type >= TYPE_WRITE_EXCLUSIVE_ALL_REGISTRANTS;
        this.holderHi = holderHi;
        this.holderLo = holderLo;
        this.registrants = registrants.clone();
    }

    /**
     * {@code view.conflicts(...)} for a view read from the namespace's field, {@code false} when it
     * holds {@link #NONE}. Allocates nothing.
     */
    public static boolean conflicts(NvmfReservationView view, long hostHi, long hostLo, boolean write) {
        return view != null && view.conflicts(hostHi, hostLo, write);
    }

    /**
     * True when a read-class ({@code write == false}) or write-class ({@code write == true}) command
     * from the host must complete with Reservation Conflict. The table (Base 2.0 §8.19, "Command
     * Behavior in the Presence of a Reservation"; Y = allowed, C = conflict; read/write):
     * <pre>
     * type                       holder   registrant  non-registrant
     * 1 Write Exclusive           Y/Y       Y/C          Y/C
     * 2 Exclusive Access          Y/Y       C/C          C/C
     * 3 WE - Registrants Only     Y/Y       Y/Y          Y/C
     * 4 EA - Registrants Only     Y/Y       Y/Y          C/C
     * 5 WE - All Registrants      Y/Y       Y/Y          Y/C   (every registrant is a holder)
     * 6 EA - All Registrants      Y/Y       Y/Y          C/C   (every registrant is a holder)
     * </pre>
     * Allocates nothing, takes no lock.
     */
    public boolean conflicts(long hostHi, long hostLo, boolean write) {
        if (!allRegistrants && hostHi == holderHi && hostLo == holderLo) {
            return false;
        }
        return switch (type) {
            case TYPE_WRITE_EXCLUSIVE -> write;
            case TYPE_EXCLUSIVE_ACCESS -> true;
            case TYPE_WRITE_EXCLUSIVE_REGISTRANTS_ONLY, TYPE_WRITE_EXCLUSIVE_ALL_REGISTRANTS ->
                write && !isRegistrant(hostHi, hostLo);
            default -> !isRegistrant(hostHi, hostLo);
        };
    }

    /**
     * The class of an NVM I/O opcode for the conflict table: {@link #CLASS_READ},
     * {@link #CLASS_WRITE}, or {@link #CLASS_NONE} (the reservation commands, which check keys
     * themselves, and opcodes the table does not name).
     */
    public static int commandClass(int opcode) {
        return switch (opcode) {
            case NvmeOpcode.IO_READ, NvmeOpcode.IO_COMPARE, IO_VERIFY -> CLASS_READ;
            case NvmeOpcode.IO_FLUSH, NvmeOpcode.IO_WRITE, IO_WRITE_UNCORRECTABLE, NvmeOpcode.IO_WRITE_ZEROES,
                NvmeOpcode.IO_DATASET_MANAGEMENT, IO_COPY -> CLASS_WRITE;
            default -> CLASS_NONE;
        };
    }

    /** True when the host is a registrant of the namespace. Allocates nothing. */
    public boolean isRegistrant(long hostHi, long hostLo) {
        long[] r = registrants;
        for (int i = 0; i < r.length; i += 2) {
            if (r[i] == hostHi && r[i + 1] == hostLo) {
                return true;
            }
        }
        return false;
    }

    /** True when the host holds the reservation (for the All Registrants types: is a registrant). */
    public boolean isHolder(long hostHi, long hostLo) {
        return allRegistrants ? isRegistrant(hostHi, hostLo) : hostHi == holderHi && hostLo == holderLo;
    }

    /** The Reservation Type, 1..6. */
    public int type() {
        return type;
    }

    /** True for the All Registrants types (5, 6), where every registrant is a reservation holder. */
    public boolean allRegistrantsHold() {
        return allRegistrants;
    }

    public long holderHi() {
        return holderHi;
    }

    public long holderLo() {
        return holderLo;
    }

    public int registrantCount() {
        return registrants.length >> 1;
    }

    public long registrantHi(int i) {
        return registrants[2 * i];
    }

    public long registrantLo(int i) {
        return registrants[2 * i + 1];
    }

    @Override
    public String toString() {
        return "NvmfReservationView[type=" + type + ", registrants=" + registrantCount() + "]";
    }
}
