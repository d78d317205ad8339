package io.jdoca.sta.nvmf.tcp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C header and data digests (NVMe/TCP 1.0 §3.6.1.x "Digests": CRC32C, stored little-endian
 * after the header or the data). Works over a direct {@link ByteBuffer} view of the segment so
 * {@link CRC32C#update(ByteBuffer)} runs without allocating.
 *
 * <p>Not thread-safe: one instance per connection (it owns a CRC32C and a buffer view).
 */
public final class PduDigest {
    private final CRC32C crc = new CRC32C();
    private final MemorySegment seg;
    private final ByteBuffer view;

    /** A digest engine over {@code seg} (native memory, at most 2 GiB). */
    public PduDigest(MemorySegment seg) {
        this.seg = seg;
        this.view = seg.asByteBuffer();
    }

    public MemorySegment segment() {
        return seg;
    }

    /** CRC32C of {@code len} bytes at {@code off}. */
    public int compute(long off, int len) {
        crc.reset();
        view.limit((int) off + len).position((int) off);
        crc.update(view);
        view.clear();
        return (int) crc.getValue();
    }

    /** Computes the digest of [off, off+len) and stores it little-endian at off+len. */
    public void put(long off, int len) {
        seg.set(NvmeTcpPdu.LE32, off + len, compute(off, len));
    }

    /** True when the little-endian digest stored at off+len matches [off, off+len). */
    public boolean check(long off, int len) {
        return seg.get(NvmeTcpPdu.LE32, off + len) == compute(off, len);
    }

    /** One-shot CRC32C of a heap byte range (tests, control path). */
    public static int crc32c(byte[] b, int off, int len) {
        CRC32C c = new CRC32C();
        c.update(b, off, len);
        return (int) c.getValue();
    }
}
