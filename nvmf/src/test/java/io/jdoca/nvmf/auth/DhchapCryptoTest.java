package io.jdoca.nvmf.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Known-answer vectors for the response, augmented challenge, session key and generated PSK computations. */
class DhchapCryptoTest {
    static final HexFormat HEX = HexFormat.of();
    static final String HOST_NQN = DhchapKeyTest.NQN;
    static final String SUBSYSTEM_NQN = "nqn.2023-01.io.jdoca:subsystem1";

    /*
     * R1 and R2 vectors: computed with Python 3.11's hmac/hashlib from the byte layout of Linux's
     * nvmet_auth_host_hash / nvmet_auth_ctrl_hash (drivers/nvme/target/auth.c) and the spec's R1/R2 formulas
     * (Base 2.1 Figure 743), an implementation independent of this one; no published R1/R2 vector was found.
     * The keys are nvme-cli's transformation outputs (DhchapKeyTest), so the chain secret -> Kh -> R1 is pinned.
     */

    @Test
    void hostResponseWithTheNullGroup() {
        byte[] kh = DhchapKey.parse(DhchapKeyTest.CLI_01.replace("DHHC-1:01:", "DHHC-1:00:")).transform(HOST_NQN);
        assertThat(kh).isEqualTo(DhchapKey.of(DhchapHash.SHA_256, DhchapKeyTest.S32).transform(HOST_NQN));
        byte[] c1 = range(0x20, 32);
        byte[] ca = DhchapCrypto.augmentedChallenge(DhchapHash.SHA_256, null, c1);
        assertThat(ca).isEqualTo(c1);
        byte[] r1 = DhchapCrypto.hostResponse(DhchapHash.SHA_256, kh, ca, 0x01020304, 0x1234, 0, HOST_NQN,
                SUBSYSTEM_NQN);
        assertThat(HEX.formatHex(r1)).isEqualTo("d44ce50fbdb96798656bc1ce84d2e63556157831d482f1379a32a1fab91b2b66");
    }

    @Test
    void controllerResponseWithAnAugmentedChallenge() {
        byte[] kc = DhchapKey.of(DhchapHash.SHA_384, DhchapKeyTest.S48).transform(SUBSYSTEM_NQN);
        byte[] shared = new byte[384];
        for (int i = 0; i < shared.length; i++) {
            shared[i] = (byte) i;
        }
        byte[] ks = DhchapCrypto.sessionKey(DhchapHash.SHA_384, shared);
        assertThat(HEX.formatHex(ks)).isEqualTo("1c30f9664ec795dc6a0b488c213f37d92d8fa7319116b71aaa909c675af5e006"
                + "cef98643cf52be5de1a8cc0abd6d8de6");
        byte[] ca2 = DhchapCrypto.augmentedChallenge(DhchapHash.SHA_384, ks, range(0x40, 48));
        assertThat(HEX.formatHex(ca2)).isEqualTo("06a1ad1de8ae55fe383516e62c7fdac5abce33317764525311645157e274f6dd"
                + "bedc444fa877c828254b855fd5c1219d");
        byte[] r2 = DhchapCrypto.controllerResponse(DhchapHash.SHA_384, kc, ca2, 0xfffffffe, 0xbeef, 0,
                SUBSYSTEM_NQN, HOST_NQN);
        assertThat(HEX.formatHex(r2)).isEqualTo("7c14583876dbcd6e550bf65e907f9d8405e93f8071778d5f834d2d19e114891e"
                + "43e513d849a14c218cf333bfba7413ba");
    }

    @Test
    void hostResponseWithAnUntransformedKeyAndSha512() {
        byte[] shared = new byte[256];
        byte[] c1 = new byte[64];
        for (int i = 0; i < shared.length; i++) {
            shared[i] = (byte) (255 - i);
        }
        for (int i = 0; i < c1.length; i++) {
            c1[i] = (byte) (7 * i);
        }
        byte[] ks = DhchapCrypto.sessionKey(DhchapHash.SHA_512, shared);
        byte[] ca1 = DhchapCrypto.augmentedChallenge(DhchapHash.SHA_512, ks, c1);
        byte[] kh = DhchapKey.parse(DhchapKeyTest.CLI_00_64).transform(HOST_NQN);
        byte[] r1 = DhchapCrypto.hostResponse(DhchapHash.SHA_512, kh, ca1, 1, 0, 0, HOST_NQN, SUBSYSTEM_NQN);
        assertThat(HEX.formatHex(r1)).isEqualTo("21aaf644c3539345cef17600905aa06baa636c3620ee24e7bf9b1cb9f5aa2689"
                + "ac41417666353133769211a8df660910743afbe725df81c25a40568905eb4d9d");
    }

    /*
     * Linux's KUnit test drivers/nvme/common/tests/auth_kunit.c (test_nvme_auth_derive_tls_psk_hmac_*):
     * skey[i] = 'A' + i, c1[i] = i, c2[i] = 0xff - i (hash length bytes each), host NQN "hostnqn", subsystem NQN
     * "subsysnqn"; expected_psk and expected_psk_digest as published there.
     */

    @Test
    void generatedPskMatchesLinuxKunitSha256() {
        byte[] psk = kunitPsk(DhchapHash.SHA_256);
        assertThat(HEX.formatHex(psk)).isEqualTo("1733c59fa7f48fcf37f5f26fc4ff0268ad4f78e030f4f3b0bfd1d47e7bb1447a");
        assertThat(DhchapCrypto.pskDigest(DhchapHash.SHA_256, psk, "hostnqn", "subsysnqn"))
                .isEqualTo("OldoKuTfKddMuyCznAZojkWD7P4D9/AtzDzLimtOxqI=");
    }

    @Test
    void generatedPskMatchesLinuxKunitSha384() {
        byte[] psk = kunitPsk(DhchapHash.SHA_384);
        assertThat(HEX.formatHex(psk)).isEqualTo("f14b2dd3234c459694d3bc63f8968bd6b37c2c6de849e22e118749001ce4bbe8"
                + "640b9e3a748cb11ce4b1d71d359cce39");
        assertThat(DhchapCrypto.pskDigest(DhchapHash.SHA_384, psk, "hostnqn", "subsysnqn"))
                .isEqualTo("cffMWk8TSS7HOQebjgYEIkrPrjWPV4JE5cdPB8WhEvY4JBW5YynKyv66XscN4A9n");
    }

    @Test
    void generatedPskMatchesLinuxKunitSha512() {
        assertThat(HEX.formatHex(kunitPsk(DhchapHash.SHA_512))).isEqualTo(
                "9c9f089a618b47d2d75f4b6c28070424487b445dd96e70c4c09b55e8b6000152"
                + "a3363c3454043f38f0b85036ded40655350aa87b8b6a282b5c1acae16233dd5b");
    }

    @Test
    void responsesCompareByValue() {
        byte[] a = range(0, 32);
        assertThat(DhchapCrypto.responsesMatch(a, a.clone())).isTrue();
        byte[] b = a.clone();
        b[31] ^= 1;
        assertThat(DhchapCrypto.responsesMatch(a, b)).isFalse();
        assertThat(DhchapCrypto.responsesMatch(a, Arrays.copyOf(a, 31))).isFalse();
    }

    @Test
    void hashesAreTheSpecsTable() {
        assertThat(DhchapHash.ofId(1)).isEqualTo(DhchapHash.SHA_256);
        assertThat(DhchapHash.ofId(3).length()).isEqualTo(64);
        assertThat(DhchapHash.ofId(0)).isNull();
        assertThat(DhchapHash.ofId(4)).isNull();
        assertThat(DhchapHash.ofId(0xe0)).isNull();
        assertThat(DhchapHash.SHA_384.hash("abc".getBytes(StandardCharsets.US_ASCII))).hasSize(48);
    }

    private static byte[] kunitPsk(DhchapHash hash) {
        int n = hash.length();
        byte[] skey = new byte[n];
        byte[] c1 = new byte[n];
        byte[] c2 = new byte[n];
        for (int i = 0; i < n; i++) {
            skey[i] = (byte) ('A' + i);
            c1[i] = (byte) i;
            c2[i] = (byte) (0xff - i);
        }
        return DhchapCrypto.generatedPsk(hash, skey, c1, c2);
    }

    static byte[] range(int from, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }
}
