package io.jdoca.compress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * xxHash32 (the LZ4 frame format's block and content checksum), computed over a MemorySegment
 * range. Stateless, allocation-free, thread-safe.
 */
public final class XxHash32 {
    private static final int P1 = 0x9E3779B1;
    private static final int P2 = 0x85EBCA77;
    private static final int P3 = 0xC2B2AE3D;
    private static final int P4 = 0x27D4EB2F;
    private static final int P5 = 0x165667B1;
    private static final ValueLayout.OfInt I =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private XxHash32() {
    }

    /** XXH32 of {@code s[off, off+len)} with {@code seed}. */
    public static int hash(MemorySegment s, long off, long len, int seed) {
        long p = off;
        long end = off + len;
        int h;
        if (len >= 16) {
            int v1 = seed + P1 + P2;
            int v2 = seed + P2;
            int v3 = seed;
            int v4 = seed - P1;
            long limit = end - 16;
            do {
                v1 = round(v1, s.get(I, p));
                v2 = round(v2, s.get(I, p + 4));
                v3 = round(v3, s.get(I, p + 8));
                v4 = round(v4, s.get(I, p + 12));
                p += 16;
            } while (p <= limit);
            h = Integer.rotateLeft(v1, 1) + Integer.rotateLeft(v2, 7) + Integer.rotateLeft(v3, 12)
                    + Integer.rotateLeft(v4, 18);
        } else {
            h = seed + P5;
        }
        h += (int) len;
        while (p + 4 <= end) {
            h += s.get(I, p) * P3;
            h = Integer.rotateLeft(h, 17) * P4;
            p += 4;
        }
        while (p < end) {
            h += (s.get(ValueLayout.JAVA_BYTE, p) & 0xff) * P5;
            h = Integer.rotateLeft(h, 11) * P1;
            p++;
        }
        h ^= h >>> 15;
        h *= P2;
        h ^= h >>> 13;
        h *= P3;
        h ^= h >>> 16;
        return h;
    }

    private static int round(int acc, int input) {
        acc += input * P2;
        acc = Integer.rotateLeft(acc, 13);
        return acc * P1;
    }
}
