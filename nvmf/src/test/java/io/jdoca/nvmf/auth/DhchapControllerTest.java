package io.jdoca.nvmf.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whole transactions between {@link DhchapController} and {@link DhchapTestHost}: every hash x DH group, uni-
 * and bidirectional; wrong secrets on either side; and what the secrets never reach.
 */
class DhchapControllerTest {
    static final String HOST = DhchapKeyTest.NQN;
    static final String SUBSYSTEM = DhchapCryptoTest.SUBSYSTEM_NQN;
    static final DhchapKey HOST_KEY = DhchapKey.parse(DhchapKeyTest.CLI_01);
    static final DhchapKey CONTROLLER_KEY = DhchapKey.parse(DhchapKeyTest.CLI_02);

    static Stream<Arguments> everyHashGroupAndDirection() {
        List<Arguments> all = new ArrayList<>();
        for (DhchapHash h : DhchapHash.values()) {
            for (DhchapDhGroup g : DhchapDhGroup.values()) {
                all.add(Arguments.of(h, g, false));
                all.add(Arguments.of(h, g, true));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} bidirectional={2}")
    @MethodSource("everyHashGroupAndDirection")
    void authenticates(DhchapHash hash, DhchapDhGroup group, boolean bidirectional) {
        DhchapController c = controller(DhchapPolicy.only(hash, group), CONTROLLER_KEY);
        DhchapTestHost h = host(bidirectional ? CONTROLLER_KEY : null);
        assertThat(c.state()).isEqualTo(DhchapState.IDLE);
        assertThat(c.send(h.negotiate())).isEqualTo(DhchapState.NEGOTIATED);
        assertThat(c.messageDue()).isTrue();
        byte[] challenge = c.receive();
        assertThat(challenge).hasSize(DhchapChallenge.FIXED_LENGTH + hash.length() + group.valueLength());
        assertThat(c.state()).isEqualTo(DhchapState.CHALLENGED);
        assertThat(c.messageDue()).isFalse();
        assertThat(c.send(h.reply(challenge))).isEqualTo(DhchapState.REPLIED);
        byte[] last = h.afterSuccess1(c.receive());
        if (bidirectional) {
            assertThat(c.state()).isEqualTo(DhchapState.AWAIT_SUCCESS2);
            assertThat(h.controllerAuthenticated).isTrue();
            assertThat(c.send(last)).isEqualTo(DhchapState.DONE);
        } else {
            assertThat(last).isNull();
        }
        assertThat(c.state()).isEqualTo(DhchapState.DONE);
        assertThat(c.messageDue()).isFalse();
        assertThat(c.result()).isEqualTo(new DhchapResult(true, hash, group, bidirectional, null));
        assertThat(c.transactionId()).isEqualTo(h.transactionId);
        if (group == DhchapDhGroup.NULL) {
            assertThat(c.sessionKey()).isEmpty();
        } else {
            assertThat(c.sessionKey()).hasValueSatisfying(k -> assertThat(k).isEqualTo(h.sessionKey)
                    .hasSize(hash.length()));
            c.close();
            assertThat(c.sessionKey()).isEmpty();
        }
    }

    @Test
    void aWrongHostSecretIsRefusedWithFailure1Failed() {
        DhchapController c = controller(DhchapPolicy.only(DhchapHash.SHA_256, DhchapDhGroup.FFDHE2048), null);
        DhchapTestHost h = new DhchapTestHost(HOST, SUBSYSTEM, DhchapKey.parse(DhchapKeyTest.CLI_03), null);
        c.send(h.negotiate());
        assertThat(c.send(h.reply(c.receive()))).isEqualTo(DhchapState.FAILED);
        assertFailure1(c, AuthFailureReason.FAILED, h.transactionId);
        assertThat(c.result().failure().detail()).isEqualTo("host response mismatch");
        assertThat(c.result().failure().source()).isEqualTo(DhchapResult.Source.CONTROLLER);
        assertThat(c.result().authenticated()).isFalse();
        assertThat(c.sessionKey()).isEmpty();
    }

    @Test
    void theSameSecretUnderAnotherHostNqnIsRefused() {
        DhchapController c = controller(DhchapPolicy.only(DhchapHash.SHA_384, DhchapDhGroup.NULL), null);
        DhchapTestHost h = new DhchapTestHost(HOST + "x", SUBSYSTEM, HOST_KEY, null);
        c.send(h.negotiate());
        c.send(h.reply(c.receive()));
        assertFailure1(c, AuthFailureReason.FAILED, h.transactionId);
    }

    @Test
    void aHostThatRefusesTheControllersResponseEndsItWithFailure2() {
        DhchapController c = controller(DhchapPolicy.only(DhchapHash.SHA_512, DhchapDhGroup.NULL), CONTROLLER_KEY);
        DhchapTestHost h = host(DhchapKey.parse(DhchapKeyTest.WIKI_02));
        c.send(h.negotiate());
        c.send(h.reply(c.receive()));
        byte[] last = h.afterSuccess1(c.receive());
        assertThat(h.controllerAuthenticated).isFalse();
        assertThat(c.send(last)).isEqualTo(DhchapState.FAILED);
        assertThat(c.messageDue()).isFalse();
        DhchapResult.Failure f = c.result().failure();
        assertThat(f.source()).isEqualTo(DhchapResult.Source.HOST);
        assertThat(f.reason()).isEqualTo(AuthFailureReason.FAILED);
        assertThat(c.result().bidirectional()).isTrue();
        assertThat(c.result().authenticated()).isFalse();
    }

    @Test
    void bidirectionalWithoutAControllerKeyFails() {
        DhchapController c = controller(DhchapPolicy.only(DhchapHash.SHA_256, DhchapDhGroup.NULL), null);
        DhchapTestHost h = host(CONTROLLER_KEY);
        c.send(h.negotiate());
        c.send(h.reply(c.receive()));
        assertFailure1(c, AuthFailureReason.FAILED, h.transactionId);
        assertThat(c.result().failure().detail()).contains("no controller key");
    }

    @Test
    void aControllerKeyDoesNotForceBidirectional() {
        DhchapController c = controller(DhchapPolicy.only(DhchapHash.SHA_256, DhchapDhGroup.NULL), CONTROLLER_KEY);
        DhchapTestHost h = host(null);
        c.send(h.negotiate());
        c.send(h.reply(c.receive()));
        assertThat(h.afterSuccess1(c.receive())).isNull();
        assertThat(c.result().authenticated()).isTrue();
        assertThat(c.result().bidirectional()).isFalse();
    }

    @Test
    void thePolicysOrderChoosesAmongWhatTheHostOffers() {
        DhchapController c = controller(DhchapPolicy.strongestFirst(), null);
        DhchapTestHost h = host(null);
        c.send(h.negotiate());
        assertThat(c.result().hash()).isEqualTo(DhchapHash.SHA_512);
        assertThat(c.result().dhGroup()).isEqualTo(DhchapDhGroup.FFDHE8192);
        DhchapController d = controller(DhchapPolicy.strongestFirst(), null);
        h.hashIds = new int[] {0xe0, 1, 2};
        h.dhGroupIds = new int[] {9, 0, 2};
        d.send(h.negotiate());
        assertThat(d.result().hash()).isEqualTo(DhchapHash.SHA_384);
        assertThat(d.result().dhGroup()).isEqualTo(DhchapDhGroup.FFDHE3072);
    }

    @Test
    void linuxHostsNegotiateIsAccepted() {
        // nvme_auth_set_dhchap_negotiate_data (drivers/nvme/host/auth.c): 72 bytes, T_ID 5, SC_C 0, NAPD 1,
        // AuthID 1, HALEN 3 (SHA-256/384/512), DHLEN 6 (NULL, ffdhe2048..8192) at idlist[30].
        byte[] m = new byte[72];
        m[4] = 5;
        m[7] = 1;
        m[8] = 1;
        m[10] = 3;
        m[11] = 6;
        m[12] = 1;
        m[13] = 2;
        m[14] = 3;
        for (int i = 0; i < 6; i++) {
            m[42 + i] = (byte) i;
        }
        DhchapController c = controller(DhchapPolicy.only(DhchapHash.SHA_384, DhchapDhGroup.FFDHE4096), null);
        assertThat(c.send(m)).isEqualTo(DhchapState.NEGOTIATED);
        assertThat(c.transactionId()).isEqualTo(5);
        byte[] challenge = c.receive();
        assertThat(challenge[0]).isEqualTo((byte) 1);
        assertThat(challenge[1]).isEqualTo((byte) 1);
        assertThat(challenge[4]).isEqualTo((byte) 5);
        assertThat(challenge[6]).isEqualTo((byte) 48);
        assertThat(challenge[8]).isEqualTo((byte) 2);
        assertThat(challenge[9]).isEqualTo((byte) 3);
        assertThat(challenge[10] & 0xff | (challenge[11] & 0xff) << 8).isEqualTo(512);
    }

    @Test
    void sequenceNumbersAreUsedOnceEach() {
        DhchapSequence seq = new DhchapSequence(new SecureRandom());
        int[] s = new int[2];
        for (int i = 0; i < 2; i++) {
            DhchapController c = new DhchapController(HOST, SUBSYSTEM, HOST_KEY, null,
                    DhchapPolicy.only(DhchapHash.SHA_256, DhchapDhGroup.NULL), seq, new SecureRandom());
            c.send(host(null).negotiate());
            s[i] = new DhchapChallenge().wrap(c.receive()).sequenceNumber();
        }
        assertThat(s[1]).isEqualTo(s[0] == -1 ? 1 : s[0] + 1);
        assertThat(s[0]).isNotZero();
    }

    @Test
    void abortEndsAnUnfinishedTransactionQuietly() {
        DhchapController c = controller(DhchapPolicy.only(DhchapHash.SHA_256, DhchapDhGroup.FFDHE2048), null);
        c.send(host(null).negotiate());
        c.receive();
        c.abort("authentication transaction timeout");
        assertThat(c.state()).isEqualTo(DhchapState.FAILED);
        assertThat(c.messageDue()).isFalse();
        assertThat(c.result().failure()).isEqualTo(new DhchapResult.Failure(1, DhchapResult.Source.ABORTED,
                "authentication transaction timeout"));
        DhchapController done = runToDone(DhchapHash.SHA_256, DhchapDhGroup.NULL);
        done.abort("connection closed");
        assertThat(done.result().authenticated()).isTrue();
    }

    @Test
    void noSecretInAnyStringTheControllerOrItsResultsMake() {
        DhchapController ok = runToDone(DhchapHash.SHA_384, DhchapDhGroup.FFDHE2048);
        byte[] ks = ok.sessionKey().orElseThrow();
        DhchapController bad = controller(DhchapPolicy.only(DhchapHash.SHA_256, DhchapDhGroup.NULL), null);
        DhchapTestHost h = new DhchapTestHost(HOST, SUBSYSTEM, CONTROLLER_KEY, null);
        bad.send(h.negotiate());
        bad.send(h.reply(bad.receive()));
        List<String> strings = List.of(ok.toString(), ok.result().toString(), bad.toString(),
                bad.result().toString(), bad.result().failure().toString(), HOST_KEY.toString(),
                CONTROLLER_KEY.toString());
        List<byte[]> secrets = List.of(ks, HOST_KEY.transform(HOST), CONTROLLER_KEY.transform(SUBSYSTEM),
                DhchapKeyTest.secretOf(DhchapKeyTest.CLI_01), DhchapKeyTest.secretOf(DhchapKeyTest.CLI_02));
        for (String s : strings) {
            assertThat(s).doesNotContain("DHHC-1:01:").doesNotContain(DhchapKeyTest.CLI_01.substring(10, 30));
            for (byte[] secret : secrets) {
                String hex = HexFormat.of().formatHex(secret, 0, 8);
                assertThat(s.toLowerCase()).doesNotContain(hex);
                assertThat(s).doesNotContain(Base64.getEncoder().encodeToString(secret).substring(0, 12));
            }
        }
    }

    static DhchapController runToDone(DhchapHash hash, DhchapDhGroup group) {
        DhchapController c = controller(DhchapPolicy.only(hash, group), null);
        DhchapTestHost h = host(null);
        c.send(h.negotiate());
        c.send(h.reply(c.receive()));
        c.receive();
        assertThat(c.state()).isEqualTo(DhchapState.DONE);
        return c;
    }

    /** The controller is FAILED, owes exactly the AUTH_Failure1 with {@code reason}, then owes nothing. */
    static void assertFailure1(DhchapController c, AuthFailureReason reason, int transactionId) {
        assertThat(c.state()).isEqualTo(DhchapState.FAILED);
        assertThat(c.messageDue()).isTrue();
        AuthFailure f = new AuthFailure().wrap(c.receive());
        assertThat(f.check(AuthMessage.ID_FAILURE1)).isNull();
        assertThat(f.reasonCode()).isEqualTo(AuthFailureReason.REASON_CODE_FAILURE);
        assertThat(f.explanation()).isEqualTo(reason);
        assertThat(f.transactionId()).isEqualTo(transactionId);
        assertThat(c.messageDue()).isFalse();
        assertThat(c.result().failure().reason()).isEqualTo(reason);
    }

    static DhchapController controller(DhchapPolicy policy, DhchapKey controllerKey) {
        return new DhchapController(HOST, SUBSYSTEM, HOST_KEY, controllerKey, policy);
    }

    static DhchapTestHost host(DhchapKey controllerKey) {
        return new DhchapTestHost(HOST, SUBSYSTEM, HOST_KEY, controllerKey);
    }
}
