package io.jdoca.sta.nvmf.tls;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-GCM (NIST SP 800-38D) for TLS records without a per-record cipher initialisation: the JDK's AES in ECB mode,
 * keyed once, makes the counter-mode keystream in batches, and GHASH is computed here with Shoup's 4-bit tables
 * (made once per key) to build, once per key, a table of H times every nibble at every position (8 KiB), so one
 * GHASH step is 32 look-ups. So sealing and opening a record allocate nothing. 96-bit nonces, 128-bit tags.
 * The {@link TlsAead} used when OpenSSL's libcrypto cannot be loaded: {@link OpenSslGcm} seals 16 KiB records
 * about 14× faster ({@code TlsAeadBenchmarks}: the JDK's AES is fast, this GHASH is not).
 *
 * <p>Not thread-safe: one per direction of a connection.
 */
final class AesGcm implements TlsAead {
    private static final int BATCH = 64; // keystream blocks per AES call
    private static final long R = 0xE100000000000000L;
    private static final long[] LAST4 = new long[16];
    private static final VarHandle BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    static {
        for (int i = 0; i < 16; i++) {
            long v = 0;
            for (int b = 0; b < 4; b++) {
                if ((i & (1 << b)) != 0) {
                    v ^= R >>> (3 - b);
                }
            }
            LAST4[i] = v;
        }
    }

    private final Cipher ecb;
    private final long[] hh = new long[16];
    private final long[] hl = new long[16];
    /** x · H for x = nibble n at nibble position j (0: the most significant): index 16 j + n. */
    private final long[] th = new long[512];
    private final long[] tl = new long[512];
    private final byte[] ctr = new byte[16 * BATCH];
    private final byte[] ks = new byte[16 * BATCH];
    private final byte[] j0 = new byte[16];
    private final byte[] ej0 = new byte[16];
    private final byte[] block = new byte[16];
    private final byte[] tag = new byte[16];
    private long yHi;
    private long yLo;

    AesGcm(byte[] key) throws IOException {
        try {
            ecb = Cipher.getInstance("AES/ECB/NoPadding");
            ecb.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"));
            byte[] h = new byte[16];
            ecb.doFinal(h, 0, 16, h, 0);
            long vh = getLong(h, 0);
            long vl = getLong(h, 8);
            hl[8] = vl;
            hh[8] = vh;
            for (int i = 4; i > 0; i >>>= 1) {
                long t = (vl & 1) * R;
                vl = (vh << 63) | (vl >>> 1);
                vh = (vh >>> 1) ^ t;
                hl[i] = vl;
                hh[i] = vh;
            }
            for (int i = 2; i <= 8; i *= 2) {
                for (int j = 1; j < i; j++) {
                    hh[i + j] = hh[i] ^ hh[j];
                    hl[i + j] = hl[i] ^ hl[j];
                }
            }
            for (int j = 0; j < 32; j++) {
                for (int n = 0; n < 16; n++) {
                    yHi = 0;
                    yLo = 0;
                    multiply(j < 16 ? (long) n << (4 * (15 - j)) : 0, j < 16 ? 0 : (long) n << (4 * (31 - j)));
                    th[16 * j + n] = yHi;
                    tl[16 * j + n] = yLo;
                }
            }
        } catch (GeneralSecurityException e) {
            throw new IOException("AES unavailable: " + e.getClass().getSimpleName(), e);
        }
    }

    private static long getLong(byte[] b, int o) {
        return (long) BE.get(b, o);
    }

    private static void putLong(byte[] b, int o, long v) {
        for (int i = 7; i >= 0; i--) {
            b[o + i] = (byte) v;
            v >>>= 8;
        }
    }

    /** Y = (Y ^ X) * H, X the 16 bytes (hi, lo), by the nibble table. */
    private void ghash(long xHi, long xLo) {
        long zh = yHi ^ xHi;
        long zl = yLo ^ xLo;
        long rh = 0;
        long rl = 0;
        for (int j = 0; j < 16; j++) {
            int k = 16 * j + (int) ((zh >>> (4 * (15 - j))) & 0xf);
            rh ^= th[k];
            rl ^= tl[k];
        }
        for (int j = 16; j < 32; j++) {
            int k = 16 * j + (int) ((zl >>> (4 * (31 - j))) & 0xf);
            rh ^= th[k];
            rl ^= tl[k];
        }
        yHi = rh;
        yLo = rl;
    }

    /** Y = (Y ^ X) * H by Shoup's 4-bit method (builds the nibble table). */
    private void multiply(long xHi, long xLo) {
        long zh = yHi ^ xHi;
        long zl = yLo ^ xLo;
        long rh = 0;
        long rl = 0;
        long w = zl;
        for (int i = 15; i >= 0; i--) {
            if (i == 7) {
                w = zh;
            }
            int b = (int) (w & 0xff);
            w >>>= 8;
            int n = b & 0xf;
            if (i != 15) {
                int rem = (int) (rl & 0xf);
                rl = (rh << 60) | (rl >>> 4);
                rh = (rh >>> 4) ^ LAST4[rem];
            }
            rh ^= hh[n];
            rl ^= hl[n];
            n = b >>> 4;
            int rem = (int) (rl & 0xf);
            rl = (rh << 60) | (rl >>> 4);
            rh = (rh >>> 4) ^ LAST4[rem];
            rh ^= hh[n];
            rl ^= hl[n];
        }
        yHi = rh;
        yLo = rl;
    }

    private void start(byte[] nonce, byte[] aad) throws GeneralSecurityException {
        System.arraycopy(nonce, 0, j0, 0, 12);
        j0[12] = 0;
        j0[13] = 0;
        j0[14] = 0;
        j0[15] = 1;
        ecb.update(j0, 0, 16, ej0, 0);
        yHi = 0;
        yLo = 0;
        for (int at = 0; at < aad.length; at += 16) { // a TLS record's is 5 bytes: one block
            for (int i = 0; i < 16; i++) {
                block[i] = at + i < aad.length ? aad[at + i] : 0;
            }
            ghash(getLong(block, 0), getLong(block, 8));
        }
    }

    /** Makes the keystream for the blocks starting at counter {@code first} (1-based after J0). */
    private int keystream(int first, int blocks) throws GeneralSecurityException {
        int n = Math.min(blocks, BATCH);
        for (int i = 0; i < n; i++) {
            int c = first + i + 2; // J0 + 1 is the first data block's counter
            int o = 16 * i;
            System.arraycopy(j0, 0, ctr, o, 12);
            ctr[o + 12] = (byte) (c >>> 24);
            ctr[o + 13] = (byte) (c >>> 16);
            ctr[o + 14] = (byte) (c >>> 8);
            ctr[o + 15] = (byte) c;
        }
        ecb.update(ctr, 0, 16 * n, ks, 0);
        return n;
    }

    /**
     * Transforms {@code len} bytes from {@code src} (absolute {@code srcOff}) into {@code dst} (absolute
     * {@code dstOff}), hashing the ciphertext: {@code encrypt} hashes the output, else the input.
     */
    private void crypt(ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len, boolean encrypt)
            throws GeneralSecurityException {
        int done = 0;
        int blockNo = 0;
        while (done < len) {
            int blocks = keystream(blockNo, (len - done + 15) / 16);
            for (int b = 0; b < blocks && done < len; b++, blockNo++) {
                int n = Math.min(16, len - done);
                if (n == 16 && src.order() == ByteOrder.BIG_ENDIAN && dst.order() == ByteOrder.BIG_ENDIAN) {
                    long inHi = src.getLong(srcOff + done);
                    long inLo = src.getLong(srcOff + done + 8);
                    long outHi = inHi ^ getLong(ks, 16 * b);
                    long outLo = inLo ^ getLong(ks, 16 * b + 8);
                    dst.putLong(dstOff + done, outHi);
                    dst.putLong(dstOff + done + 8, outLo);
                    if (encrypt) {
                        ghash(outHi, outLo);
                    } else {
                        ghash(inHi, inLo);
                    }
                    done += 16;
                    continue;
                }
                for (int i = 0; i < n; i++) {
                    byte in = src.get(srcOff + done + i);
                    byte out = (byte) (in ^ ks[16 * b + i]);
                    dst.put(dstOff + done + i, out);
                    block[i] = encrypt ? out : in;
                }
                for (int i = n; i < 16; i++) {
                    block[i] = 0;
                }
                ghash(getLong(block, 0), getLong(block, 8));
                done += n;
            }
        }
    }

    private void finish(int aadLen, int len) {
        ghash((long) aadLen * 8, (long) len * 8);
        putLong(tag, 0, yHi);
        putLong(tag, 8, yLo);
        for (int i = 0; i < 16; i++) {
            tag[i] ^= ej0[i];
        }
    }

    @Override
    public void seal(byte[] nonce, byte[] aad, ByteBuffer src, int srcOff, int len, ByteBuffer dst, int dstOff)
            throws IOException {
        try {
            start(nonce, aad);
            crypt(src, srcOff, dst, dstOff, len, true);
            finish(aad.length, len);
            for (int i = 0; i < 16; i++) {
                dst.put(dstOff + len + i, tag[i]);
            }
        } catch (GeneralSecurityException e) {
            throw new IOException("AES failed: " + e.getClass().getSimpleName(), e);
        }
    }

    @Override
    public boolean open(byte[] nonce, byte[] aad, ByteBuffer src, int srcOff, int len, ByteBuffer dst, int dstOff)
            throws IOException {
        try {
            start(nonce, aad);
            crypt(src, srcOff, dst, dstOff, len, false);
            finish(aad.length, len);
            for (int i = 0; i < 16; i++) {
                block[i] = src.get(srcOff + len + i);
            }
            return MessageDigest.isEqual(block, tag);
        } catch (GeneralSecurityException e) {
            throw new IOException("AES failed: " + e.getClass().getSimpleName(), e);
        }
    }

    @Override
    public String engine() {
        return "java";
    }

    /** Nothing outside the heap to free. */
    @Override
    public void close() {
    }
}
