package io.jdoca.sta.nvmf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.testkit.AllocationMeter;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every cell of NVMe Base 2.0 §8.19's "Command Behavior in the Presence of a Reservation": six types,
 * three kinds of host (holder, registrant that does not hold, non-registrant), read and write class.
 */
class ReservationConflictTableTest {
    static final long HOLDER_HI = 0x1111_0000_0000_0001L;
    static final long HOLDER_LO = 0x2222_0000_0000_0001L;
    static final long REG_HI = 0x1111_0000_0000_0002L;
    static final long REG_LO = 0x2222_0000_0000_0002L;
    static final long OTHER_HI = 0x1111_0000_0000_0003L;
    static final long OTHER_LO = 0x2222_0000_0000_0003L;

    /** The spec table, row per type, "holder registrant non-registrant", each "read/write"; C = conflict. */
    static final String[] TABLE = {
        /* 1 Write Exclusive               */ "Y/Y Y/C Y/C",
        /* 2 Exclusive Access              */ "Y/Y C/C C/C",
        /* 3 WE - Registrants Only         */ "Y/Y Y/Y Y/C",
        /* 4 EA - Registrants Only         */ "Y/Y Y/Y C/C",
        /* 5 WE - All Registrants          */ "Y/Y Y/Y Y/C",
        /* 6 EA - All Registrants          */ "Y/Y Y/Y C/C",
    };

    static Stream<Arguments> cells() {
        List<Arguments> out = new ArrayList<>();
        String[] roles = {"holder", "registrant", "non-registrant"};
        for (int type = 1; type <= 6; type++) {
            String[] cols = TABLE[type - 1].split(" ");
            for (int role = 0; role < 3; role++) {
                out.add(Arguments.of(type, roles[role], false, cols[role].charAt(0) == 'C'));
                out.add(Arguments.of(type, roles[role], true, cols[role].charAt(2) == 'C'));
            }
        }
        return out.stream();
    }

    static NvmfReservationView view(int type) {
        return new NvmfReservationView(type, HOLDER_HI, HOLDER_LO,
                new long[] {HOLDER_HI, HOLDER_LO, REG_HI, REG_LO});
    }

    @ParameterizedTest(name = "type {0}, {1}, write={2}: conflict={3}")
    @MethodSource("cells")
    void cell(int type, String role, boolean write, boolean conflict) {
        NvmfReservationView v = view(type);
        long hi = switch (role) {
            case "holder" -> HOLDER_HI;
            case "registrant" -> REG_HI;
            default -> OTHER_HI;
        };
        long lo = switch (role) {
            case "holder" -> HOLDER_LO;
            case "registrant" -> REG_LO;
            default -> OTHER_LO;
        };
        assertThat(v.conflicts(hi, lo, write)).isEqualTo(conflict);
        assertThat(NvmfReservationView.conflicts(v, hi, lo, write)).isEqualTo(conflict);
    }

    @Test
    void tableHasThirtySixCells() {
        assertThat(cells().count()).isEqualTo(36);
    }

    @Test
    void noReservationIsNullAndConflictsWithNothing() {
        assertThat(NvmfReservationView.NONE).isNull();
        assertThat(NvmfReservationView.conflicts(NvmfReservationView.NONE, OTHER_HI, OTHER_LO, true)).isFalse();
        assertThat(NvmfReservationView.conflicts(null, 0, 0, false)).isFalse();
    }

    @Test
    void allRegistrantsTypesMakeEveryRegistrantAHolderWhateverTheHolderFields() {
        // The holder fields are ignored for types 5 and 6: even a registrant other than the one
        // that acquired holds, and the recorded holder that is no longer a registrant does not.
        NvmfReservationView v = new NvmfReservationView(6, OTHER_HI, OTHER_LO, new long[] {REG_HI, REG_LO});
        assertThat(v.isHolder(REG_HI, REG_LO)).isTrue();
        assertThat(v.isHolder(OTHER_HI, OTHER_LO)).isFalse();
        assertThat(v.conflicts(REG_HI, REG_LO, true)).isFalse();
        assertThat(v.conflicts(OTHER_HI, OTHER_LO, false)).isTrue();
        assertThat(v.allRegistrantsHold()).isTrue();
    }

    @Test
    void holderIsMatchedOnBothHalves() {
        NvmfReservationView v = view(2);
        assertThat(v.conflicts(HOLDER_HI, OTHER_LO, false)).isTrue();
        assertThat(v.conflicts(OTHER_HI, HOLDER_LO, false)).isTrue();
        assertThat(v.isHolder(HOLDER_HI, HOLDER_LO)).isTrue();
        assertThat(v.isRegistrant(REG_HI, OTHER_LO)).isFalse();
    }

    @Test
    void accessorsAndDefensiveCopy() {
        long[] regs = {HOLDER_HI, HOLDER_LO, REG_HI, REG_LO};
        NvmfReservationView v = new NvmfReservationView(4, HOLDER_HI, HOLDER_LO, regs);
        regs[2] = 7;
        assertThat(v.type()).isEqualTo(4);
        assertThat(v.registrantCount()).isEqualTo(2);
        assertThat(v.registrantHi(1)).isEqualTo(REG_HI);
        assertThat(v.registrantLo(1)).isEqualTo(REG_LO);
        assertThat(v.holderHi()).isEqualTo(HOLDER_HI);
        assertThat(v.holderLo()).isEqualTo(HOLDER_LO);
        assertThat(v.allRegistrantsHold()).isFalse();
    }

    @Test
    void rejectsBadConstruction() {
        assertThatThrownBy(() -> new NvmfReservationView(0, 1, 1, new long[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NvmfReservationView(7, 1, 1, new long[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NvmfReservationView(1, 1, 1, new long[3]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void commandClasses() {
        assertThat(NvmfReservationView.commandClass(NvmeOpcode.IO_READ)).isEqualTo(NvmfReservationView.CLASS_READ);
        assertThat(NvmfReservationView.commandClass(NvmeOpcode.IO_COMPARE)).isEqualTo(NvmfReservationView.CLASS_READ);
        assertThat(NvmfReservationView.commandClass(0x0c)).as("Verify").isEqualTo(NvmfReservationView.CLASS_READ);
        for (int op : new int[] {NvmeOpcode.IO_FLUSH, NvmeOpcode.IO_WRITE, 0x04, NvmeOpcode.IO_WRITE_ZEROES,
            NvmeOpcode.IO_DATASET_MANAGEMENT, 0x19}) {
            assertThat(NvmfReservationView.commandClass(op)).as("opcode %#x", op)
                    .isEqualTo(NvmfReservationView.CLASS_WRITE);
        }
        for (int op : new int[] {NvmeOpcode.IO_RESERVATION_REGISTER, NvmeOpcode.IO_RESERVATION_REPORT,
            NvmeOpcode.IO_RESERVATION_ACQUIRE, NvmeOpcode.IO_RESERVATION_RELEASE, 0x7f}) {
            assertThat(NvmfReservationView.commandClass(op)).as("opcode %#x", op)
                    .isEqualTo(NvmfReservationView.CLASS_NONE);
        }
    }

    @Test
    void conflictStatusIsGeneric83hWithDnr() {
        assertThat(NvmeStatus.sct(NvmfReservationView.CONFLICT_STATUS)).isEqualTo(NvmeStatus.SCT_GENERIC);
        assertThat(NvmeStatus.sc(NvmfReservationView.CONFLICT_STATUS)).isEqualTo(0x83);
        assertThat(NvmeStatus.dnr(NvmfReservationView.CONFLICT_STATUS)).isTrue();
    }

    @Test
    void checkAllocatesNothing() {
        long[] regs = new long[16];
        for (int i = 0; i < regs.length; i++) {
            regs[i] = i + 1;
        }
        NvmfReservationView v = new NvmfReservationView(4, 1, 2, regs);
        boolean[] sink = new boolean[1];
        long[] n = new long[1];
        AllocationMeter.Result r = AllocationMeter.steadyState(50_000, 100_000, () -> {
            long k = n[0]++;
            sink[0] ^= NvmfReservationView.conflicts(v, k & 15, (k + 1) & 15, (k & 1) == 0);
        });
        assertThat(r.bytes()).as(r.toString()).isZero();
    }
}
