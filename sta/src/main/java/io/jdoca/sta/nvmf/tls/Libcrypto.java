package io.jdoca.sta.nvmf.tls;

import io.jdoca.sta.config.StaProperties;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The java.lang.foreign binding to OpenSSL's libcrypto ({@code libcrypto.so.3}, Debian {@code libssl3}; override
 * with {@code -Djdoca.sta.tls.libcrypto=PATH}): the EVP cipher calls {@link OpenSslGcm} makes, and every constant
 * it passes, live here and nowhere else ({@code LibcryptoHeaderTest} checks them, and the signatures bound by
 * hand, against the installed {@code openssl/evp.h}). Pointers are passed as 64-bit addresses, so a call on
 * off-heap memory needs no MemorySegment and allocates nothing. The per-record calls are critical downcalls: none
 * blocks, takes a lock or calls back (the cipher and key are set once per context, outside them), and skipping
 * the thread-state transition is what keeps five calls per record cheap next to a small record's encryption.
 * The {@code *Heap} variants take heap segments (critical with heap access), for callers whose data is in arrays.
 *
 * <p>When the library is missing, {@link #available()} is false and {@link #unavailableReason()} says why in one
 * line; the binding methods must not be called then.
 *
 * <p>Thread-safe: static handles; an {@code EVP_CIPHER_CTX} belongs to one thread at a time (its owner's).
 */
// FFM: this class is a native binding; its downcall handles and reinterpreted segments are the point
@SuppressWarnings("restricted")
final class Libcrypto {
    /** {@code EVP_CTRL_AEAD_SET_IVLEN} (= {@code EVP_CTRL_GCM_SET_IVLEN}), {@code openssl/evp.h}. */
    static final int EVP_CTRL_AEAD_SET_IVLEN = 0x9;
    /** {@code EVP_CTRL_AEAD_GET_TAG} (= {@code EVP_CTRL_GCM_GET_TAG}). */
    static final int EVP_CTRL_AEAD_GET_TAG = 0x10;
    /** {@code EVP_CTRL_AEAD_SET_TAG} (= {@code EVP_CTRL_GCM_SET_TAG}). */
    static final int EVP_CTRL_AEAD_SET_TAG = 0x11;
    /** {@code OPENSSL_VERSION}, {@code OpenSSL_version}'s argument for the version text ({@code openssl/crypto.h}). */
    static final int OPENSSL_VERSION = 0;

    private static final String LOAD_ERROR;
    private static final String VERSION;
    private static final MethodHandle CTX_NEW;
    private static final MethodHandle CTX_FREE;
    private static final MethodHandle AES_128_GCM;
    private static final MethodHandle AES_256_GCM;
    private static final MethodHandle ENCRYPT_INIT;
    private static final MethodHandle DECRYPT_INIT;
    private static final MethodHandle ENCRYPT_UPDATE;
    private static final MethodHandle DECRYPT_UPDATE;
    private static final MethodHandle ENCRYPT_UPDATE_HEAP;
    private static final MethodHandle DECRYPT_UPDATE_HEAP;
    private static final MethodHandle ENCRYPT_FINAL;
    private static final MethodHandle DECRYPT_FINAL;
    private static final MethodHandle CTX_CTRL;
    private static final MethodHandle ERR_CLEAR;
    private static final MethodHandle ZALLOC;
    private static final MethodHandle FREE;

    static {
        MethodHandle[] h = new MethodHandle[16];
        String err = null;
        String version = null;
        String lib = StaProperties.TLS_LIBCRYPTO.asString();
        try {
            Linker l = Linker.nativeLinker();
            SymbolLookup c = SymbolLookup.libraryLookup(lib, Arena.global());
            ValueLayout.OfLong p = ValueLayout.JAVA_LONG; // pointers as addresses: no MemorySegment per call
            ValueLayout.OfInt i = ValueLayout.JAVA_INT;
            ValueLayout a = ValueLayout.ADDRESS; // the heap variants' data pointers
            Linker.Option crit = Linker.Option.critical(false);
            Linker.Option critHeap = Linker.Option.critical(true);
            h[0] = l.downcallHandle(c.findOrThrow("EVP_CIPHER_CTX_new"), FunctionDescriptor.of(p));
            h[1] = l.downcallHandle(c.findOrThrow("EVP_CIPHER_CTX_free"), FunctionDescriptor.ofVoid(p));
            h[2] = l.downcallHandle(c.findOrThrow("EVP_aes_128_gcm"), FunctionDescriptor.of(p));
            h[3] = l.downcallHandle(c.findOrThrow("EVP_aes_256_gcm"), FunctionDescriptor.of(p));
            FunctionDescriptor init = FunctionDescriptor.of(i, p, p, p, p, p);
            h[4] = l.downcallHandle(c.findOrThrow("EVP_EncryptInit_ex"), init, crit);
            h[5] = l.downcallHandle(c.findOrThrow("EVP_DecryptInit_ex"), init, crit);
            FunctionDescriptor update = FunctionDescriptor.of(i, p, p, p, p, i);
            h[6] = l.downcallHandle(c.findOrThrow("EVP_EncryptUpdate"), update, crit);
            h[7] = l.downcallHandle(c.findOrThrow("EVP_DecryptUpdate"), update, crit);
            FunctionDescriptor updateHeap = FunctionDescriptor.of(i, p, a, p, a, i);
            h[8] = l.downcallHandle(c.findOrThrow("EVP_EncryptUpdate"), updateHeap, critHeap);
            h[9] = l.downcallHandle(c.findOrThrow("EVP_DecryptUpdate"), updateHeap, critHeap);
            h[10] = l.downcallHandle(c.findOrThrow("EVP_EncryptFinal_ex"), FunctionDescriptor.of(i, p, p, p), crit);
            h[11] = l.downcallHandle(c.findOrThrow("EVP_DecryptFinal_ex"), FunctionDescriptor.of(i, p, p, p), crit);
            h[12] = l.downcallHandle(c.findOrThrow("EVP_CIPHER_CTX_ctrl"), FunctionDescriptor.of(i, p, i, i, p),
                    crit);
            h[13] = l.downcallHandle(c.findOrThrow("ERR_clear_error"), FunctionDescriptor.ofVoid(), crit);
            h[14] = l.downcallHandle(c.findOrThrow("CRYPTO_zalloc"), FunctionDescriptor.of(p, p, p, i));
            h[15] = l.downcallHandle(c.findOrThrow("CRYPTO_free"), FunctionDescriptor.ofVoid(p, p, i));
            MethodHandle v = l.downcallHandle(c.findOrThrow("OpenSSL_version"), FunctionDescriptor.of(p, i));
            long s = (long) v.invokeExact(OPENSSL_VERSION);
            version = s == 0 ? "OpenSSL" : MemorySegment.ofAddress(s).reinterpret(256).getString(0);
            if ((long) h[2].invokeExact() == 0 || (long) h[3].invokeExact() == 0) {
                throw new UnsupportedOperationException("no AES-GCM in " + version);
            }
        } catch (Throwable t) {
            err = (t.getMessage() == null ? t.toString() : t.getMessage()).replace('\n', ' ');
        }
        LOAD_ERROR = err == null ? null : "libcrypto unavailable (" + lib + ": " + err + "; Debian: libssl3)";
        VERSION = version;
        CTX_NEW = h[0];
        CTX_FREE = h[1];
        AES_128_GCM = h[2];
        AES_256_GCM = h[3];
        ENCRYPT_INIT = h[4];
        DECRYPT_INIT = h[5];
        ENCRYPT_UPDATE = h[6];
        DECRYPT_UPDATE = h[7];
        ENCRYPT_UPDATE_HEAP = h[8];
        DECRYPT_UPDATE_HEAP = h[9];
        ENCRYPT_FINAL = h[10];
        DECRYPT_FINAL = h[11];
        CTX_CTRL = h[12];
        ERR_CLEAR = h[13];
        ZALLOC = h[14];
        FREE = h[15];
    }

    private Libcrypto() {
    }

    /** True when libcrypto was loaded and every symbol bound. */
    static boolean available() {
        return LOAD_ERROR == null;
    }

    /** Why {@link #available()} is false, in one line; null when available. */
    static String unavailableReason() {
        return LOAD_ERROR;
    }

    /** The library's own version text, e.g. "OpenSSL 3.0.20 7 Apr 2026"; null when unavailable. */
    static String version() {
        return VERSION;
    }

    private static AssertionError fail(Throwable t) {
        return new AssertionError("libcrypto downcall failed", t);
    }

    // ---- control path: one context per direction of a connection

    /** {@code EVP_CIPHER_CTX_new()}: 0 when out of memory. */
    static long ctxNew() {
        try {
            return (long) CTX_NEW.invokeExact();
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static void ctxFree(long ctx) {
        try {
            CTX_FREE.invokeExact(ctx);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code EVP_aes_128_gcm()} or {@code EVP_aes_256_gcm()} by key length (16 or 32 bytes). */
    static long aesGcm(int keyLen) {
        try {
            return keyLen == 32 ? (long) AES_256_GCM.invokeExact() : (long) AES_128_GCM.invokeExact();
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /**
     * {@code OPENSSL_zalloc(size)}: zeroed native memory that {@link #free} gives back, as a segment of that size
     * (null when out of memory). Not an arena's: its owner frees it on whichever thread closes it.
     */
    static MemorySegment zalloc(long size) {
        try {
            long a = (long) ZALLOC.invokeExact(size, 0L, 0);
            return a == 0 ? null : MemorySegment.ofAddress(a).reinterpret(size);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code OPENSSL_free(address)}. */
    static void free(long address) {
        try {
            FREE.invokeExact(address, 0L, 0);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    // ---- per record (critical)

    /** {@code EVP_EncryptInit_ex(ctx, cipher, NULL, key, iv)}; 0 pointers leave that part as it was. */
    static int encryptInit(long ctx, long cipher, long key, long iv) {
        try {
            return (int) ENCRYPT_INIT.invokeExact(ctx, cipher, 0L, key, iv);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code EVP_DecryptInit_ex(ctx, cipher, NULL, key, iv)}. */
    static int decryptInit(long ctx, long cipher, long key, long iv) {
        try {
            return (int) DECRYPT_INIT.invokeExact(ctx, cipher, 0L, key, iv);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code EVP_EncryptUpdate}: {@code out} 0 feeds {@code in} as additional authenticated data. */
    static int encryptUpdate(long ctx, long out, long outl, long in, int inl) {
        try {
            return (int) ENCRYPT_UPDATE.invokeExact(ctx, out, outl, in, inl);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code EVP_DecryptUpdate}: {@code out} 0 feeds {@code in} as additional authenticated data. */
    static int decryptUpdate(long ctx, long out, long outl, long in, int inl) {
        try {
            return (int) DECRYPT_UPDATE.invokeExact(ctx, out, outl, in, inl);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@link #encryptUpdate} on segments, heap ones included. */
    static int encryptUpdateHeap(long ctx, MemorySegment out, long outl, MemorySegment in, int inl) {
        try {
            return (int) ENCRYPT_UPDATE_HEAP.invokeExact(ctx, out, outl, in, inl);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@link #decryptUpdate} on segments, heap ones included. */
    static int decryptUpdateHeap(long ctx, MemorySegment out, long outl, MemorySegment in, int inl) {
        try {
            return (int) DECRYPT_UPDATE_HEAP.invokeExact(ctx, out, outl, in, inl);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code EVP_EncryptFinal_ex}: GCM writes no bytes there. */
    static int encryptFinal(long ctx, long out, long outl) {
        try {
            return (int) ENCRYPT_FINAL.invokeExact(ctx, out, outl);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code EVP_DecryptFinal_ex}: 1 when the tag set before matches, else 0. */
    static int decryptFinal(long ctx, long out, long outl) {
        try {
            return (int) DECRYPT_FINAL.invokeExact(ctx, out, outl);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code EVP_CIPHER_CTX_ctrl(ctx, type, arg, ptr)}. */
    static int ctrl(long ctx, int type, int arg, long ptr) {
        try {
            return (int) CTX_CTRL.invokeExact(ctx, type, arg, ptr);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code ERR_clear_error()}: what a failed call left in this thread's error queue. */
    static void clearErrors() {
        try {
            ERR_CLEAR.invokeExact();
        } catch (Throwable t) {
            throw fail(t);
        }
    }
}
