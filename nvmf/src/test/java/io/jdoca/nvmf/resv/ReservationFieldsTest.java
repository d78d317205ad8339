package io.jdoca.nvmf.resv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Command Dword 10/11 and data structure decoding, the code enums and Host Identifiers. */
class ReservationFieldsTest {
    @Test
    void commandDword10() {
        int register = 0b10 | 1 << 3 | 3 << 30;
        assertThat(ReservationFields.action(register)).isEqualTo(2);
        assertThat(ReservationFields.iekey(register)).isTrue();
        assertThat(ReservationFields.cptpl(register)).isEqualTo(3);
        int acquire = 1 | 6 << 8;
        assertThat(ReservationFields.action(acquire)).isEqualTo(1);
        assertThat(ReservationFields.iekey(acquire)).isFalse();
        assertThat(ReservationFields.rtype(acquire)).isEqualTo(6);
        assertThat(ReservationFields.reportLengthBytes(0)).isEqualTo(4);
        assertThat(ReservationFields.reportLengthBytes(15)).isEqualTo(64);
        assertThat(ReservationFields.reportLengthBytes(-1)).isEqualTo(Integer.MAX_VALUE);
        assertThat(ReservationFields.eds(1)).isTrue();
        assertThat(ReservationFields.eds(2)).isFalse();
    }

    @Test
    void keysAreLittleEndian() {
        byte[] data = {1, 2, 3, 4, 5, 6, 7, 8, (byte) 0xff, 0, 0, 0, 0, 0, 0, (byte) 0x80};
        assertThat(ReservationFields.key(data, 0)).isEqualTo(0x0807060504030201L);
        assertThat(ReservationFields.key(data, 8)).isEqualTo(0x80000000000000ffL);
    }

    @Test
    void codes() {
        for (ReservationType t : ReservationType.values()) {
            assertThat(ReservationType.of(t.code())).isSameAs(t);
        }
        assertThat(ReservationType.of(0)).isNull();
        assertThat(ReservationType.of(7)).isNull();
        assertThat(ReservationType.of(-1)).isNull();
        assertThat(ReservationType.WRITE_EXCLUSIVE.releaseNotifiesRegistrants()).isFalse();
        assertThat(ReservationType.EXCLUSIVE_ACCESS_REGISTRANTS_ONLY.releaseNotifiesRegistrants()).isTrue();
        assertThat(ReservationType.WRITE_EXCLUSIVE_ALL_REGISTRANTS.releaseNotifiesRegistrants()).isTrue();
        assertThat(RegisterAction.of(3)).isNull();
        assertThat(AcquireAction.of(2)).isEqualTo(AcquireAction.PREEMPT_AND_ABORT);
        assertThat(AcquireAction.of(-1)).isNull();
        assertThat(ReleaseAction.of(1)).isEqualTo(ReleaseAction.CLEAR);
        assertThat(ReleaseAction.of(2)).isNull();
        assertThat(PtplChange.of(1)).isNull();
        assertThat(PtplChange.of(3).code()).isEqualTo(3);
        assertThat(PtplChange.NO_CHANGE.apply(true)).isTrue();
        assertThat(PtplChange.CLEAR.apply(true)).isFalse();
        assertThat(PtplChange.SET.apply(false)).isTrue();
    }

    @Test
    void hostIdentifiers() {
        byte[] raw = {0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte) 0x88, (byte) 0x99, (byte) 0xaa, (byte) 0xbb,
            (byte) 0xcc, (byte) 0xdd, (byte) 0xee, (byte) 0xff};
        HostId h = HostId.of(raw);
        assertThat(h.hi()).isEqualTo(0x0011223344556677L);
        assertThat(h.toString()).isEqualTo("00112233-4455-6677-8899-aabbccddeeff");
        assertThat(h.toBytes()).isEqualTo(raw);
        assertThat(HostId.parse("00112233-4455-6677-8899-AABBCCDDEEFF")).isEqualTo(h);
        assertThat(new HostId(0, 0).valid()).isFalse();
        assertThatThrownBy(() -> HostId.parse("1-2-3-4-5")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HostId.of(new byte[8])).isInstanceOf(IllegalArgumentException.class);
    }
}
