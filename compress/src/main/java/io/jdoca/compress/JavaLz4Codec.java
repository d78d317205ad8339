package io.jdoca.compress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * jdoca's own LZ4 block codec in plain Java, the allocation-free pure-Java fallback, and the
 * decoder for two jobs the libraries do not do: decoding <i>dependent</i> blocks of a stream
 * (matches may reach back into earlier blocks' output, which lies just before the block in the
 * destination: {@link #decodeBlock} with a window start), and telling a corrupt block from a
 * too-small destination. Every read and write is bounds-checked against the given ranges: corrupt
 * input yields {@link #ERR_MALFORMED}, never an exception or an out-of-range access. The
 * compressor is LZ4's greedy single-probe hash parse (as LZ4_compress_fast at acceleration 1);
 * its output is standard LZ4 any decoder reads, though not byte-identical to liblz4's.
 * Allocation-free after construction; one thread at a time.
 */
final class JavaLz4Codec implements Lz4Codec {
    private static final ValueLayout.OfByte B = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt I =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final int HASH_LOG = 12;
    /** LZ4 block rules: the last 5 bytes are literals, the last match starts 12 bytes before the end. */
    private static final int LAST_LITERALS = 5;
    private static final int MF_LIMIT = 12;
    private static final int MAX_DISTANCE = 65535;
    private final int[] table = new int[1 << HASH_LOG];

    @Override
    public String name() {
        return "java";
    }

    @Override
    public int compress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        if (srcOff < 0 || srcLen < 0 || srcOff + srcLen > src.byteSize() || dstOff < 0 || dstCap < 0
                || dstOff + dstCap > dst.byteSize()) {
            return ERR_MALFORMED;
        }
        java.util.Arrays.fill(table, -1);
        final int n = srcLen;
        long op = dstOff;
        final long oe = dstOff + dstCap;
        int anchor = 0;
        int ip = 0;
        int searches = 1 << 6;
        if (n >= MF_LIMIT + 1) {
            final int mfLimit = n - MF_LIMIT;
            final int matchLimit = n - LAST_LITERALS;
            while (ip < mfLimit) {
                int seq = src.get(I, srcOff + ip);
                int h = (seq * -1640531535) >>> (32 - HASH_LOG);
                int ref = table[h];
                table[h] = ip;
                if (ref < 0 || ip - ref > MAX_DISTANCE || src.get(I, srcOff + ref) != seq) {
                    ip += searches++ >>> 6; // skip faster through incompressible data, as liblz4 does
                    continue;
                }
                searches = 1 << 6;
                while (ip > anchor && ref > 0 && src.get(B, srcOff + ip - 1) == src.get(B, srcOff + ref - 1)) {
                    ip--;
                    ref--;
                }
                int ml = 4;
                while (ip + ml < matchLimit && src.get(B, srcOff + ip + ml) == src.get(B, srcOff + ref + ml)) {
                    ml++;
                }
                op = emit(src, srcOff + anchor, ip - anchor, ip - ref, ml, dst, op, oe);
                if (op < 0) {
                    return ERR_DST_TOO_SMALL;
                }
                ip += ml;
                anchor = ip;
                if (ip - 2 >= 0 && ip < mfLimit) {
                    table[(src.get(I, srcOff + ip - 2) * -1640531535) >>> (32 - HASH_LOG)] = ip - 2;
                }
            }
        }
        op = emit(src, srcOff + anchor, n - anchor, 0, 0, dst, op, oe);
        return op < 0 ? ERR_DST_TOO_SMALL : (int) (op - dstOff);
    }

    /** Writes one sequence (literals, then a match unless {@code ml == 0}); -1 if it does not fit. */
    private static long emit(MemorySegment src, long lit, int litLen, int offset, int ml,
            MemorySegment dst, long op, long oe) {
        long need = 1 + litLen + litLen / 255 + 1 + (ml == 0 ? 0 : 2 + ml / 255 + 1);
        if (need > oe - op) {
            return -1;
        }
        int mcode = ml == 0 ? 0 : ml - 4;
        long tok = op++;
        int t = (litLen >= 15 ? 15 : litLen) << 4;
        if (litLen >= 15) {
            int r = litLen - 15;
            for (; r >= 255; r -= 255) {
                dst.set(B, op++, (byte) 255);
            }
            dst.set(B, op++, (byte) r);
        }
        MemorySegment.copy(src, lit, dst, op, litLen);
        op += litLen;
        if (ml != 0) {
            dst.set(B, op++, (byte) offset);
            dst.set(B, op++, (byte) (offset >>> 8));
            t |= mcode >= 15 ? 15 : mcode;
            if (mcode >= 15) {
                int r = mcode - 15;
                for (; r >= 255; r -= 255) {
                    dst.set(B, op++, (byte) 255);
                }
                dst.set(B, op++, (byte) r);
            }
        }
        dst.set(B, tok, (byte) t);
        return op;
    }

    @Override
    public int decompress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        return decodeBlock(src, srcOff, srcLen, dst, dstOff, dstCap, dstOff);
    }

    /** Error path: decodes without a destination to classify a failure (MALFORMED or DST_TOO_SMALL). */
    static int classify(MemorySegment src, long srcOff, int srcLen, int dstCap) {
        if (srcOff < 0 || srcLen < 0 || srcOff + srcLen > src.byteSize()) {
            return ERR_MALFORMED;
        }
        long n = decodedLength(src, srcOff, srcLen);
        if (n < 0) {
            return ERR_MALFORMED;
        }
        return n > dstCap ? ERR_DST_TOO_SMALL : ERR_MALFORMED;
    }

    /**
     * Decodes one LZ4 block from {@code src[sOff, sOff+sLen)} to {@code dst} at {@code dOff}
     * (capacity {@code dCap}); matches may refer back as far as {@code windowStart} (&le; dOff).
     * Returns the decoded length or a negative error.
     */
    static int decodeBlock(MemorySegment src, long sOff, int sLen,
            MemorySegment dst, long dOff, int dCap, long windowStart) {
        if (sOff < 0 || sLen < 0 || sOff + sLen > src.byteSize() || dOff < 0 || dCap < 0 || dOff + dCap > dst.byteSize()
                || windowStart < 0 || windowStart > dOff) {
            return ERR_MALFORMED;
        }
        long sp = sOff;
        final long se = sOff + sLen;
        long dp = dOff;
        final long de = dOff + dCap;
        if (sLen == 0) {
            return ERR_MALFORMED;
        }
        while (true) {
            if (sp >= se) {
                return ERR_MALFORMED;
            }
            int token = src.get(B, sp++) & 0xff;
            long lit = token >>> 4;
            if (lit == 15) {
                int b;
                do {
                    if (sp >= se) {
                        return ERR_MALFORMED;
                    }
                    b = src.get(B, sp++) & 0xff;
                    lit += b;
                } while (b == 255 && lit < Integer.MAX_VALUE);
            }
            if (lit > se - sp) {
                return ERR_MALFORMED;
            }
            if (lit > de - dp) {
                return ERR_DST_TOO_SMALL;
            }
            MemorySegment.copy(src, sp, dst, dp, lit);
            sp += lit;
            dp += lit;
            if (sp == se) {
                return (int) (dp - dOff); // the last sequence is literals only
            }
            if (se - sp < 2) {
                return ERR_MALFORMED;
            }
            int offset = (src.get(B, sp) & 0xff) | (src.get(B, sp + 1) & 0xff) << 8;
            sp += 2;
            if (offset == 0 || offset > dp - windowStart) {
                return ERR_MALFORMED;
            }
            long mlen = (token & 15) + 4L;
            if ((token & 15) == 15) {
                int b;
                do {
                    if (sp >= se) {
                        return ERR_MALFORMED;
                    }
                    b = src.get(B, sp++) & 0xff;
                    mlen += b;
                } while (b == 255 && mlen < Integer.MAX_VALUE);
            }
            if (mlen > de - dp) {
                return ERR_DST_TOO_SMALL;
            }
            long from = dp - offset;
            if (offset >= mlen) {
                MemorySegment.copy(dst, from, dst, dp, mlen);
                dp += mlen;
            } else if (offset >= 8) {
                // Overlapping copy in 8-byte steps: each step reads bytes already written.
                long end = dp + mlen;
                while (end - dp >= 8) {
                    dst.set(L, dp, dst.get(L, from));
                    dp += 8;
                    from += 8;
                }
                while (dp < end) {
                    dst.set(B, dp++, dst.get(B, from++));
                }
            } else {
                long end = dp + mlen;
                while (dp < end) {
                    dst.set(B, dp++, dst.get(B, from++));
                }
            }
        }
    }

    /** Length a block would decode to, or a negative error (structure only, no window check). */
    static long decodedLength(MemorySegment src, long sOff, int sLen) {
        long sp = sOff;
        final long se = sOff + sLen;
        long n = 0;
        if (sLen == 0) {
            return ERR_MALFORMED;
        }
        while (true) {
            if (sp >= se) {
                return ERR_MALFORMED;
            }
            int token = src.get(B, sp++) & 0xff;
            long lit = token >>> 4;
            if (lit == 15) {
                int b;
                do {
                    if (sp >= se) {
                        return ERR_MALFORMED;
                    }
                    b = src.get(B, sp++) & 0xff;
                    lit += b;
                } while (b == 255 && lit < Integer.MAX_VALUE);
            }
            if (lit > se - sp) {
                return ERR_MALFORMED;
            }
            sp += lit;
            n += lit;
            if (sp == se) {
                return n;
            }
            if (se - sp < 2) {
                return ERR_MALFORMED;
            }
            int offset = (src.get(B, sp) & 0xff) | (src.get(B, sp + 1) & 0xff) << 8;
            sp += 2;
            if (offset == 0) {
                return ERR_MALFORMED;
            }
            long mlen = (token & 15) + 4L;
            if ((token & 15) == 15) {
                int b;
                do {
                    if (sp >= se) {
                        return ERR_MALFORMED;
                    }
                    b = src.get(B, sp++) & 0xff;
                    mlen += b;
                } while (b == 255 && mlen < Integer.MAX_VALUE);
            }
            n += mlen;
            if (n > Integer.MAX_VALUE) {
                return ERR_MALFORMED;
            }
        }
    }
}
