package io.jdoca.compress;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Raw deflate (RFC 1951, no zlib or gzip wrapper, as DOCA's deflate tasks use) through
 * java.util.zip with one pre-allocated {@link Deflater} and {@link Inflater}, reset per call and
 * fed MemorySegment-backed direct ByteBuffers ({@link SegmentBuffers}). Results are lengths or
 * negative {@link Lz4Codec} errors; nothing throws. Allocation-free once a segment has been seen.
 * One thread at a time; {@link #close()} frees the native zlib state.
 */
public final class DeflateCodec implements AutoCloseable {
    private final Deflater deflater;
    private final Inflater inflater = new Inflater(true);
    private final SegmentBuffers buffers = new SegmentBuffers();

    /** Level 1..9 (java.util.zip.Deflater levels); DOCA's hardware has no level, 6 is zlib's default. */
    public DeflateCodec(int level) {
        this.deflater = new Deflater(level, true);
    }

    public DeflateCodec() {
        this(Deflater.DEFAULT_COMPRESSION);
    }

    /**
     * Compresses into {@code dst[dstOff, +dstCap)}; the length or ERR_DST_TOO_SMALL (or ERR_MALFORMED for
     * unusable segments).
     */
    public int compress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        ByteBuffer in = buffers.window(buffers.in(src), srcOff, srcLen);
        ByteBuffer out = buffers.window(buffers.out(dst), dstOff, dstCap);
        if (in == null || out == null) {
            return Lz4Codec.ERR_MALFORMED;
        }
        deflater.reset();
        deflater.setInput(in);
        deflater.finish();
        while (!deflater.finished()) {
            int before = out.position();
            deflater.deflate(out, Deflater.NO_FLUSH);
            if (!out.hasRemaining() && !deflater.finished()) {
                return Lz4Codec.ERR_DST_TOO_SMALL;
            }
            if (out.position() == before && deflater.needsInput() && !deflater.finished()) {
                return Lz4Codec.ERR_MALFORMED; // cannot happen with finish(); guards a spin
            }
        }
        return (int) (out.position() - dstOff);
    }

    /**
     * Decompresses one complete raw-deflate stream; the length, ERR_MALFORMED (corrupt or truncated)
     * or ERR_DST_TOO_SMALL.
     */
    public int decompress(MemorySegment src, long srcOff, int srcLen, MemorySegment dst, long dstOff, int dstCap) {
        ByteBuffer in = buffers.window(buffers.in(src), srcOff, srcLen);
        ByteBuffer out = buffers.window(buffers.out(dst), dstOff, dstCap);
        if (in == null || out == null) {
            return Lz4Codec.ERR_MALFORMED;
        }
        inflater.reset();
        inflater.setInput(in);
        try {
            while (!inflater.finished()) {
                int n = inflater.inflate(out);
                if (n == 0) {
                    if (inflater.finished()) {
                        break;
                    }
                    if (!out.hasRemaining()) {
                        return Lz4Codec.ERR_DST_TOO_SMALL;
                    }
                    // needsInput (truncated) or needsDictionary (not raw deflate): corrupt for us.
                    return Lz4Codec.ERR_MALFORMED;
                }
            }
        } catch (DataFormatException | RuntimeException e) {
            return Lz4Codec.ERR_MALFORMED;
        }
        return (int) (out.position() - dstOff);
    }

    @Override
    public void close() {
        deflater.end();
        inflater.end();
    }
}
