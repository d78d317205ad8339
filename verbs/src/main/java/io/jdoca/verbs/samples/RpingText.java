package io.jdoca.verbs.samples;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * rping's text in native buffers: the ping prefix written as its {@code snprintf} writes it, and the
 * NUL-terminated strings the pings carry. Nothing here allocates but {@link #cString} (for -v).
 *
 * <p>Thread rules: stateless.
 */
final class RpingText {
    private RpingText() {
    }

    /**
     * rping's {@code snprintf(buf, size, "rdma-ping-%d: ", ping)} without allocating: at most {@code size - 1}
     * characters and a NUL; returns the full length (as snprintf, also when cut short).
     */
    static int formatPrefix(MemorySegment buf, int ping, int size) {
        final String head = "rdma-ping-";
        int p = 0;
        for (; p < head.length(); p++) {
            put(buf, p, size, head.charAt(p));
        }
        long v = ping;
        if (v < 0) {
            put(buf, p++, size, '-');
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        for (int d = digits - 1; d >= 0; d--) {
            put(buf, p + d, size, (char) ('0' + (v % 10)));
            v /= 10;
        }
        p += digits;
        put(buf, p++, size, ':');
        put(buf, p++, size, ' ');
        buf.set(JAVA_BYTE, Math.min(p, size - 1), (byte) 0);
        return p;
    }

    private static void put(MemorySegment buf, int at, int size, char c) {
        if (at < size - 1) {
            buf.set(JAVA_BYTE, at, (byte) c);
        }
    }

    static int strlen(MemorySegment buf) {
        for (int i = 0; i < buf.byteSize(); i++) {
            if (buf.get(JAVA_BYTE, i) == 0) {
                return i;
            }
        }
        return (int) buf.byteSize() - 1;
    }

    static String cString(MemorySegment buf) {
        return new String(buf.asSlice(0, strlen(buf)).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
    }

}
