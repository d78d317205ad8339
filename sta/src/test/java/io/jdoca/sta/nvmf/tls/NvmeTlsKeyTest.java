package io.jdoca.sta.nvmf.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The PSK interchange format and the NVMe/TCP TLS derivations. Expected values were computed by an independent
 * implementation: OpenSSL 3.0's command line ({@code openssl kdf ... HKDF} with the RFC 8446 HkdfLabel written out
 * as {@code hexinfo}, {@code openssl dgst -sha256 -mac HMAC} for the digest):
 * {@code src/test/resources/tls/psk-vectors.sh} prints them. The parse vector is nvme-cli's documented example key.
 */
class NvmeTlsKeyTest {
    private static final HexFormat HEX = HexFormat.of();
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:host1";
    private static final String SUB = "nqn.2016-06.io.spdk:cnode1";
    private static final byte[] K32 = HEX.parseHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");

    @Test
    void nvmeCliExampleKeyParses() {
        NvmeTlsKey k = NvmeTlsKey.parse("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:\n");
        assertThat(k.hash()).isEqualTo(1);
        assertThat(k.length()).isEqualTo(32);
        assertThat(k.interchange()).isEqualTo("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:");
        assertThat(k.toString()).doesNotContain("VRLb");
    }

    @Test
    void malformedKeysAreRefusedWithoutEchoingTheKey() {
        String good = "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:";
        String badCrc = good.replace("VRLb", "VRLc");
        for (String bad : new String[] {"", "DHHC-1:00:abc:", good.replace(":01:", ":03:"), good.replace(":01:", ":1:"),
            good.substring(0, good.length() - 1), good.replace(":01:", ":02:"), badCrc,
            "NVMeTLSkey-1:01:!!!!:"}) {
            assertThatThrownBy(() -> NvmeTlsKey.parse(bad)).isInstanceOf(IllegalArgumentException.class)
                    .message().doesNotContain("VRL").doesNotContain("!!!!");
        }
        assertThatThrownBy(() -> NvmeTlsKey.parse(badCrc)).hasMessageContaining("CRC-32");
    }

    @Test
    void roundTripOfGeneratedKeys() {
        SecureRandom r = new SecureRandom();
        for (int h = 0; h <= 2; h++) {
            NvmeTlsKey k = NvmeTlsKey.generate(h, r);
            NvmeTlsKey back = NvmeTlsKey.parse(k.interchange());
            assertThat(back.interchange()).isEqualTo(k.interchange());
            assertThat(back.length()).isEqualTo(h == 2 ? 48 : 32);
        }
    }

    @Test
    void retainedPskAndVersion0TlsPskMatchOpenssl() {
        NvmeTlsKey k = NvmeTlsKey.of(NvmeTlsKey.HASH_SHA256, K32);
        assertThat(HEX.formatHex(k.retained(HOST)))
                .isEqualTo("7b1165504899fe51b54743731acbbc2d3cd3e5fdb0addb4a6564dabc70b50e90");
        NvmeTlsKey.Derived d = k.derive(0, HOST, SUB);
        assertThat(d.identity().text()).isEqualTo("NVMe0R01 " + HOST + " " + SUB);
        assertThat(HEX.formatHex(d.psk()))
                .isEqualTo("223b14d58edebefe7f373e5785ce75604984870d3bc9540a991db9e58bd25087");
        assertThat(d.toString()).doesNotContain("223b");
    }

    @Test
    void version1IdentityCarriesTheDigestAndItsPskMatchesOpenssl() {
        NvmeTlsKey k = NvmeTlsKey.of(NvmeTlsKey.HASH_SHA256, K32);
        NvmeTlsKey.Derived d = k.derive(1, HOST, SUB);
        assertThat(d.identity().text())
                .isEqualTo("NVMe1R01 " + HOST + " " + SUB + " MCNyiF2H7DmMpk7KNF2/FO59MPrk8vEJF4kG/hSvhg0=");
        assertThat(HEX.formatHex(d.psk()))
                .isEqualTo("3f0e6eb5ea6ed0c0d87c36966cd08461075d3484b993133cd72cfe07d99d1ac5");
        // The target derives the same from the identity alone; a wrong digest is not this key's identity.
        NvmeTlsIdentity parsed = NvmeTlsIdentity.parse(d.identity().text());
        assertThat(k.tlsPsk(parsed)).isEqualTo(d.psk());
        NvmeTlsIdentity forged = new NvmeTlsIdentity(1, 1, HOST, SUB, "AAAA" + parsed.digest().substring(4));
        assertThat(k.tlsPsk(forged)).isNull();
    }

    @Test
    void unhashed48ByteKeyGoesWithSha384() {
        byte[] k48 = new byte[48];
        for (int i = 0; i < 48; i++) {
            k48[i] = (byte) (0x40 + i);
        }
        NvmeTlsKey k = NvmeTlsKey.of(NvmeTlsKey.HASH_NONE, k48);
        assertThat(k.cipherHash()).isEqualTo(NvmeTlsKey.HASH_SHA384);
        NvmeTlsKey.Derived d = k.derive(0, HOST, SUB);
        assertThat(d.identity().text()).startsWith("NVMe0R02 ");
        assertThat(HEX.formatHex(d.psk())).isEqualTo("8487442b5e1ffabfd9387ed416b0f6b7d77a575942daa1cc63b2c56a729136d6"
                + "643f3f057db98b4c32fe153664b1fccc");
        // An identity naming the other hash cannot be this key's.
        assertThat(k.tlsPsk(new NvmeTlsIdentity(0, 1, HOST, SUB, null))).isNull();
    }

    @Test
    void identityParsing() {
        assertThat(NvmeTlsIdentity.parse("NVMe0R01 a b")).isEqualTo(new NvmeTlsIdentity(0, 1, "a", "b", null));
        assertThat(NvmeTlsIdentity.parse("NVMe1R02 a b c")).isEqualTo(new NvmeTlsIdentity(1, 2, "a", "b", "c"));
        for (String bad : new String[] {null, "", "NVMe0R01 a", "NVMe0R03 a b", "NVMe2R01 a b", "NVMe1R01 a b",
            "NVMe0R01 a b c", "NVMe0G01 a b", "NVMe0R01  b", "xVMe0R01 a b"}) {
            assertThat(NvmeTlsIdentity.parse(bad)).as(String.valueOf(bad)).isNull();
        }
    }
}
