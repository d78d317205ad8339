package io.jdoca.nvmf.auth;

import static io.jdoca.nvmf.auth.DhchapControllerTest.assertFailure1;
import static io.jdoca.nvmf.auth.DhchapControllerTest.controller;
import static io.jdoca.nvmf.auth.DhchapControllerTest.host;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Refused negotiations and protocol violations: each answers AUTH_Failure1 with the spec's reason code
 * explanation and leaves the controller FAILED.
 */
class DhchapProtocolTest {
    static final DhchapPolicy SHA256_NULL = DhchapPolicy.only(DhchapHash.SHA_256, DhchapDhGroup.NULL);
    static final DhchapPolicy SHA256_2048 = DhchapPolicy.only(DhchapHash.SHA_256, DhchapDhGroup.FFDHE2048);

    @Test
    void theTransitionTableIsTheDocumentedOne() {
        String expected = "IDLE>NEGOTIATED IDLE>FAILED NEGOTIATED>CHALLENGED NEGOTIATED>FAILED CHALLENGED>REPLIED "
                + "CHALLENGED>FAILED REPLIED>AWAIT_SUCCESS2 REPLIED>DONE REPLIED>FAILED AWAIT_SUCCESS2>DONE "
                + "AWAIT_SUCCESS2>FAILED DONE>FAILED FAILED>FAILED";
        StringBuilder actual = new StringBuilder();
        for (DhchapState from : DhchapState.values()) {
            for (DhchapState to : DhchapState.values()) {
                if (from.canMoveTo(to)) {
                    actual.append(actual.isEmpty() ? "" : " ").append(from).append('>').append(to);
                }
            }
        }
        assertThat(actual.toString()).isEqualTo(expected);
        assertThat(DhchapState.DONE.terminal()).isTrue();
        assertThat(DhchapState.AWAIT_SUCCESS2.terminal()).isFalse();
    }

    @Test
    void negotiationsTheControllerCannotAccept() {
        DhchapTestHost h = host(null);
        h.hashIds = new int[] {2, 3};
        expectNegotiateRefused(h.negotiate(), AuthFailureReason.HASH_UNUSABLE);
        h.hashIds = new int[] {};
        expectNegotiateRefused(h.negotiate(), AuthFailureReason.HASH_UNUSABLE);
        h.hashIds = new int[] {1};
        h.dhGroupIds = new int[] {1, 2};
        expectNegotiateRefused(h.negotiate(), AuthFailureReason.DH_GROUP_UNUSABLE);
        h.dhGroupIds = new int[] {0};
        h.secureChannel = 2;
        expectNegotiateRefused(h.negotiate(), AuthFailureReason.SECURE_CHANNEL_MISMATCH);
        h.secureChannel = 0;
        byte[] m = h.negotiate();
        m[8] = 2;
        expectNegotiateRefused(m, AuthFailureReason.PROTOCOL_UNUSABLE);
        expectNegotiateRefused(Arrays.copyOf(m, 8), AuthFailureReason.INCORRECT_PAYLOAD);
        m = h.negotiate();
        m[7] = 0;
        expectNegotiateRefused(Arrays.copyOf(m, 8), AuthFailureReason.PROTOCOL_UNUSABLE);
        m = h.negotiate();
        m[10] = 31;
        expectNegotiateRefused(m, AuthFailureReason.INCORRECT_PAYLOAD);
        m = h.negotiate();
        m[11] = (byte) 0xff;
        expectNegotiateRefused(m, AuthFailureReason.INCORRECT_PAYLOAD);
        expectNegotiateRefused(Arrays.copyOf(h.negotiate(), 73), AuthFailureReason.INCORRECT_PAYLOAD);
        expectNegotiateRefused(Arrays.copyOf(h.negotiate(), 71), AuthFailureReason.INCORRECT_PAYLOAD);
        expectNegotiateRefused(new byte[5], AuthFailureReason.INCORRECT_PAYLOAD);
        expectNegotiateRefused(new byte[0], AuthFailureReason.INCORRECT_PAYLOAD);
    }

    @Test
    void aSecondDescriptorCanBeTheDhchapOne() {
        byte[] one = host(null).negotiate();
        byte[] two = Arrays.copyOf(one, 8 + 128);
        System.arraycopy(one, 8, two, 72, 64);
        two[7] = 2;
        two[8] = (byte) 0xe0;
        DhchapController c = controller(SHA256_NULL, null);
        assertThat(c.send(two)).isEqualTo(DhchapState.NEGOTIATED);
    }

    @Test
    void messagesOutOfOrderAreIncorrectProtocolMessages() {
        DhchapTestHost h = host(null);
        DhchapController c = controller(SHA256_NULL, null);
        assertThat(c.send(DhchapSuccess2.encode(h.transactionId))).isEqualTo(DhchapState.FAILED);
        assertFailure1(c, AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE, 0);

        c = controller(SHA256_NULL, null);
        c.send(h.negotiate());
        assertThat(c.send(h.negotiate())).isEqualTo(DhchapState.FAILED);
        assertFailure1(c, AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE, h.transactionId);

        c = controller(SHA256_NULL, null);
        assertThat(c.receive()).hasSize(AuthFailure.LENGTH);
        assertThat(c.state()).isEqualTo(DhchapState.FAILED);
        assertThat(c.result().failure().reason()).isEqualTo(AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE);

        c = controller(SHA256_NULL, null);
        c.send(h.negotiate());
        byte[] challenge = c.receive();
        assertThat(new AuthFailure().wrap(c.receive()).explanation())
                .isEqualTo(AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE);
        assertThat(c.send(h.reply(challenge))).isEqualTo(DhchapState.FAILED);

        c = controller(SHA256_NULL, null);
        c.send(h.negotiate());
        c.send(h.reply(c.receive()));
        assertThat(c.send(AuthFailure.encodeFailure2(h.transactionId, AuthFailureReason.FAILED)))
                .isEqualTo(DhchapState.FAILED);
        assertFailure1(c, AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE, h.transactionId);
    }

    @Test
    void aFinishedTransactionTakesNoMoreMessages() {
        DhchapController c = DhchapControllerTest.runToDone(DhchapHash.SHA_256, DhchapDhGroup.NULL);
        assertThat(c.send(host(null).negotiate())).isEqualTo(DhchapState.FAILED);
        assertFailure1(c, AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE, 0x1234);
        assertThat(c.result().authenticated()).isFalse();
        // Still FAILED, the first reason kept; each further message gets its own AUTH_Failure1.
        assertThat(c.send(new byte[3])).isEqualTo(DhchapState.FAILED);
        assertThat(new AuthFailure().wrap(c.receive()).explanation()).isEqualTo(AuthFailureReason.INCORRECT_PAYLOAD);
        assertThat(c.result().failure().reason()).isEqualTo(AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE);
    }

    @Test
    void repliesWithWrongFields() {
        expectReplyRefused(SHA256_NULL, r -> r[4] ^= 1, AuthFailureReason.INCORRECT_PAYLOAD, "T_ID");
        expectReplyRefused(SHA256_NULL, r -> r[8] = 2, AuthFailureReason.INCORRECT_PAYLOAD, "malformed");
        expectReplyRefused(SHA256_NULL, r -> r[8] = 1, AuthFailureReason.INCORRECT_PAYLOAD, "SEQNUM 0");
        expectReplyRefused(SHA256_NULL, r -> r[16] ^= 1, AuthFailureReason.FAILED, "mismatch");
        expectReplyRefused(SHA256_2048, r -> r[r.length - 1] ^= 1, AuthFailureReason.FAILED, "mismatch");
        expectReplyRefused(SHA256_2048, r -> {
            Arrays.fill(r, 16 + 64, r.length, (byte) 0);
            r[r.length - 1] = 1;
        }, AuthFailureReason.DH_GROUP_UNUSABLE, "not a usable element");
        expectReplyRefused(SHA256_NULL, r -> r[0] = 0, AuthFailureReason.INCORRECT_PROTOCOL_MESSAGE, "AUTH_Type");
    }

    @Test
    void repliesOfTheWrongShape() {
        DhchapTestHost h = host(null);
        DhchapController c = controller(SHA256_2048, null);
        c.send(h.negotiate());
        byte[] reply = h.reply(c.receive());
        // The NULL group's shape (no DH value) for a DH transaction: lengths agree, DHVLEN does not.
        byte[] noDh = Arrays.copyOf(reply, 16 + 64);
        noDh[10] = 0;
        noDh[11] = 0;
        assertThat(c.send(noDh)).isEqualTo(DhchapState.FAILED);
        assertFailure1(c, AuthFailureReason.INCORRECT_PAYLOAD, h.transactionId);
        assertThat(c.result().failure().detail()).startsWith("DHVLEN 0");

        c = controller(DhchapPolicy.only(DhchapHash.SHA_384, DhchapDhGroup.NULL), null);
        c.send(h.negotiate());
        c.receive();
        byte[] sha256Shaped = DhchapReply.encode(h.transactionId, new byte[32], null, 0, new byte[0]);
        c.send(sha256Shaped);
        assertFailure1(c, AuthFailureReason.INCORRECT_PAYLOAD, h.transactionId);
        assertThat(c.result().failure().detail()).startsWith("HL 32");

        c = controller(SHA256_NULL, null);
        c.send(h.negotiate());
        reply = h.reply(c.receive());
        c.send(Arrays.copyOf(reply, reply.length + 1));
        assertFailure1(c, AuthFailureReason.INCORRECT_PAYLOAD, h.transactionId);
    }

    @Test
    void aReflectedChallengeIsRefused() {
        DhchapTestHost h = host(DhchapControllerTest.CONTROLLER_KEY);
        DhchapController c = controller(SHA256_NULL, DhchapControllerTest.CONTROLLER_KEY);
        c.send(h.negotiate());
        byte[] challenge = c.receive();
        byte[] reply = h.reply(challenge);
        System.arraycopy(new DhchapChallenge().wrap(challenge).challenge(), 0, reply, 16 + 32, 32);
        c.send(reply);
        assertFailure1(c, AuthFailureReason.FAILED, h.transactionId);
        assertThat(c.result().failure().detail()).isEqualTo("challenge C2 repeats C1");
    }

    @Test
    void success2AndFailure2MustBeWellFormed() {
        for (byte[] bad : new byte[][] {Arrays.copyOf(DhchapSuccess2.encode(0x1234), 15),
            DhchapSuccess2.encode(0x1235), Arrays.copyOf(AuthFailure.encodeFailure2(0x1234, AuthFailureReason.FAILED),
                9), AuthFailure.encodeFailure2(0x4321, AuthFailureReason.FAILED)}) {
            DhchapController c = awaitingSuccess2();
            assertThat(c.send(bad)).isEqualTo(DhchapState.FAILED);
            assertFailure1(c, AuthFailureReason.INCORRECT_PAYLOAD, 0x1234);
        }
        DhchapController c = awaitingSuccess2();
        byte[] vendor = AuthFailure.encodeFailure2(0x1234, AuthFailureReason.FAILED);
        vendor[7] = (byte) 0xe5;
        c.send(vendor);
        assertThat(c.messageDue()).isFalse();
        assertThat(c.result().failure().explanationCode()).isEqualTo(0xe5);
        assertThat(c.result().failure().reason()).isNull();
        assertThat(c.result().failure().toString()).contains("explanation e5h");
    }

    private static DhchapController awaitingSuccess2() {
        DhchapTestHost h = host(DhchapControllerTest.CONTROLLER_KEY);
        DhchapController c = controller(SHA256_NULL, DhchapControllerTest.CONTROLLER_KEY);
        c.send(h.negotiate());
        c.send(h.reply(c.receive()));
        c.receive();
        assertThat(c.state()).isEqualTo(DhchapState.AWAIT_SUCCESS2);
        return c;
    }

    private static void expectNegotiateRefused(byte[] negotiate, AuthFailureReason reason) {
        DhchapController c = controller(SHA256_NULL, null);
        assertThat(c.send(negotiate)).isEqualTo(DhchapState.FAILED);
        int tid = negotiate.length >= 6 ? (negotiate[4] & 0xff | (negotiate[5] & 0xff) << 8) : 0;
        assertFailure1(c, reason, tid);
        assertThat(c.result().hash()).isNull();
    }

    private interface Tamper {
        void apply(byte[] reply);
    }

    private static void expectReplyRefused(DhchapPolicy policy, Tamper tamper, AuthFailureReason reason,
            String detail) {
        DhchapTestHost h = host(null);
        DhchapController c = controller(policy, null);
        c.send(h.negotiate());
        byte[] reply = h.reply(c.receive());
        tamper.apply(reply);
        assertThat(c.send(reply)).isEqualTo(DhchapState.FAILED);
        assertFailure1(c, reason, h.transactionId);
        assertThat(c.result().failure().detail()).contains(detail);
    }
}
