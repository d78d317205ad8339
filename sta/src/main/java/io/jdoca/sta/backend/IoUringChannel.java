package io.jdoca.sta.backend;

import io.jdoca.sta.config.StaProperties;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.MemorySegment;

/**
 * One IO engine's io_uring channel to a {@link FileBackend}: reads and writes go to the
 * O_DIRECT descriptor when offset, length and buffer are 4096-aligned and the file system took
 * O_DIRECT, to the buffered one otherwise; flush is {@code IORING_OP_FSYNC} with DATASYNC. Many
 * operations in flight; one {@code io_uring_enter} per poll submits everything queued since.
 *
 * <p>Not thread-safe: the owning IO engine's thread.
 */
public final class IoUringChannel extends StaBackendChannel {
    private static final int DIRECT_ALIGN = 4096;
    /**
     * Queued operations that go to the kernel at once instead of at the end of the engine pass: the
     * disk starts on the first commands of a burst while the rest are still being parsed, and its
     * completions come back in several groups, so the host's next commands overlap the disk's work
     * instead of waiting for the whole burst (file back-end, 4 KiB QD 32 against fio on the same
     * file: reads 0.63 → 0.70, writes 0.65 → 0.77; one submission per operation was worse:
     * docs/performance/nvmf.md). {@code -Djdoca.sta.uring_submit_batch}; 0 submits once per pass.
     */
    static final int SUBMIT_BATCH = StaProperties.URING_SUBMIT_BATCH.asInt();
    private final IoUring ring;
    private final int fd;
    private final int directFd;
    private int outstanding;

    IoUringChannel(int depth, int fd, int directFd) {
        this.ring = new IoUring(depth);
        this.fd = fd;
        this.directFd = directFd;
    }

    @Override
    public boolean submit(int op, long offset, MemorySegment buf, int len, int tag) {
        // user_data: the expected byte count (a short transfer is an error) and the tag
        long ud = ((long) len << 32) | (tag & 0xffffffffL);
        boolean ok;
        if (op == OP_FLUSH) {
            ok = ring.prepare(IoUring.IORING_OP_FSYNC, fd, 0, 0, 0, IoUring.IORING_FSYNC_DATASYNC, ud);
        } else {
            boolean direct = directFd >= 0 && offset % DIRECT_ALIGN == 0 && len % DIRECT_ALIGN == 0
                    && buf.address() % DIRECT_ALIGN == 0;
            ok = ring.prepare(op == OP_READ ? IoUring.IORING_OP_READ : IoUring.IORING_OP_WRITE, direct ? directFd : fd,
                    offset, buf.address(), len, 0, ud);
        }
        if (ok) {
            outstanding++;
            if (SUBMIT_BATCH > 0 && ring.unsubmitted() >= SUBMIT_BATCH) {
                ring.enter();
            }
        }
        return ok;
    }

    @Override
    public int poll(Sink sink) {
        ring.enter();
        int n = ring.ready();
        for (int i = 0; i < n; i++) {
            long ud = ring.userData(i);
            int res = ring.result(i);
            int expect = (int) (ud >>> 32);
            int st = res < 0 ? NvmeStatus.INTERNAL_ERROR : res != expect
                    ? NvmeStatus.DATA_TRANSFER_ERROR : NvmeStatus.SUCCESS;
            outstanding--;
            sink.onComplete((int) ud, st);
        }
        if (n > 0) {
            ring.advance(n);
        }
        return n;
    }

    /**
     * Sleeps in {@code io_uring_enter} until a completion is ready or {@code timeoutNanos} passed
     * (submitting what is queued in the same call); returns at once when completions are ready.
     * Without the kernel's timed wait, falls back to the default short park.
     */
    @Override
    public void await(long timeoutNanos) {
        if (ring.ready() > 0) {
            return;
        }
        if (!ring.canWait()) {
            ring.enter();
            super.await(timeoutNanos);
            return;
        }
        int ignored = ring.submitAndWait(timeoutNanos);
    }

    /** Operations queued and not yet taken by the kernel (tests). */
    int unsubmitted() {
        return ring.unsubmitted();
    }

    @Override
    public int outstanding() {
        return outstanding;
    }

    @Override
    public void close() {
        // Buffers of in-flight operations belong to the engine: wait (bounded) until the kernel is done with them.
        long deadline = System.nanoTime() + 5_000_000_000L;
        ring.enter();
        while (outstanding > 0 && System.nanoTime() - deadline < 0) {
            int n = ring.ready();
            if (n == 0) {
                ring.waitOne();
                continue;
            }
            outstanding -= n;
            ring.advance(n);
        }
        ring.close();
    }
}
