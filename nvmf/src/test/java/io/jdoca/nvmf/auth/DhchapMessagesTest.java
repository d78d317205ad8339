package io.jdoca.nvmf.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Byte offsets of every message against the spec's figures (Base 2.1 Figures 731-745) and Linux's structs. */
class DhchapMessagesTest {
    static final HexFormat HEX = HexFormat.of();

    @Test
    void negotiate() {
        byte[] m = AuthNegotiate.encode(0xa1b2, 0, new int[] {1, 3}, new int[] {0, 5, 2});
        assertThat(m).hasSize(72);
        // type 00, id 00, rsvd, T_ID b2 a1, SC_C 00, NAPD 01 | AuthID 01, rsvd, HALEN 02, DHLEN 03, 01 03 ...
        assertThat(HEX.formatHex(m, 0, 14)).isEqualTo("00000000b2a10001" + "010002030103");
        assertThat(HEX.formatHex(m, 14, 42)).isEqualTo("00".repeat(28));
        assertThat(HEX.formatHex(m, 42, 45)).isEqualTo("000502");
        AuthNegotiate n = new AuthNegotiate().wrap(m);
        assertThat(n.check()).isNull();
        assertThat(n.transactionId()).isEqualTo(0xa1b2);
        assertThat(n.descriptorCount()).isEqualTo(1);
        assertThat(n.dhchapDescriptor()).isZero();
        assertThat(n.hashIds(0)).containsExactly(1, 3);
        assertThat(n.dhGroupIds(0)).containsExactly(0, 5, 2);
        assertThat(n.descriptorAuthId(3)).isZero();
    }

    @Test
    void challenge() {
        byte[] c1 = DhchapCryptoTest.range(0x80, 32);
        byte[] dhv = DhchapCryptoTest.range(1, 256);
        byte[] m = DhchapChallenge.encode(7, DhchapHash.SHA_256, DhchapDhGroup.FFDHE2048, 0x89abcdef, c1, dhv);
        assertThat(m).hasSize(16 + 32 + 256);
        // type 01, id 01, rsvd, T_ID 0700, HL 20, rsvd, HashID 01, DHgID 01, DHVLEN 0001, SEQNUM efcdab89
        assertThat(HEX.formatHex(m, 0, 16)).isEqualTo("0101000007002000" + "01010001efcdab89");
        DhchapChallenge c = new DhchapChallenge().wrap(m);
        assertThat(c.check()).isNull();
        assertThat(c.sequenceNumber()).isEqualTo(0x89abcdef);
        assertThat(c.challenge()).isEqualTo(c1);
        assertThat(c.dhValue()).isEqualTo(dhv);
        byte[] plain = DhchapChallenge.encode(7, DhchapHash.SHA_512, DhchapDhGroup.NULL, 1, new byte[64], new byte[0]);
        assertThat(plain).hasSize(80);
        assertThat(new DhchapChallenge().wrap(plain).dhValue()).isEmpty();
    }

    @Test
    void reply() {
        byte[] r = DhchapCryptoTest.range(0x10, 48);
        byte[] c2 = DhchapCryptoTest.range(0x60, 48);
        byte[] m = DhchapReply.encode(0x0102, r, c2, 0x11223344, DhchapCryptoTest.range(0xf0, 8));
        assertThat(m).hasSize(16 + 96 + 8);
        // type 01, id 02, rsvd, T_ID 0201, HL 30, rsvd, CVALID 01, rsvd, DHVLEN 0800, SEQNUM 44332211
        assertThat(HEX.formatHex(m, 0, 16)).isEqualTo("0102000002013000" + "0100080044332211");
        DhchapReply p = new DhchapReply().wrap(m);
        assertThat(p.check()).isNull();
        assertThat(p.response()).isEqualTo(r);
        assertThat(p.challenge()).isEqualTo(c2);
        assertThat(p.dhValue()).isEqualTo(DhchapCryptoTest.range(0xf0, 8));
        byte[] uni = DhchapReply.encode(9, r, null, 123, new byte[0]);
        assertThat(uni).hasSize(16 + 96);
        DhchapReply q = new DhchapReply().wrap(uni);
        assertThat(q.challengeValid()).isFalse();
        assertThat(q.sequenceNumber()).isZero();
        assertThat(q.challenge()).containsOnly(0);
    }

    @Test
    void successAndFailure() {
        byte[] r2 = DhchapCryptoTest.range(0x33, 32);
        byte[] s1 = DhchapSuccess1.encode(0xfffe, 32, r2);
        // type 01, id 03, rsvd, T_ID feff, HL 20, rsvd, RVALID 01, 7 reserved bytes, then RVAL
        assertThat(HEX.formatHex(s1, 0, 16)).isEqualTo("01030000feff2000" + "0100000000000000");
        assertThat(new DhchapSuccess1().wrap(s1).response()).isEqualTo(r2);
        byte[] noR2 = DhchapSuccess1.encode(1, 64, null);
        assertThat(noR2).hasSize(80);
        assertThat(new DhchapSuccess1().wrap(noR2).responseValid()).isFalse();
        assertThat(new DhchapSuccess1().wrap(noR2).check()).isNull();

        assertThat(HEX.formatHex(DhchapSuccess2.encode(0x0a0b))).isEqualTo("010400000b0a" + "00".repeat(10));
        byte[] f1 = AuthFailure.encodeFailure1(0x0a0b, AuthFailureReason.DH_GROUP_UNUSABLE);
        assertThat(HEX.formatHex(f1)).isEqualTo("00f100000b0a0105");
        byte[] f2 = AuthFailure.encodeFailure2(0x0a0b, AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE);
        assertThat(HEX.formatHex(f2)).isEqualTo("00f000000b0a0107");
        assertThat(new AuthFailure().wrap(f2).check()).isNull();
        assertThat(new AuthFailure().wrap(f1).check()).isEqualTo(AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE);
        assertThat(new AuthFailure().wrap(f1).check(AuthMessage.ID_FAILURE1)).isNull();
    }

    @Test
    void reasonCodesAreTheSpecs() {
        int code = 1;
        for (AuthFailureReason r : AuthFailureReason.values()) {
            assertThat(r.code()).isEqualTo(code++);
            assertThat(AuthFailureReason.ofCode(r.code())).isSameAs(r);
        }
        assertThat(AuthFailureReason.ofCode(0)).isNull();
        assertThat(AuthFailureReason.ofCode(8)).isNull();
        assertThat(AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE.text()).isEqualTo("incorrect protocol message");
    }

    @Test
    void aFlyweightReadsFromThePositionAndLeavesTheBufferAlone() {
        byte[] f = AuthFailure.encodeFailure2(0x0102, AuthFailureReason.FAILED);
        ByteBuffer b = ByteBuffer.allocate(20);
        b.position(5);
        b.put(f);
        b.position(5).limit(13);
        AuthFailure a = new AuthFailure().wrap(b);
        assertThat(a.check()).isNull();
        assertThat(a.transactionId()).isEqualTo(0x0102);
        assertThat(b.position()).isEqualTo(5);
        // Past the end everything reads as zero, nothing throws.
        DhchapReply empty = new DhchapReply().wrap(new byte[0]);
        assertThat(empty.check()).isEqualTo(AuthFailureReason.INCORRECT_PAYLOAD);
        assertThat(empty.response()).isEmpty();
        assertThat(empty.sequenceNumber()).isZero();
        byte[] header = {1, 2, 0, 0, 5, 0, (byte) 0xff};
        DhchapReply partial = new DhchapReply().wrap(header);
        assertThat(partial.check()).isEqualTo(AuthFailureReason.INCORRECT_PAYLOAD);
        assertThat(partial.response()).hasSize(255).containsOnly(0);
        assertThat(partial.dhValue()).isEmpty();
    }
}
