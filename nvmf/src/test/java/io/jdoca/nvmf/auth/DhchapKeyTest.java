package io.jdoca.nvmf.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * DHHC-1 parsing and formatting against published key strings and nvme-cli's output, the key transformation
 * against nvme-cli's, and the rule that no secret reaches a message or toString.
 */
class DhchapKeyTest {
    /** The example secret of the spec's §8.13.5.8, as nvme-cli's nvme-gen-dhchap-key(1) page prints it. */
    static final String SPEC_EXAMPLE = "DHHC-1:00:ia6zGodOr4SEG0Zzaw398rpY0wqipUWj4jWjUh4HWUz6aQ2n:";
    /** nvme-cli wiki "Authentication": the output of a plain {@code nvme gen-dhchap-key}. */
    static final String WIKI_00 = "DHHC-1:00:2wKd3YDIcRMN/rCJa/k60E8xBQMw+2D9UnigSQ6YFkEHV3Yy:";
    /** nvme-cli wiki "Authentication": {@code nvme gen-dhchap-key --hmac=2 --nqn=...} (48 bytes, SHA-384). */
    static final String WIKI_02 = "DHHC-1:02:d4gmzh5i0I3npDMWAmJX/nAvAw7ioKmS2w44ceutFeObYDFG/r6zOB3UW0FLzevsI7XDJg==:";

    static final String NQN = "nqn.2014-08.org.nvmexpress:uuid:befdec4c-2234-11b2-a85c-ca77c773af36";
    static final byte[] S32 = sequence(32);
    static final byte[] S48 = sequence(48);
    static final byte[] S64 = sequence(64);

    /*
     * nvme-cli 2.3 / libnvme 1.3 on this project's machine: nvme gen-dhchap-key --secret=000102...1f (the secret
     * 00h, 01h, ... of 32, 48, 64 bytes) --hmac=N --nqn=NQN prints HMAC(secret, NQN || "NVMe-over-Fabrics"),
     * i.e. exactly this class's transform(NQN) of that secret with XX = N; with --hmac=0 the secret itself.
     */
    static final String CLI_00_32 = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
    static final String CLI_00_48 = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v"
            + "cSEgBQ==:";
    static final String CLI_00_64 = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4v"
            + "MDEyMzQ1Njc4OTo7PD0+P4zODhA=:";
    static final String CLI_01 = "DHHC-1:01:b0t0FSdQCrUNJGSrDb7VrsqjdFSb4fEBMRTorxAHgGo3XEQL:";
    static final String CLI_02 = "DHHC-1:02:4Ht9x/Jly33imV4FzSd1AfVw0K95/CdNjHJdlgOCHmxTPXzkrqOBAXbppc8TwQCM"
            + "Di4bTw==:";
    static final String CLI_03 = "DHHC-1:03:OjW/PKfycWYuNQHOB7C6eEPb6cB9dG4Rk9opBZO/1rP5kNcXnJVYr1O4NRxOKlYX"
            + "+5KxivlXk72f5M/71kk3cZJqmNc=:";

    @Test
    void publishedKeysParseAndFormatBack() {
        DhchapKey spec = DhchapKey.parse(SPEC_EXAMPLE);
        assertThat(spec.transformId()).isZero();
        assertThat(spec.transformHash()).isNull();
        assertThat(spec.length()).isEqualTo(32);
        assertThat(spec.representation()).isEqualTo(SPEC_EXAMPLE);
        // nvme check-dhchap-key -k <SPEC_EXAMPLE>: "Key is valid (HMAC 0, length 32, CRC a70d69fa)".
        CRC32 crc = new CRC32();
        crc.update(spec.transform(NQN));
        assertThat(crc.getValue()).isEqualTo(0xa70d69faL);

        DhchapKey wiki = DhchapKey.parse(WIKI_00);
        assertThat(wiki.length()).isEqualTo(32);
        assertThat(wiki.representation()).isEqualTo(WIKI_00);
        DhchapKey wiki2 = DhchapKey.parse(WIKI_02);
        assertThat(wiki2.transformHash()).isEqualTo(DhchapHash.SHA_384);
        assertThat(wiki2.length()).isEqualTo(48);
        assertThat(wiki2.representation()).isEqualTo(WIKI_02);
    }

    @Test
    void anyTransformationGoesWithAnySecretLength() {
        // The spec example under 01-03, the strings of Linux's "Remove secret-size restrictions for hashes" (2023).
        for (int xx = 1; xx <= 3; xx++) {
            DhchapKey k = DhchapKey.parse(SPEC_EXAMPLE.replace("DHHC-1:00:", "DHHC-1:0" + xx + ":"));
            assertThat(k.transformId()).isEqualTo(xx);
            assertThat(k.length()).isEqualTo(32);
            assertThat(k.transform(NQN)).hasSize(DhchapHash.ofId(xx).length());
        }
        // A 48-byte secret transformed with SHA-256 (Python hmac, the Linux layout; nvme-cli 2.3 refuses to mix).
        assertThat(DhchapKey.of(DhchapHash.SHA_256, S48).transform(NQN)).isEqualTo(
                HexFormat.of().parseHex("c9d6fff3ddd10e3c86aa9cae5b3e86ca0dffa7ca73fda91668bd24e202945479"));
    }

    @Test
    void formatsAsNvmeCliDoes() {
        assertThat(DhchapKey.of(null, S32).representation()).isEqualTo(CLI_00_32);
        assertThat(DhchapKey.of(null, S48).representation()).isEqualTo(CLI_00_48);
        assertThat(DhchapKey.of(null, S64).representation()).isEqualTo(CLI_00_64);
        assertThat(DhchapKey.parse(CLI_00_64).transform(NQN)).isEqualTo(S64);
        for (String s : new String[] {CLI_01, CLI_02, CLI_03}) {
            assertThat(DhchapKey.parse(s).representation()).isEqualTo(s);
        }
    }

    @Test
    void transformationMatchesNvmeCli() {
        assertThat(DhchapKey.of(DhchapHash.SHA_256, S32).transform(NQN)).isEqualTo(secretOf(CLI_01));
        assertThat(DhchapKey.of(DhchapHash.SHA_384, S48).transform(NQN)).isEqualTo(secretOf(CLI_02));
        assertThat(DhchapKey.of(DhchapHash.SHA_512, S64).transform(NQN)).isEqualTo(secretOf(CLI_03));
        assertThat(DhchapKey.of(null, S32).transform(NQN)).isEqualTo(S32);
        assertThat(DhchapKey.of(DhchapHash.SHA_256, S32).transform("nqn.other")).isNotEqualTo(secretOf(CLI_01));
    }

    @Test
    void toleratesWhatLinuxTolerates() {
        String noColon = CLI_01.substring(0, CLI_01.length() - 1);
        assertThat(DhchapKey.parse(noColon).representation()).isEqualTo(CLI_01);
        assertThat(DhchapKey.parse("  " + CLI_01 + "\n").representation()).isEqualTo(CLI_01);
    }

    @Test
    void refusesMalformedKeysWithOneLineThatQuotesNothing() {
        String body = CLI_01.substring(10, CLI_01.length() - 1);
        byte[] raw = Base64.getDecoder().decode(body);
        raw[0] ^= 1;
        String badCrc = "DHHC-1:01:" + Base64.getEncoder().encodeToString(raw) + ":";
        String shortKey = "DHHC-1:00:" + Base64.getEncoder().encodeToString(Arrays.copyOf(raw, 20)) + ":";
        assertRefused(badCrc, "DHHC-1 key: CRC mismatch");
        assertRefused(shortKey, "DHHC-1 key: 20 bytes decoded, not 36, 52 or 68");
        assertRefused("DHHC-1:04:" + body + ":", "DHHC-1 key: the transformation XX is not 00, 01, 02 or 03");
        assertRefused("DHHC-1:1:" + body + ":", "DHHC-1 key: not of the form");
        assertRefused("DHHC-1:x1:" + body + ":", "DHHC-1 key: the transformation XX is not 00, 01, 02 or 03");
        assertRefused("DHHC-2:01:" + body + ":", "DHHC-1 key: not of the form");
        assertRefused("DHHC-1:01:" + body.replace('b', '-') + ":", "DHHC-1 key: the key part is not base64");
        assertRefused("DHHC-1:01:" + body + ":extra:", "DHHC-1 key: the key part is not base64");
        assertRefused("DHHC-1:01", "DHHC-1 key: not of the form");
        assertRefused("", "DHHC-1 key: not of the form");
        assertThatThrownBy(() -> DhchapKey.of(null, new byte[31])).hasMessage(
                "DHHC-1 key: the secret has 31 bytes, not 32, 48 or 64");
    }

    @Test
    void theSecretIsInNoStringAndGoneAfterDestroy() {
        DhchapKey k = DhchapKey.parse(CLI_02);
        String body = CLI_02.substring(10, CLI_02.length() - 1);
        assertThat(k.toString()).isEqualTo("DhchapKey[DHHC-1:02, 48 bytes]").doesNotContain(body);
        assertThat(k.toString()).doesNotContain(HexFormat.of().formatHex(secretOf(CLI_02)).substring(0, 16));
        k.destroy();
        assertThat(k.isDestroyed()).isTrue();
        assertThat(k.toString()).isEqualTo("DhchapKey[DHHC-1:02, 48 bytes, destroyed]");
        assertThatThrownBy(() -> k.transform(NQN)).hasMessage("DHHC-1 key: destroyed");
        assertThatThrownBy(k::representation).isInstanceOf(IllegalStateException.class);
    }

    private static void assertRefused(String representation, String messageStart) {
        assertThatThrownBy(() -> DhchapKey.parse(representation))
                .isInstanceOf(IllegalArgumentException.class)
                .hasNoCause()
                .satisfies(e -> {
                    assertThat(e.getMessage()).startsWith(messageStart).doesNotContain("\n");
                    String[] parts = representation.split(":");
                    if (parts.length > 2 && parts[2].length() > 4) {
                        assertThat(e.getMessage()).doesNotContain(parts[2]).doesNotContain(parts[2].substring(0, 5));
                    }
                });
    }

    /** The raw bytes a DHHC-1 string carries (base64 decoded, CRC dropped), decoded here independently. */
    static byte[] secretOf(String representation) {
        byte[] raw = Base64.getDecoder().decode(representation.split(":")[2]);
        return Arrays.copyOf(raw, raw.length - 4);
    }

    static byte[] sequence(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) i;
        }
        return b;
    }
}
