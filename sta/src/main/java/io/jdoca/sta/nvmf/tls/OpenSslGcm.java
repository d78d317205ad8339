package io.jdoca.sta.nvmf.tls;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * AES-GCM by OpenSSL's libcrypto ({@link Libcrypto}, the EVP API): one {@code EVP_CIPHER_CTX} keyed once at
 * construction; per record only the nonce is set ({@code EVP_EncryptInit_ex}/{@code EVP_DecryptInit_ex} with no
 * cipher and no key), the additional data and the data go through {@code EVP_*Update}, and the tag through
 * {@code EVP_CIPHER_CTX_ctrl}. Why not the JDK's {@code Cipher}: it needs an {@code init} with a new
 * {@code GCMParameterSpec} per record (it refuses to reuse a nonce), which allocates (about 1.6 KB per record
 * here), and its GHASH intrinsic is not reachable any other way; OpenSSL runs the same instructions (AES-NI,
 * carry-less multiply, constant time) behind a context that is simply re-initialised.
 *
 * <p>The nonce, the additional data, the tag of heap buffers and {@code outl} go through a 128-byte native scratch
 * made once (OpenSSL's allocator, freed with the context: no arena whose owner thread or the GC decides when).
 * Direct buffers are passed as addresses (computed once per buffer: the last four buffers are remembered), so a
 * record allocates nothing; heap buffers as heap segments through critical downcalls (a slice
 * per call, which the JIT may or may not remove). One context serves both directions of the object (seal sets it
 * to encrypt, open to decrypt; the key schedule is the same), though {@code TlsRecords} uses each object in one
 * direction.
 *
 * <p>The context is freed by {@link #close} or, when an owner forgets to close, once the object is unreachable
 * (a {@link Cleaner}). {@link #live()} counts the contexts not yet freed.
 *
 * <p>Not thread-safe: one thread at a time (the connection's owner), which also closes it.
 */
final class OpenSslGcm implements TlsAead {
    /** Frees what an owner forgot to close (a connection dropped on a failure path), once it is unreachable. */
    private static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, "jdoca-tls-ctx-cleaner");
        t.setDaemon(true);
        return t;
    });
    private static final AtomicLong LIVE = new AtomicLong();
    // native scratch: outl (int), nonce (12), tag (16), additional data (at most AAD_MAX)
    private static final int OUTL = 0;
    private static final int IV = 8;
    private static final int TAG = 32;
    private static final int AAD = 48;
    private static final int AAD_MAX = 80;
    private static final int SCRATCH = AAD + AAD_MAX;
    /** Buffers remembered (a connection uses three: the output, the input and the plaintext it opens into). */
    private static final int BUFFERS = 4;

    private static final AtomicLong CLOSED = new AtomicLong();

    /** The context and the scratch, freed once: by close or by the cleaner (never both). */
    private static final class Native implements Runnable {
        private final long ctx;
        private final long scratch;

        Native(long ctx, long scratch) {
            this.ctx = ctx;
            this.scratch = scratch;
        }

        @Override
        public void run() {
            Libcrypto.ctxFree(ctx);
            Libcrypto.free(scratch);
            LIVE.decrementAndGet();
        }
    }

    private final MemorySegment scratch;
    private final long s;
    private final Cleaner.Cleanable cleanable;
    private long ctx;
    /** The last buffers seen, their whole segments and (direct ones) base addresses; round-robin replacement. */
    private final ByteBuffer[] bufs = new ByteBuffer[BUFFERS];
    private final MemorySegment[] segs = new MemorySegment[BUFFERS];
    private final long[] addrs = new long[BUFFERS];
    private int nextSlot;

    OpenSslGcm(byte[] key) throws IOException {
        if (key.length != 16 && key.length != 32) {
            throw new IllegalArgumentException("AES-GCM key of " + key.length + " bytes (16 or 32)");
        }
        MemorySegment sc = Libcrypto.zalloc(SCRATCH);
        long c = sc == null ? 0 : Libcrypto.ctxNew();
        if (c == 0) {
            if (sc != null) {
                Libcrypto.free(sc.address());
            }
            throw new IOException("OpenSSL: out of memory for an AES-GCM context");
        }
        scratch = sc;
        s = sc.address();
        LIVE.incrementAndGet();
        cleanable = CLEANER.register(this, new Native(c, s));
        MemorySegment.copy(key, 0, scratch, ValueLayout.JAVA_BYTE, AAD, key.length); // the key's only native copy
        boolean ok = Libcrypto.encryptInit(c, Libcrypto.aesGcm(key.length), 0, 0) == 1
                && Libcrypto.ctrl(c, Libcrypto.EVP_CTRL_AEAD_SET_IVLEN, 12, 0) == 1
                && Libcrypto.encryptInit(c, 0, s + AAD, 0) == 1;
        scratch.asSlice(AAD, key.length).fill((byte) 0);
        if (!ok) {
            Libcrypto.clearErrors();
            cleanable.clean();
            throw new IOException("OpenSSL: AES-" + 8 * key.length + "-GCM key setup failed");
        }
        ctx = c;
    }

    /** Contexts made and not yet freed, in this process. */
    static long live() {
        return LIVE.get();
    }

    /** Contexts freed by {@link #close} (not by the cleaner), in this process. */
    static long closed() {
        return CLOSED.get();
    }

    @Override
    public String engine() {
        return "openssl";
    }

    private static void check(ByteBuffer b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.limit());
    }

    /**
     * The slot of {@code b}: found by identity, else made (a segment of the whole buffer, allocated once per
     * buffer); the slot just made is never the next one replaced, so two calls in a row keep both.
     */
    private int slot(ByteBuffer b) {
        for (int i = 0; i < BUFFERS; i++) {
            if (bufs[i] == b) {
                return i;
            }
        }
        int i = nextSlot;
        nextSlot = (i + 1) % BUFFERS;
        bufs[i] = b;
        segs[i] = MemorySegment.ofBuffer(b.duplicate().clear());
        addrs[i] = segs[i].isNative() ? segs[i].address() : 0;
        return i;
    }

    /**
     * The context's address after the nonce and the additional data went into the scratch; throws once closed
     * (before touching the scratch, which close freed).
     */
    private long start(byte[] nonce, byte[] aad) throws IOException {
        long c = ctx;
        if (c == 0) {
            throw new IOException("AES-GCM context closed");
        }
        if (nonce.length != 12 || aad.length > AAD_MAX) {
            throw new IllegalArgumentException("nonce of " + nonce.length + " bytes, additional data of "
                    + aad.length + " (12, at most " + AAD_MAX + ")");
        }
        MemorySegment.copy(nonce, 0, scratch, ValueLayout.JAVA_BYTE, IV, 12);
        MemorySegment.copy(aad, 0, scratch, ValueLayout.JAVA_BYTE, AAD, aad.length);
        return c;
    }

    @Override
    public void seal(byte[] nonce, byte[] aad, ByteBuffer src, int srcOff, int len, ByteBuffer dst, int dstOff)
            throws IOException {
        check(src, srcOff, len);
        check(dst, dstOff, len + 16);
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        long c = start(nonce, aad);
        int si = slot(src);
        int di = slot(dst);
        long in = addrs[si];
        long out = addrs[di];
        boolean ok = Libcrypto.encryptInit(c, 0, 0, s + IV) == 1
                && Libcrypto.encryptUpdate(c, 0, s + OUTL, s + AAD, aad.length) == 1;
        if (in != 0 && out != 0) {
            ok = ok && (len == 0 || Libcrypto.encryptUpdate(c, out + dstOff, s + OUTL, in + srcOff, len) == 1)
                    && Libcrypto.encryptFinal(c, s + TAG, s + OUTL) == 1
                    && Libcrypto.ctrl(c, Libcrypto.EVP_CTRL_AEAD_GET_TAG, 16, out + dstOff + len) == 1;
        } else {
            ok = ok && (len == 0 || Libcrypto.encryptUpdateHeap(c, segs[di].asSlice(dstOff, len), s + OUTL,
                    segs[si].asSlice(srcOff, len), len) == 1)
                    && Libcrypto.encryptFinal(c, s + TAG, s + OUTL) == 1
                    && Libcrypto.ctrl(c, Libcrypto.EVP_CTRL_AEAD_GET_TAG, 16, s + TAG) == 1;
            MemorySegment.copy(scratch, TAG, segs[di], dstOff + len, 16);
        }
        Reference.reachabilityFence(src);
        Reference.reachabilityFence(dst);
        Reference.reachabilityFence(this); // else the cleaner could free the context during the calls above
        if (!ok) {
            Libcrypto.clearErrors();
            throw new IOException("OpenSSL: AES-GCM encryption failed");
        }
    }

    @Override
    public boolean open(byte[] nonce, byte[] aad, ByteBuffer src, int srcOff, int len, ByteBuffer dst, int dstOff)
            throws IOException {
        check(src, srcOff, len + 16);
        check(dst, dstOff, len);
        if (dst.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        long c = start(nonce, aad);
        int si = slot(src);
        int di = slot(dst);
        long in = addrs[si];
        long out = addrs[di];
        boolean ok = Libcrypto.decryptInit(c, 0, 0, s + IV) == 1
                && Libcrypto.decryptUpdate(c, 0, s + OUTL, s + AAD, aad.length) == 1;
        if (in != 0 && out != 0) {
            ok = ok && (len == 0 || Libcrypto.decryptUpdate(c, out + dstOff, s + OUTL, in + srcOff, len) == 1)
                    && Libcrypto.ctrl(c, Libcrypto.EVP_CTRL_AEAD_SET_TAG, 16, in + srcOff + len) == 1;
        } else {
            MemorySegment.copy(segs[si], srcOff + len, scratch, TAG, 16);
            ok = ok && (len == 0 || Libcrypto.decryptUpdateHeap(c, segs[di].asSlice(dstOff, len), s + OUTL,
                    segs[si].asSlice(srcOff, len), len) == 1)
                    && Libcrypto.ctrl(c, Libcrypto.EVP_CTRL_AEAD_SET_TAG, 16, s + TAG) == 1;
        }
        int verdict = ok ? Libcrypto.decryptFinal(c, s + TAG, s + OUTL) : 0; // 1: the tag matches
        Reference.reachabilityFence(src);
        Reference.reachabilityFence(dst);
        Reference.reachabilityFence(this); // else the cleaner could free the context during the calls above
        if (!ok) {
            Libcrypto.clearErrors();
            throw new IOException("OpenSSL: AES-GCM decryption failed");
        }
        if (verdict != 1) {
            Libcrypto.clearErrors(); // a forged record: a status, not an exception
            return false;
        }
        return true;
    }

    @Override
    public void close() {
        if (ctx != 0) {
            CLOSED.incrementAndGet();
        }
        ctx = 0;
        java.util.Arrays.fill(bufs, null);
        java.util.Arrays.fill(segs, null);
        cleanable.clean();
    }
}
