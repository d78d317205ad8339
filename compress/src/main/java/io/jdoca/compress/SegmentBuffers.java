package io.jdoca.compress;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A small cache of whole-segment ByteBuffer views, for libraries that take ByteBuffers
 * (lz4-java, Deflater, Inflater): a buffer is created the first time a segment is seen (a memory
 * map's segment is one object for the map's life), then only its position and limit move. Two
 * views per segment (input, output) so a source and destination in the same map do not collide.
 * Returns null for segments a direct ByteBuffer cannot cover (heap, over 2 GiB; read-only ones as output). One
 * thread at a time.
 */
final class SegmentBuffers {
    private static final int SLOTS = 16;
    private final MemorySegment[] segs = new MemorySegment[SLOTS];
    private final ByteBuffer[] ins = new ByteBuffer[SLOTS];
    private final ByteBuffer[] outs = new ByteBuffer[SLOTS];
    private int next;

    ByteBuffer in(MemorySegment s) {
        int i = slot(s);
        return i < 0 ? null : ins[i];
    }

    /** Null for a read-only segment. */
    ByteBuffer out(MemorySegment s) {
        int i = slot(s);
        return i < 0 ? null : outs[i];
    }

    private int slot(MemorySegment s) {
        for (int i = 0; i < SLOTS; i++) {
            if (segs[i] == s) {
                return ins[i] == null ? -1 : i;
            }
        }
        int i = next;
        next = (next + 1) % SLOTS;
        segs[i] = s;
        if (!s.isNative() || s.byteSize() > Integer.MAX_VALUE - 8) {
            ins[i] = null;
            outs[i] = null;
            return -1;
        }
        ins[i] = s.asByteBuffer();
        outs[i] = s.isReadOnly() ? null : s.asByteBuffer();
        return i;
    }

    /** The cached view with position {@code off} and limit {@code off+len}; null if not coverable. */
    ByteBuffer window(ByteBuffer b, long off, long len) {
        if (b == null || off + len > b.capacity()) {
            return null;
        }
        b.limit((int) (off + len));
        b.position((int) off);
        return b;
    }
}
