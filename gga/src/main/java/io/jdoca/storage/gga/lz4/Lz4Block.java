package io.jdoca.storage.gga.lz4;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * The LZ4 block format (lz4 {@code doc/lz4_Block_format.md}): sequences of a token (literal length
 * in the high nibble, match length − 4 in the low nibble, 15 meaning "more bytes of 255 follow"),
 * literals, a 2-byte little-endian match offset and the extra match-length bytes; the last sequence
 * holds literals only. Works on {@link MemorySegment}s at absolute offsets, so neither direction
 * allocates.
 *
 * <p>The compressor is a greedy single-probe hash matcher, i.e. LZ4's "fast" level 1 strategy
 * (what DOCA's {@code lz4_sw_context} asks liblz4 for). The decompressor is the safe kind: every
 * length and offset is checked against both buffers, so any input, however malformed, returns an
 * error code instead of reading or writing out of bounds.
 *
 * <p>An instance owns the compressor's hash table: one instance per thread. The static
 * {@link #decompress} is stateless and thread-safe.
 */
public final class Lz4Block {
    /** Block format: a match is at least 4 bytes long. */
    static final int MIN_MATCH = 4;
    /** Block format: the last 5 bytes are always literals. */
    static final int LAST_LITERALS = 5;
    /** Block format: the last match must start at least 12 bytes before the end. */
    static final int MF_LIMIT = 12;
    /** Block format: offsets are u16, so matches reach back at most 65535 bytes. */
    static final int MAX_DISTANCE = 65_535;
    /** Returned when the output does not fit or the input is malformed. */
    public static final int ERROR = -1;

    private static final int HASH_LOG = 12;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    private final int[] table = new int[1 << HASH_LOG];

    /** Worst-case compressed size of {@code len} input bytes (LZ4_COMPRESSBOUND). */
    public static int maxCompressedLength(int len) {
        return len + len / 255 + 16;
    }

    private static int hash(int v) {
        return (v * -1640531535) >>> (32 - HASH_LOG);
    }

    /**
     * Compresses {@code len} bytes at {@code src[srcOff]} into at most {@code cap} bytes at
     * {@code dst[dstOff]}; returns the compressed size, or {@link #ERROR} if it does not fit.
     * Allocation-free.
     */
    public int compress(MemorySegment src, long srcOff, int len, MemorySegment dst, long dstOff, int cap) {
        int op = 0;
        int anchor = 0;
        if (len >= MF_LIMIT + 1) {
            Arrays.fill(table, -1);
            int limit = len - MF_LIMIT;
            int matchLimit = len - LAST_LITERALS;
            int ip = 1;
            table[hash(src.get(INT, srcOff))] = 0;
            int misses = 0;
            while (ip < limit) {
                int seq = src.get(INT, srcOff + ip);
                int h = hash(seq);
                int ref = table[h];
                table[h] = ip;
                if (ref < 0 || ip - ref > MAX_DISTANCE || src.get(INT, srcOff + ref) != seq) {
                    // LZ4's acceleration: skip faster through incompressible data.
                    ip += 1 + (misses++ >> 6);
                    continue;
                }
                misses = 0;
                while (ip > anchor && ref > 0 && src.get(BYTE, srcOff + ip - 1) == src.get(BYTE, srcOff + ref - 1)) {
                    ip--;
                    ref--;
                }
                int mlen = MIN_MATCH;
                while (ip + mlen < matchLimit && src.get(BYTE, srcOff + ip + mlen) == src.get(BYTE, srcOff + ref + mlen)) {
                    mlen++;
                }
                op = emit(src, srcOff + anchor, ip - anchor, ip - ref, mlen, dst, dstOff, op, cap);
                if (op < 0) {
                    return ERROR;
                }
                ip += mlen;
                anchor = ip;
                if (ip - 2 > 0 && ip < limit) {
                    table[hash(src.get(INT, srcOff + ip - 2))] = ip - 2;
                }
            }
        }
        return emit(src, srcOff + anchor, len - anchor, 0, 0, dst, dstOff, op, cap);
    }

    /** Writes one sequence (a literals-only one when {@code mlen == 0}); returns the new output position or ERROR. */
    private static int emit(MemorySegment src, long litOff, int lit, int offset, int mlen, MemorySegment dst, long dstOff,
            int op, int cap) {
        int need = 1 + lit + lit / 255 + 1 + (mlen == 0 ? 0 : 2 + (mlen - MIN_MATCH) / 255 + 1);
        if (op + need > cap) {
            // Exact accounting only matters near the end; the estimate above is an upper bound.
            if (op + exactSize(lit, mlen) > cap) {
                return ERROR;
            }
        }
        int ml = mlen == 0 ? 0 : mlen - MIN_MATCH;
        int token = (Math.min(lit, 15) << 4) | Math.min(ml, 15);
        dst.set(BYTE, dstOff + op++, (byte) token);
        op = writeLength(lit, dst, dstOff, op);
        MemorySegment.copy(src, litOff, dst, dstOff + op, lit);
        op += lit;
        if (mlen != 0) {
            dst.set(SHORT_LE, dstOff + op, (short) offset);
            op += 2;
            op = writeLength(ml, dst, dstOff, op);
        }
        return op;
    }

    private static int exactSize(int lit, int mlen) {
        int n = 1 + lit + (lit >= 15 ? (lit - 15) / 255 + 1 : 0);
        if (mlen != 0) {
            int ml = mlen - MIN_MATCH;
            n += 2 + (ml >= 15 ? (ml - 15) / 255 + 1 : 0);
        }
        return n;
    }

    private static int writeLength(int n, MemorySegment dst, long dstOff, int op) {
        if (n >= 15) {
            int rest = n - 15;
            while (rest >= 255) {
                dst.set(BYTE, dstOff + op++, (byte) 255);
                rest -= 255;
            }
            dst.set(BYTE, dstOff + op++, (byte) rest);
        }
        return op;
    }

    /**
     * Decompresses one LZ4 block of {@code srcLen} bytes into at most {@code cap} bytes; returns the
     * decompressed size, or {@link #ERROR} for malformed input or output that does not fit. Never
     * touches memory outside {@code [srcOff, srcOff + srcLen)} and {@code [dstOff, dstOff + cap)}.
     * Allocation-free and stateless.
     */
    public static int decompress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int cap) {
        int ip = 0;
        int op = 0;
        while (true) {
            if (ip >= srcLen) {
                return ERROR;
            }
            int token = src.get(BYTE, srcOff + ip++) & 0xFF;
            long lit = token >>> 4;
            if (lit == 15) {
                int b;
                do {
                    if (ip >= srcLen) {
                        return ERROR;
                    }
                    b = src.get(BYTE, srcOff + ip++) & 0xFF;
                    lit += b;
                } while (b == 255 && lit <= srcLen);
            }
            if (ip + lit > srcLen || op + lit > cap) {
                return ERROR;
            }
            MemorySegment.copy(src, srcOff + ip, dst, dstOff + op, lit);
            ip += (int) lit;
            op += (int) lit;
            if (ip == srcLen) {
                return op; // the last sequence has no match part
            }
            if (ip + 2 > srcLen) {
                return ERROR;
            }
            int offset = src.get(SHORT_LE, srcOff + ip) & 0xFFFF;
            ip += 2;
            if (offset == 0 || offset > op) {
                return ERROR;
            }
            long mlen = token & 15;
            if (mlen == 15) {
                int b;
                do {
                    if (ip >= srcLen) {
                        return ERROR;
                    }
                    b = src.get(BYTE, srcOff + ip++) & 0xFF;
                    mlen += b;
                } while (b == 255 && mlen <= cap);
            }
            mlen += MIN_MATCH;
            if (op + mlen > cap) {
                return ERROR;
            }
            long from = dstOff + op - offset;
            if (offset >= mlen) {
                MemorySegment.copy(dst, from, dst, dstOff + op, mlen);
            } else {
                // Overlapping match (a repeat of the last `offset` bytes): copy period by period;
                // each piece reads only bytes already written.
                long done = 0;
                while (done < mlen) {
                    long n = Math.min(offset, mlen - done);
                    MemorySegment.copy(dst, from + done, dst, dstOff + op + done, n);
                    done += n;
                }
            }
            op += (int) mlen;
        }
    }
}
