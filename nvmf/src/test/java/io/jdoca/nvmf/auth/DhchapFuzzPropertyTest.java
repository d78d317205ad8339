package io.jdoca.nvmf.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Host messages of any length and content, at every point of a transaction: random bytes, valid messages cut
 * short, lengthened, with a byte or a length field changed. The controller never throws; it either accepts (a
 * legal transition) or fails with a well-formed AUTH_Failure1 carrying one of the spec's explanations. The
 * flyweights read any bytes without throwing.
 */
class DhchapFuzzPropertyTest {
    /** Where the transaction stands when the message arrives. */
    enum Stage { IDLE, CHALLENGED, AWAIT_SUCCESS2, DONE, FAILED }

    /** How the stage's valid message is damaged. */
    enum Damage { TRUNCATE, EXTEND, FLIP_BYTE, SET_BYTE, REPLACE }

    /** The fields whose damage matters most: type, id, T_ID, HL/SC_C, NAPD, CVALID/AuthID, lengths, seqnum. */
    static final int[] HOT_OFFSETS = {0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16};

    @Property(tries = 250)
    void anyBytesAtAnyStage(@ForAll Stage stage, @ForAll("groups") DhchapDhGroup group,
            @ForAll @Size(max = 700) byte[] message) {
        Setup s = setUp(stage, group);
        DhchapState before = s.controller.state();
        DhchapState after = s.controller.send(message);
        checkOutcome(s.controller, before, after);
    }

    @Property(tries = 400)
    void damagedValidMessages(@ForAll Stage stage, @ForAll("groups") DhchapDhGroup group, @ForAll Damage damage,
            @ForAll @IntRange(max = 1000) int where, @ForAll byte value) {
        Setup s = setUp(stage, group);
        byte[] m = damage(s.valid, damage, where, value);
        DhchapState before = s.controller.state();
        DhchapState after = s.controller.send(ByteBuffer.wrap(m));
        checkOutcome(s.controller, before, after);
    }

    @Property(tries = 300)
    void flyweightsReadAnyBytes(@ForAll @Size(max = 400) byte[] bytes, @ForAll @IntRange(min = -2, max = 300) int i) {
        AuthMessage[] all = {new AuthNegotiate().wrap(bytes), new DhchapChallenge().wrap(bytes),
            new DhchapReply().wrap(bytes), new DhchapSuccess1().wrap(bytes), new DhchapSuccess2().wrap(bytes),
            new AuthFailure().wrap(bytes)};
        for (AuthMessage m : all) {
            m.check();
            assertThat(m.length()).isEqualTo(bytes.length);
            m.authType();
            m.authId();
            m.transactionId();
        }
        AuthNegotiate n = (AuthNegotiate) all[0];
        n.secureChannel();
        n.dhchapDescriptor();
        assertThat(n.hashIds(i).length).isLessThanOrEqualTo(30);
        assertThat(n.dhGroupIds(i).length).isLessThanOrEqualTo(30);
        DhchapChallenge c = (DhchapChallenge) all[1];
        assertThat(c.challenge()).hasSize(c.hashLength());
        assertThat(c.dhValue()).hasSize(c.dhValueLength());
        DhchapReply r = (DhchapReply) all[2];
        assertThat(r.response()).hasSize(r.hashLength());
        assertThat(r.challenge()).hasSize(r.hashLength());
        assertThat(r.dhValue()).hasSize(r.dhValueLength());
        ((DhchapSuccess1) all[3]).response();
        ((AuthFailure) all[5]).explanation();
        if (r.check() == null) {
            assertThat(bytes.length).isEqualTo(16 + 2 * r.hashLength() + r.dhValueLength());
        }
    }

    @Provide
    Arbitrary<DhchapDhGroup> groups() {
        // Mostly the NULL group: the DH ones cost a modular exponentiation per step.
        return Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.just(DhchapDhGroup.NULL)),
                Tuple.of(1, Arbitraries.just(DhchapDhGroup.FFDHE2048)));
    }

    /** A controller brought to {@code stage}, and the message that would be valid there. */
    record Setup(DhchapController controller, byte[] valid) {
    }

    static Setup setUp(Stage stage, DhchapDhGroup group) {
        DhchapTestHost h = DhchapControllerTest.host(DhchapControllerTest.CONTROLLER_KEY);
        DhchapController c = DhchapControllerTest.controller(DhchapPolicy.only(DhchapHash.SHA_256, group),
                DhchapControllerTest.CONTROLLER_KEY);
        if (stage == Stage.IDLE) {
            return new Setup(c, h.negotiate());
        }
        if (stage == Stage.FAILED) {
            c.send(new byte[1]);
            return new Setup(c, h.negotiate());
        }
        c.send(h.negotiate());
        byte[] reply = h.reply(c.receive());
        if (stage == Stage.CHALLENGED) {
            return new Setup(c, reply);
        }
        c.send(reply);
        byte[] success2 = h.afterSuccess1(c.receive());
        if (stage == Stage.AWAIT_SUCCESS2) {
            return new Setup(c, success2);
        }
        c.send(success2);
        assertThat(c.state()).isEqualTo(DhchapState.DONE);
        return new Setup(c, h.negotiate());
    }

    static byte[] damage(byte[] valid, Damage damage, int where, byte value) {
        return switch (damage) {
            case TRUNCATE -> Arrays.copyOf(valid, where % (valid.length + 1));
            case EXTEND -> Arrays.copyOf(valid, valid.length + 1 + where % 300);
            case FLIP_BYTE -> {
                byte[] m = valid.clone();
                m[where % m.length] ^= (byte) (1 << where % 8);
                yield m;
            }
            case SET_BYTE -> {
                byte[] m = valid.clone();
                int off = HOT_OFFSETS[where % HOT_OFFSETS.length];
                if (off < m.length) {
                    m[off] = value;
                }
                yield m;
            }
            case REPLACE -> {
                byte[][] others = {DhchapSuccess2.encode(0x1234), AuthFailure.encodeFailure2(0x1234,
                    AuthFailureReason.FAILED), AuthNegotiate.encode(0x1234, 0, new int[] {1}, new int[] {0}),
                    DhchapReply.encode(0x1234, new byte[32], null, 0, new byte[0]), new byte[0]};
                yield others[where % others.length];
            }
        };
    }

    /** Accepted: a legal transition; refused: FAILED with a well-formed AUTH_Failure1 (or Failure2's end). */
    static void checkOutcome(DhchapController c, DhchapState before, DhchapState after) {
        assertThat(after).isEqualTo(c.state());
        assertThat(before.canMoveTo(after)).isTrue();
        if (after != DhchapState.FAILED) {
            // A host message moves the transaction on only from a state that waits for one.
            assertThat(before).isIn(DhchapState.IDLE, DhchapState.CHALLENGED, DhchapState.AWAIT_SUCCESS2);
            if (c.messageDue()) {
                assertThat(c.receive()).isNotEmpty();
            }
            return;
        }
        if (!c.messageDue()) {
            // Only a well-formed AUTH_Failure2 of this transaction ends it without an AUTH_Failure1 due.
            assertThat(before).isEqualTo(DhchapState.AWAIT_SUCCESS2);
            assertThat(c.result().failure().source()).isEqualTo(DhchapResult.Source.HOST);
            return;
        }
        AuthFailure f = new AuthFailure().wrap(c.receive());
        assertThat(f.check(AuthMessage.ID_FAILURE1)).isNull();
        assertThat(f.reasonCode()).isEqualTo(AuthFailureReason.REASON_CODE_FAILURE);
        assertThat(f.explanation()).isNotNull();
        assertThat(c.messageDue()).isFalse();
        assertThat(c.result().authenticated()).isFalse();
        assertThat(c.result().failure()).isNotNull();
        assertThat(c.sessionKey()).isEmpty();
    }
}
