package io.jdoca.rdma;

import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.mem.Buf;
import io.jdoca.verbs.SendWr;

/**
 * The scatter/gather elements of a verbs task's work request: the local buffers of the task as SGEs with their
 * maps' lkeys on the device. Each returns the element count, -1 when a buffer's memory is not registered on the
 * device, -2 when the list has more buffers than the queue pair's SGEs. Allocation-free.
 *
 * <p>Threads: stateless (the caller's engine thread).
 */
final class VerbsSges {
    private VerbsSges() {
    }

    /** SGEs over the list's data sections; the count, -1 for unregistered memory, -2 for too many buffers. */
    static int gather(Buf list, SendWr wr, DevInfo dev, int maxSge) {
        int k = 0;
        for (Buf b = list; b != null; b = b.next()) {
            long dl = b.dataLen();
            if (dl == 0) {
                continue;
            }
            int lkey = b.mmap().verbsLkey(dev);
            if (lkey == -1) {
                return -1;
            }
            if (k == maxSge) {
                return -2;
            }
            wr.sge(k++, b.data(), (int) dl, lkey);
        }
        return k;
    }

    /** SGEs over the list's tailrooms for {@code n} bytes (reads append). */
    static int scatter(Buf list, long n, SendWr wr, DevInfo dev, int maxSge) {
        int k = 0;
        for (Buf b = list; b != null && n > 0; b = b.next()) {
            long c = Math.min(b.tailroomLen(), n);
            if (c == 0) {
                continue;
            }
            int lkey = b.mmap().verbsLkey(dev);
            if (lkey == -1) {
                return -1;
            }
            if (k == maxSge) {
                return -2;
            }
            wr.sge(k++, b.data() + b.dataLen(), (int) c, lkey);
            n -= c;
        }
        return k;
    }

    /** One 8-byte SGE at {@code addr} of the buffer (atomic result, sync event value). */
    static int one(Buf b, long addr, SendWr wr, DevInfo dev) {
        int lkey = b.mmap().verbsLkey(dev);
        if (lkey == -1) {
            return -1;
        }
        wr.sge(0, addr, 8, lkey);
        return 1;
    }
}
