package io.jdoca.nvmf.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.security.KeyPair;
import java.security.SecureRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The RFC 7919 groups: the moduli, the wire form of DH values, agreement and the refusal of unusable values. */
class DhchapDhGroupTest {
    static final SecureRandom RANDOM = new SecureRandom();
    /** X of RFC 7919 Appendix A per group, in DhchapDhGroup order from FFDHE2048. */
    static final long[] RFC7919_X = {560316, 2625351, 5736041, 15705020, 10965728};

    /** p = 2^b - 2^(b-64) + ([2^(b-130) e] + X) * 2^64 - 1 (RFC 7919 Appendix A), e to 2600 digits. */
    @ParameterizedTest
    @EnumSource(value = DhchapDhGroup.class, names = "NULL", mode = EnumSource.Mode.EXCLUDE)
    void modulusIsRfc7919s(DhchapDhGroup g) {
        int b = new int[] {0, 2048, 3072, 4096, 6144, 8192}[g.id()];
        MathContext mc = new MathContext(2600);
        BigDecimal e = BigDecimal.ZERO;
        BigDecimal term = BigDecimal.ONE;
        for (int k = 1; k < 1200; k++) {
            e = e.add(term, mc);
            term = term.divide(BigDecimal.valueOf(k), mc);
        }
        BigInteger floor = new BigDecimal(BigInteger.ONE.shiftLeft(b - 130)).multiply(e, mc).toBigInteger();
        BigInteger p = BigInteger.ONE.shiftLeft(b).subtract(BigInteger.ONE.shiftLeft(b - 64))
                .add(floor.add(BigInteger.valueOf(RFC7919_X[g.id() - 1])).shiftLeft(64)).subtract(BigInteger.ONE);
        assertThat(g.prime()).isEqualTo(p);
        assertThat(g.valueLength()).isEqualTo(b / 8);
        assertThat(DhchapDhGroup.ofId(g.id())).isSameAs(g);
    }

    @ParameterizedTest
    @EnumSource(value = DhchapDhGroup.class, names = {"FFDHE2048", "FFDHE3072"})
    void bothSidesAgreeOnValuesOfTheWireLength(DhchapDhGroup g) {
        KeyPair a = g.generateKeyPair(RANDOM);
        KeyPair b = g.generateKeyPair(RANDOM);
        byte[] va = g.publicValue(a);
        byte[] vb = g.publicValue(b);
        assertThat(va).hasSize(g.valueLength());
        assertThat(new BigInteger(1, va)).isLessThan(g.prime());
        byte[] sa = g.sharedSecret(a.getPrivate(), vb);
        assertThat(sa).hasSize(g.valueLength()).isEqualTo(g.sharedSecret(b.getPrivate(), va));
        // The shared value is g^ab mod p, computed here the long way.
        BigInteger x = ((javax.crypto.interfaces.DHPrivateKey) a.getPrivate()).getX();
        assertThat(new BigInteger(1, sa)).isEqualTo(new BigInteger(1, vb).modPow(x, g.prime()));
    }

    @ParameterizedTest
    @EnumSource(value = DhchapDhGroup.class, names = "FFDHE2048")
    void unusableValuesAreRefused(DhchapDhGroup g) {
        KeyPair a = g.generateKeyPair(RANDOM);
        BigInteger p = g.prime();
        for (BigInteger bad : new BigInteger[] {BigInteger.ZERO, BigInteger.ONE, p.subtract(BigInteger.ONE), p,
            BigInteger.ONE.shiftLeft(2048).subtract(BigInteger.ONE)}) {
            assertThat(g.sharedSecret(a.getPrivate(), DhchapDhGroup.fixedLength(bad, 256))).isNull();
        }
        assertThat(g.sharedSecret(a.getPrivate(), new byte[255])).isNull();
        assertThat(g.sharedSecret(a.getPrivate(), new byte[257])).isNull();
        assertThat(g.sharedSecret(a.getPrivate(), DhchapDhGroup.fixedLength(BigInteger.TWO, 256))).hasSize(256);
    }

    @ParameterizedTest
    @EnumSource(value = DhchapDhGroup.class, names = "NULL")
    void theNullGroupHasNoExchange(DhchapDhGroup g) {
        assertThat(g.valueLength()).isZero();
        assertThat(g.prime()).isNull();
        assertThat(g.toString()).isEqualTo("null");
        assertThat(DhchapDhGroup.FFDHE6144.toString()).isEqualTo("ffdhe6144");
        assertThat(DhchapDhGroup.ofId(6)).isNull();
        assertThatThrownBy(() -> g.generateKeyPair(RANDOM)).isInstanceOf(IllegalStateException.class);
    }
}
