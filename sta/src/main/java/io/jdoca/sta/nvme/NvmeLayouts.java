package io.jdoca.sta.nvme;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The value layouts of NVMe wire structures: every multi-byte field of NVMe (Base 2.0 §1.4.1
 * "byte, word and dword relationships") and of its fabrics transports is little-endian, and a field
 * inside a capsule or PDU need not be aligned. The flyweights of every layer read and write with these.
 *
 * <p>Constants; any thread.
 */
public final class NvmeLayouts {
    public static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfInt LE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    public static final ValueLayout.OfLong LE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private NvmeLayouts() {
    }
}
