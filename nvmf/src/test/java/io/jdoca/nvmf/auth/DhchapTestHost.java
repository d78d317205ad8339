package io.jdoca.nvmf.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.KeyPair;
import java.security.SecureRandom;

/**
 * A test-only DH-HMAC-CHAP host, the other end of {@link DhchapController}: builds AUTH_Negotiate and the
 * Reply from the Challenge (DH value, R1, and C2 when it holds a controller key), checks Success1's R2 and
 * answers Success2 or AUTH_Failure2, as Linux's drivers/nvme/host/auth.c does. Not thread-safe.
 */
final class DhchapTestHost {
    static final SecureRandom RANDOM = new SecureRandom();

    final String hostNqn;
    final String subsystemNqn;
    final DhchapKey hostKey;
    /** The controller's key the host expects; {@code null}: unidirectional authentication. */
    final DhchapKey controllerKey;
    int[] hashIds = {1, 2, 3};
    int[] dhGroupIds = {0, 1, 2, 3, 4, 5};
    int secureChannel;
    int transactionId = 0x1234;
    /** S2 of the next Reply; the Reply with C2 uses it and then increments it. */
    int s2 = 7;

    DhchapHash hash;
    DhchapDhGroup dhGroup;
    byte[] c1;
    byte[] c2;
    byte[] sessionKey;
    boolean controllerAuthenticated;

    DhchapTestHost(String hostNqn, String subsystemNqn, DhchapKey hostKey, DhchapKey controllerKey) {
        this.hostNqn = hostNqn;
        this.subsystemNqn = subsystemNqn;
        this.hostKey = hostKey;
        this.controllerKey = controllerKey;
    }

    byte[] negotiate() {
        return AuthNegotiate.encode(transactionId, secureChannel, hashIds, dhGroupIds);
    }

    /** The Reply to {@code challenge}, which must be well-formed and of this transaction. */
    byte[] reply(byte[] challenge) {
        DhchapChallenge ch = new DhchapChallenge().wrap(challenge);
        assertThat(ch.check()).isNull();
        assertThat(ch.transactionId()).isEqualTo(transactionId);
        hash = DhchapHash.ofId(ch.hashId());
        dhGroup = DhchapDhGroup.ofId(ch.dhGroupId());
        assertThat(ch.hashLength()).isEqualTo(hash.length());
        assertThat(ch.dhValueLength()).isEqualTo(dhGroup.valueLength());
        assertThat(ch.sequenceNumber()).isNotZero();
        c1 = ch.challenge();
        byte[] dhValue = new byte[0];
        sessionKey = null;
        if (dhGroup != DhchapDhGroup.NULL) {
            KeyPair pair = dhGroup.generateKeyPair(RANDOM);
            dhValue = dhGroup.publicValue(pair);
            sessionKey = DhchapCrypto.sessionKey(hash, dhGroup.sharedSecret(pair.getPrivate(), ch.dhValue()));
        }
        byte[] ca1 = DhchapCrypto.augmentedChallenge(hash, sessionKey, c1);
        byte[] r1 = DhchapCrypto.hostResponse(hash, hostKey.transform(hostNqn), ca1, ch.sequenceNumber(),
                transactionId, secureChannel, hostNqn, subsystemNqn);
        c2 = null;
        if (controllerKey != null) {
            c2 = new byte[hash.length()];
            RANDOM.nextBytes(c2);
        }
        return DhchapReply.encode(transactionId, r1, c2, s2, dhValue);
    }

    /**
     * After Success1: {@code null} for unidirectional authentication (nothing more to send), else Success2 when
     * R2 is right and AUTH_Failure2 "authentication failed" when it is not.
     */
    byte[] afterSuccess1(byte[] success1) {
        DhchapSuccess1 s = new DhchapSuccess1().wrap(success1);
        assertThat(s.check()).isNull();
        assertThat(s.transactionId()).isEqualTo(transactionId);
        assertThat(s.hashLength()).isEqualTo(hash.length());
        if (c2 == null) {
            assertThat(s.responseValid()).isFalse();
            assertThat(s.response()).containsOnly(0);
            return null;
        }
        byte[] ca2 = DhchapCrypto.augmentedChallenge(hash, sessionKey, c2);
        byte[] expected = DhchapCrypto.controllerResponse(hash, controllerKey.transform(subsystemNqn), ca2, s2,
                transactionId, secureChannel, subsystemNqn, hostNqn);
        s2++;
        controllerAuthenticated = s.responseValid() && DhchapCrypto.responsesMatch(expected, s.response());
        return controllerAuthenticated ? DhchapSuccess2.encode(transactionId)
                : AuthFailure.encodeFailure2(transactionId, AuthFailureReason.FAILED);
    }
}
