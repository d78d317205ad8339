package io.jdoca.rdma;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import java.lang.foreign.MemorySegment;

/** Allocation-free copies between buffer lists and raw segments (CPU side of the SHM transport). */
final class BufCopy {
    private BufCopy() {
    }

    /** Copies {@code n} bytes of the list's data sections, starting {@code skip} bytes in, to {@code dst}. */
    static void gather(Buf list, long skip, MemorySegment dst, long dstOff, long n) {
        for (Buf b = list; b != null && n > 0; b = b.next()) {
            long dl = b.dataLen();
            if (skip >= dl) {
                skip -= dl;
                continue;
            }
            long c = Math.min(dl - skip, n);
            MemorySegment.copy(b.segment(), b.dataOffset() + skip, dst, dstOff, c);
            dstOff += c;
            n -= c;
            skip = 0;
        }
    }

    /** Appends {@code n} bytes of {@code src} to the list's tailrooms, in order, growing the data sections. */
    static void scatterAppend(MemorySegment src, long srcOff, Buf list, long n) {
        for (Buf b = list; b != null && n > 0; b = b.next()) {
            long room = b.tailroomLen();
            if (room == 0) {
                continue;
            }
            long c = Math.min(room, n);
            MemorySegment.copy(src, srcOff, b.segment(), b.tailOffset(), c);
            b.appendData(c);
            srcOff += c;
            n -= c;
        }
    }

    /** True if every buffer of the list is in memory this process can write with CPU access. */
    static boolean writableList(Buf list) {
        for (Buf b = list; b != null; b = b.next()) {
            MemoryMap m = b.mmap();
            if (b.segment() == null || m == null) {
                return false;
            }
            int p = m.permissions();
            if (m.isImported() ? (p & AccessFlags.PCI_READ_WRITE) == 0 : (p & AccessFlags.LOCAL_READ_WRITE) == 0) {
                return false;
            }
        }
        return true;
    }

    /** True if every buffer of the list is readable by this process. */
    static boolean readableList(Buf list) {
        for (Buf b = list; b != null; b = b.next()) {
            if (b.segment() == null || b.mmap() == null) {
                return false;
            }
        }
        return true;
    }
}
