package io.jdoca.sta.nvmf.tls;

import java.io.ByteArrayOutputStream;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HKDF (RFC 5869) and TLS 1.3's HKDF-Expand-Label (RFC 8446 §7.1) over the JDK's HMAC, with the NVMe hash
 * ids (01 SHA-256, 02 SHA-384): what the PSK derivations of {@link NvmeTlsKey} use. Control path only
 * (it allocates).
 *
 * <p>Stateless; any thread.
 */
final class TlsHkdf {
    private TlsHkdf() {
    }

    /** The output length of hash id {@code hash}: 32 or 48. */
    static int hashLength(int hash) {
        return hash == NvmeTlsKey.HASH_SHA384 ? 48 : 32;
    }

    private static String alg(int hash) {
        return hash == NvmeTlsKey.HASH_SHA384 ? "HmacSHA384" : "HmacSHA256";
    }

    /** HKDF-Extract(salt = hash-length zeros, ikm). */
    static byte[] extract(int hash, byte[] ikm) {
        return hmac(hash, new byte[hashLength(hash)], ikm);
    }

    /**
     * HKDF-Expand-Label(prk, label, context, length): info = uint16 length, then "tls13 " + label and context,
     * each with an 8-bit length prefix.
     */
    static byte[] expandLabel(int hash, byte[] prk, String label, byte[] context, int length) {
        byte[] l = NvmeTlsKey.ascii("tls13 " + label);
        if (l.length > 255 || context.length > 255) {
            throw new IllegalArgumentException("HKDF label or context longer than 255 bytes");
        }
        ByteArrayOutputStream info = new ByteArrayOutputStream();
        info.write(length >>> 8);
        info.write(length & 0xff);
        info.write(l.length);
        info.writeBytes(l);
        info.write(context.length);
        info.writeBytes(context);
        return expand(hash, prk, info.toByteArray(), length);
    }

    /** HKDF-Expand(prk, info, length). */
    static byte[] expand(int hash, byte[] prk, byte[] info, int length) {
        byte[] out = new byte[length];
        byte[] t = new byte[0];
        int done = 0;
        for (int i = 1; done < length; i++) {
            byte[] in = Arrays.copyOf(t, t.length + info.length + 1);
            System.arraycopy(info, 0, in, t.length, info.length);
            in[in.length - 1] = (byte) i;
            t = hmac(hash, prk, in);
            int n = Math.min(t.length, length - done);
            System.arraycopy(t, 0, out, done, n);
            done += n;
        }
        Arrays.fill(t, (byte) 0);
        return out;
    }

    private static byte[] hmac(int hash, byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance(alg(hash));
            mac.init(new SecretKeySpec(key, alg(hash)));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC unavailable: " + e.getClass().getSimpleName(), e);
        }
    }
}
