package io.jdoca.sta.nvmf.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.CProgram;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The constants {@link Libcrypto} passes, checked against the installed {@code openssl/evp.h} and
 * {@code openssl/crypto.h}: a C program prints what the headers define (the GCM names and the AEAD names they
 * alias, both); the signatures bound by hand are static assertions in it (a mismatch fails the compile). Skipped,
 * with one line, without the headers (Debian libssl-dev) or a C compiler.
 */
class LibcryptoHeaderTest {
    private static final String C = """
            #include <openssl/evp.h>
            #include <openssl/crypto.h>
            #include <openssl/err.h>
            #include <stdio.h>
            #define P(n, v) printf("%s %ld\\n", n, (long) (v))
            /* the signatures Libcrypto binds by hand (pointers and int): a mismatch fails the compile */
            #define SIG(f, t) _Static_assert(__builtin_types_compatible_p(__typeof__(&f), t), #f)
            SIG(EVP_CIPHER_CTX_new, EVP_CIPHER_CTX *(*)(void));
            SIG(EVP_CIPHER_CTX_free, void (*)(EVP_CIPHER_CTX *));
            SIG(EVP_aes_128_gcm, const EVP_CIPHER *(*)(void));
            SIG(EVP_aes_256_gcm, const EVP_CIPHER *(*)(void));
            SIG(EVP_EncryptInit_ex, int (*)(EVP_CIPHER_CTX *, const EVP_CIPHER *, ENGINE *,
                    const unsigned char *, const unsigned char *));
            SIG(EVP_DecryptInit_ex, int (*)(EVP_CIPHER_CTX *, const EVP_CIPHER *, ENGINE *,
                    const unsigned char *, const unsigned char *));
            SIG(EVP_EncryptUpdate, int (*)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *, int));
            SIG(EVP_DecryptUpdate, int (*)(EVP_CIPHER_CTX *, unsigned char *, int *, const unsigned char *, int));
            SIG(EVP_EncryptFinal_ex, int (*)(EVP_CIPHER_CTX *, unsigned char *, int *));
            SIG(EVP_DecryptFinal_ex, int (*)(EVP_CIPHER_CTX *, unsigned char *, int *));
            SIG(EVP_CIPHER_CTX_ctrl, int (*)(EVP_CIPHER_CTX *, int, int, void *));
            SIG(ERR_clear_error, void (*)(void));
            SIG(OpenSSL_version, const char *(*)(int));
            SIG(CRYPTO_zalloc, void *(*)(size_t, const char *, int));
            SIG(CRYPTO_free, void (*)(void *, const char *, int));
            int main(void) {
                P("EVP_CTRL_AEAD_SET_IVLEN", EVP_CTRL_AEAD_SET_IVLEN);
                P("EVP_CTRL_GCM_SET_IVLEN", EVP_CTRL_GCM_SET_IVLEN);
                P("EVP_CTRL_AEAD_GET_TAG", EVP_CTRL_AEAD_GET_TAG);
                P("EVP_CTRL_GCM_GET_TAG", EVP_CTRL_GCM_GET_TAG);
                P("EVP_CTRL_AEAD_SET_TAG", EVP_CTRL_AEAD_SET_TAG);
                P("EVP_CTRL_GCM_SET_TAG", EVP_CTRL_GCM_SET_TAG);
                P("OPENSSL_VERSION", OPENSSL_VERSION);
                return 0;
            }
            """;

    @Test
    void constantsAndSignaturesMatchTheInstalledHeaders(@TempDir Path dir) throws IOException, InterruptedException {
        assumeTrue(Files.exists(Path.of("/usr/include/openssl/evp.h")),
                "skipped: no /usr/include/openssl/evp.h (Debian libssl-dev)");
        String out = CProgram.run(dir, "openssl/evp.h", C);
        Map<String, Long> c = new TreeMap<>();
        for (String line : out.split("\n")) {
            String[] kv = line.split(" ");
            c.put(kv[0], Long.parseLong(kv[1]));
        }
        Map<String, Long> java = new TreeMap<>();
        java.put("EVP_CTRL_AEAD_SET_IVLEN", (long) Libcrypto.EVP_CTRL_AEAD_SET_IVLEN);
        java.put("EVP_CTRL_GCM_SET_IVLEN", (long) Libcrypto.EVP_CTRL_AEAD_SET_IVLEN);
        java.put("EVP_CTRL_AEAD_GET_TAG", (long) Libcrypto.EVP_CTRL_AEAD_GET_TAG);
        java.put("EVP_CTRL_GCM_GET_TAG", (long) Libcrypto.EVP_CTRL_AEAD_GET_TAG);
        java.put("EVP_CTRL_AEAD_SET_TAG", (long) Libcrypto.EVP_CTRL_AEAD_SET_TAG);
        java.put("EVP_CTRL_GCM_SET_TAG", (long) Libcrypto.EVP_CTRL_AEAD_SET_TAG);
        java.put("OPENSSL_VERSION", (long) Libcrypto.OPENSSL_VERSION);
        assertThat(java).isEqualTo(c);
    }
}
