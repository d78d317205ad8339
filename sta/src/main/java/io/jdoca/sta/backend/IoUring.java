package io.jdoca.sta.backend;

import io.jdoca.core.mem.Mman;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A Linux io_uring instance through java.lang.foreign: the raw {@code io_uring_setup(2)} and
 * {@code io_uring_enter(2)} system calls via {@code syscall(2)} and the three mmapped regions
 * (SQ ring, CQ ring, SQE array). No liburing. Offsets of the kernel structures are the constants
 * below ({@code linux/io_uring.h}; {@code IoUringLayoutTest} checks them against the installed
 * header when a C compiler is present).
 *
 * <p>Submissions are published to the kernel in batches by {@link #enter} (one doorbell per
 * engine duty cycle); completions are reaped without a system call.
 *
 * <p>Not thread-safe: one IO engine thread.
 */
// Restricted FFM calls (libc/kernel entry points, native structs); the launcher runs with --enable-native-access.
@SuppressWarnings("restricted")
final class IoUring implements AutoCloseable {
    // syscall numbers (x86_64 and aarch64 share them since io_uring is newer than the split)
    static final long SYS_IO_URING_SETUP = 425;
    static final long SYS_IO_URING_ENTER = 426;

    // struct io_uring_params (120 bytes)
    static final int PARAMS_SIZE = 120;
    static final int P_SQ_ENTRIES = 0;
    static final int P_CQ_ENTRIES = 4;
    static final int P_FEATURES = 20;
    static final int P_SQ_OFF = 40;
    static final int P_CQ_OFF = 80;
    // struct io_sqring_offsets (40 bytes), relative to P_SQ_OFF
    static final int SQO_HEAD = 0;
    static final int SQO_TAIL = 4;
    static final int SQO_RING_MASK = 8;
    static final int SQO_ARRAY = 24;
    // struct io_cqring_offsets (40 bytes), relative to P_CQ_OFF
    static final int CQO_HEAD = 0;
    static final int CQO_TAIL = 4;
    static final int CQO_RING_MASK = 8;
    static final int CQO_CQES = 20;
    // struct io_uring_sqe (64 bytes)
    static final int SQE_SIZE = 64;
    static final int SQE_OPCODE = 0;
    static final int SQE_FD = 4;
    static final int SQE_OFF = 8;
    static final int SQE_ADDR = 16;
    static final int SQE_LEN = 24;
    static final int SQE_RW_FLAGS = 28;
    static final int SQE_USER_DATA = 32;
    // struct io_uring_cqe (16 bytes)
    static final int CQE_SIZE = 16;
    static final int CQE_USER_DATA = 0;
    static final int CQE_RES = 8;

    static final int IORING_OP_FSYNC = 3;
    static final int IORING_OP_READ = 22;
    static final int IORING_OP_WRITE = 23;
    static final int IORING_FSYNC_DATASYNC = 1;
    static final int IORING_FEAT_SINGLE_MMAP = 1;
    static final int IORING_ENTER_GETEVENTS = 1;
    static final int IORING_ENTER_EXT_ARG = 8;
    static final int IORING_FEAT_EXT_ARG = 256;
    // struct io_uring_getevents_arg (24 bytes) and struct __kernel_timespec (16 bytes)
    static final int GEA_SIZE = 24;
    static final int GEA_SIGMASK = 0;
    static final int GEA_SIGMASK_SZ = 8;
    static final int GEA_TS = 16;
    static final int TS_SIZE = 16;
    static final long IORING_OFF_SQ_RING = 0L;
    static final long IORING_OFF_CQ_RING = 0x8000000L;
    static final long IORING_OFF_SQES = 0x10000000L;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle SYSCALL = LINKER.downcallHandle(
            LINKER.defaultLookup().find("syscall").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().find("close").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    /** Ring head/tail words shared with the kernel: acquire/release access. */
    private static final java.lang.invoke.VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final int fd;
    private final int sqEntries;
    private final MemorySegment sqRing;
    private final MemorySegment cqRing;
    private final MemorySegment sqes;
    private final long sqRingLen;
    private final long cqRingLen;
    private final long sqesLen;
    private final boolean singleMmap;
    private final int sqHead;
    private final int sqTail;
    private final int sqMask;
    private final int sqArray;
    private final int cqHead;
    private final int cqTail;
    private final int cqMask;
    private final int cqes;
    private int localTail;
    private int unsubmitted;
    /** Kernel accepts a timeout with GETEVENTS ({@code IORING_FEAT_EXT_ARG}, Linux 5.11+). */
    private final boolean extArg;
    /** Pre-allocated io_uring_getevents_arg followed by its __kernel_timespec (no allocation per wait). */
    private final Arena argArena = Arena.ofShared();
    private final MemorySegment waitArg;

    /**
     * Sets up a ring of {@code entries} submissions; throws IllegalStateException when the kernel refuses. Control
     * path.
     */
    IoUring(int entries) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(PARAMS_SIZE, 8);
            long r = (long) SYSCALL.invokeExact(SYS_IO_URING_SETUP, (long) entries, p.address(), 0L, 0L, 0L, 0L);
            if (r < 0) {
                throw new IllegalStateException("io_uring_setup failed");
            }
            fd = (int) r;
            sqEntries = p.get(U32, P_SQ_ENTRIES);
            int cqEntries = p.get(U32, P_CQ_ENTRIES);
            int features = p.get(U32, P_FEATURES);
            // The *_off structures give where each field lives inside the mapped rings.
            sqHead = p.get(U32, P_SQ_OFF + SQO_HEAD);
            sqTail = p.get(U32, P_SQ_OFF + SQO_TAIL);
            int sqMaskAt = p.get(U32, P_SQ_OFF + SQO_RING_MASK);
            sqArray = p.get(U32, P_SQ_OFF + SQO_ARRAY);
            cqHead = p.get(U32, P_CQ_OFF + CQO_HEAD);
            cqTail = p.get(U32, P_CQ_OFF + CQO_TAIL);
            int cqMaskAt = p.get(U32, P_CQ_OFF + CQO_RING_MASK);
            cqes = p.get(U32, P_CQ_OFF + CQO_CQES);
            long sqLen = sqArray + 4L * sqEntries;
            long cqLen = cqes + (long) CQE_SIZE * cqEntries;
            singleMmap = (features & IORING_FEAT_SINGLE_MMAP) != 0;
            if (singleMmap) {
                sqLen = Math.max(sqLen, cqLen);
                cqLen = sqLen;
            }
            sqRingLen = sqLen;
            cqRingLen = cqLen;
            sqesLen = (long) SQE_SIZE * sqEntries;
            sqRing = map(sqLen, IORING_OFF_SQ_RING);
            cqRing = singleMmap ? sqRing : map(cqLen, IORING_OFF_CQ_RING);
            sqes = map(sqesLen, IORING_OFF_SQES);
            sqMask = sqRing.get(U32, sqMaskAt);
            cqMask = cqRing.get(U32, cqMaskAt);
            localTail = sqRing.get(U32, sqTail);
            extArg = (features & IORING_FEAT_EXT_ARG) != 0;
            waitArg = argArena.allocate(GEA_SIZE + TS_SIZE, 8);
            waitArg.set(ValueLayout.JAVA_LONG, GEA_SIGMASK, 0L);
            waitArg.set(ValueLayout.JAVA_INT, GEA_SIGMASK_SZ, 0);
            waitArg.set(ValueLayout.JAVA_LONG, GEA_TS, waitArg.address() + GEA_SIZE);
        } catch (IllegalStateException e) {
            argArena.close();
            throw e;
        } catch (Throwable t) {
            argArena.close();
            throw new IllegalStateException("io_uring setup: " + t, t);
        }
    }

    private MemorySegment map(long len, long off) throws Throwable {
        long addr = (long) Mman.MMAP.invokeExact(0L, len, Mman.PROT_READ_WRITE, Mman.MAP_SHARED_POPULATE, fd, off);
        if (addr == Mman.MAP_FAILED) {
            throw new IllegalStateException("mmap of io_uring region " + Long.toHexString(off) + " failed");
        }
        return MemorySegment.ofAddress(addr).reinterpret(len);
    }

    /**
     * Queues one SQE (not yet visible to the kernel: see {@link #enter}); false when the ring is
     * full. {@code addr}/{@code len} describe the buffer, {@code userData} comes back in the CQE.
     */
    boolean prepare(int opcode, int fd, long offset, long addr, int len, int rwFlags, long userData) {
        int head = (int) INT.getAcquire(sqRing, (long) sqHead);
        if (localTail - head == sqEntries) {
            return false;
        }
        int idx = localTail & sqMask;
        long s = (long) idx * SQE_SIZE;
        for (int i = 0; i < SQE_SIZE; i += 8) {
            sqes.set(ValueLayout.JAVA_LONG_UNALIGNED, s + i, 0L);
        }
        sqes.set(ValueLayout.JAVA_BYTE, s + SQE_OPCODE, (byte) opcode);
        sqes.set(U32, s + SQE_FD, fd);
        sqes.set(ValueLayout.JAVA_LONG_UNALIGNED, s + SQE_OFF, offset);
        sqes.set(ValueLayout.JAVA_LONG_UNALIGNED, s + SQE_ADDR, addr);
        sqes.set(U32, s + SQE_LEN, len);
        sqes.set(U32, s + SQE_RW_FLAGS, rwFlags);
        sqes.set(ValueLayout.JAVA_LONG_UNALIGNED, s + SQE_USER_DATA, userData);
        sqRing.set(U32, sqArray + 4L * idx, idx);
        localTail++;
        unsubmitted++;
        return true;
    }

    /** SQEs queued and not yet taken by the kernel. */
    int unsubmitted() {
        return unsubmitted;
    }

    /**
     * Publishes the queued SQEs and submits them ({@code io_uring_enter}); returns how many the kernel took, -1 on
     * error.
     */
    int enter() {
        if (unsubmitted == 0) {
            return 0;
        }
        INT.setRelease(sqRing, (long) sqTail, localTail);
        try {
            long r = (long) SYSCALL.invokeExact(SYS_IO_URING_ENTER, (long) fd, (long) unsubmitted, 0L, 0L, 0L, 0L);
            if (r > 0) {
                unsubmitted -= (int) r;
            }
            return (int) r;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** True when {@link #submitAndWait} can sleep in the kernel with a timeout. */
    boolean canWait() {
        return extArg;
    }

    /**
     * Publishes and submits the queued SQEs, then sleeps in the kernel until at least one
     * completion is ready or {@code timeoutNanos} passed ({@code io_uring_enter} with
     * {@code IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG}): the engine wakes on the completion
     * itself, not on a timer. Requires {@link #canWait}. Returns the kernel's result (submitted
     * count, or -1 on timeout/interruption).
     */
    int submitAndWait(long timeoutNanos) {
        INT.setRelease(sqRing, (long) sqTail, localTail);
        waitArg.set(ValueLayout.JAVA_LONG, GEA_SIZE, timeoutNanos / 1_000_000_000L);
        waitArg.set(ValueLayout.JAVA_LONG, GEA_SIZE + 8, timeoutNanos % 1_000_000_000L);
        try {
            long r = (long) SYSCALL.invokeExact(SYS_IO_URING_ENTER, (long) fd, (long) unsubmitted, 1L,
                    (long) (IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG), waitArg.address(), (long) GEA_SIZE);
            if (r > 0) {
                unsubmitted -= (int) Math.min(r, unsubmitted);
            }
            return (int) r;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** Completions ready to reap. */
    int ready() {
        int tail = (int) INT.getAcquire(cqRing, (long) cqTail);
        return tail - cqRing.get(U32, cqHead);
    }

    /** User data of the {@code i}-th ready completion (0 = oldest). */
    long userData(int i) {
        int head = cqRing.get(U32, cqHead);
        return cqRing.get(ValueLayout.JAVA_LONG_UNALIGNED, cqes + (long) ((head + i) & cqMask) * CQE_SIZE
                + CQE_USER_DATA);
    }

    /** Result ({@code res}: bytes, or -errno) of the {@code i}-th ready completion. */
    int result(int i) {
        int head = cqRing.get(U32, cqHead);
        return cqRing.get(U32, cqes + (long) ((head + i) & cqMask) * CQE_SIZE + CQE_RES);
    }

    /** Marks {@code n} completions consumed. */
    void advance(int n) {
        int head = cqRing.get(U32, cqHead);
        INT.setRelease(cqRing, (long) cqHead, head + n);
    }

    /** Waits in the kernel for at least one completion (control path: draining at close). */
    void waitOne() {
        try {
            long ignored = (long) SYSCALL.invokeExact(SYS_IO_URING_ENTER, (long) fd, 0L, 1L,
                    (long) IORING_ENTER_GETEVENTS, 0L, 0L);
        } catch (Throwable t) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        try {
            int ignored = (int) Mman.MUNMAP.invokeExact(sqes.address(), sqesLen);
            ignored = (int) Mman.MUNMAP.invokeExact(sqRing.address(), sqRingLen);
            if (!singleMmap) {
                ignored = (int) Mman.MUNMAP.invokeExact(cqRing.address(), cqRingLen);
            }
            ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            // nothing useful to do while closing
        }
        argArena.close();
    }
}
