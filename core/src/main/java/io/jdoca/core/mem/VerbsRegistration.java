package io.jdoca.core.mem;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.verbs.MemoryRegion;
import io.jdoca.verbs.ProtectionDomain;
import io.jdoca.verbs.VerbsConstants;
import io.jdoca.verbs.VerbsException;
import java.lang.foreign.MemorySegment;

/**
 * The {@code ibv_reg_mr} registrations of one started {@link MemoryMap}: one memory region per RDMA (verbs)
 * device the map was given, in that device's process-wide protection domain, so the device may DMA to and
 * from the range and peers may address it with the rkey. Made by {@code MemoryMap.start()}, deregistered by
 * {@code stop()} (before the caller frees the memory).
 *
 * <p>Threads: built and closed on the map's control thread; the keys are immutable and read from any thread
 * without allocation ({@link #lkey}).
 */
final class VerbsRegistration {
    private final DevInfo[] devs;
    private final MemoryRegion[] mrs;
    private final int[] lkeys;
    private final int[] rkeys;

    private VerbsRegistration(DevInfo[] devs, MemoryRegion[] mrs, int[] lkeys, int[] rkeys) {
        this.devs = devs;
        this.mrs = mrs;
        this.lkeys = lkeys;
        this.rkeys = rkeys;
    }

    /**
     * DOCA access flags → {@code IBV_ACCESS_*}: LOCAL_READ_WRITE → LOCAL_WRITE, RDMA_READ → REMOTE_READ,
     * RDMA_WRITE → REMOTE_WRITE, RDMA_ATOMIC → REMOTE_ATOMIC. The verbs spec requires LOCAL_WRITE with
     * REMOTE_WRITE or REMOTE_ATOMIC (ibv_reg_mr fails with EINVAL otherwise), so those imply it: the device
     * writes the memory for them. PCI_* flags have no verbs meaning.
     */
    static int ibvAccess(int docaFlags) {
        int a = 0;
        if ((docaFlags & AccessFlags.LOCAL_READ_WRITE) != 0) {
            a |= VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
        }
        if ((docaFlags & AccessFlags.RDMA_READ) != 0) {
            a |= VerbsConstants.IBV_ACCESS_REMOTE_READ;
        }
        if ((docaFlags & AccessFlags.RDMA_WRITE) != 0) {
            a |= VerbsConstants.IBV_ACCESS_REMOTE_WRITE | VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
        }
        if ((docaFlags & AccessFlags.RDMA_ATOMIC) != 0) {
            a |= VerbsConstants.IBV_ACCESS_REMOTE_ATOMIC | VerbsConstants.IBV_ACCESS_LOCAL_WRITE;
        }
        return a;
    }

    /** Registers {@code range} on every device of {@code devs}; on failure nothing stays registered. */
    static Result register(DevInfo[] devs, MemorySegment range, int docaFlags) {
        return register(devs, range, docaFlags, -1);
    }

    /**
     * {@link #register(DevInfo[], MemorySegment, int)} with the devices addressing the range as
     * {@code [iova, iova + size)} ({@code ibv_reg_mr_iova}); {@code iova} -1 means the range's own addresses.
     */
    static Result register(DevInfo[] devs, MemorySegment range, int docaFlags, long iova) {
        MemoryRegion[] mrs = new MemoryRegion[devs.length];
        int[] lk = new int[devs.length];
        int[] rk = new int[devs.length];
        int access = ibvAccess(docaFlags);
        for (int i = 0; i < devs.length; i++) {
            try {
                ProtectionDomain pd = devs[i].verbsContext().protectionDomain();
                mrs[i] = iova == -1 ? pd.register(range, access) : pd.registerIova(range, iova, access);
            } catch (VerbsException | io.jdoca.core.DocaException e) {
                for (int k = 0; k < i; k++) {
                    mrs[k].close();
                }
                String why = "ibv_reg_mr of " + range.byteSize() + " bytes on " + devs[i].name() + ": "
                        + e.getMessage();
                if (e instanceof VerbsException v && v.errno() == 12) {
                    why += " (ENOMEM: raise the locked-memory limit, ulimit -l / memlock in limits.conf)";
                }
                return new Result(null, e instanceof VerbsException v && v.errno() == 12 ? DocaError.NO_MEMORY
                        : DocaError.DRIVER, why);
            }
            lk[i] = mrs[i].lkey();
            rk[i] = mrs[i].rkey();
        }
        return new Result(new VerbsRegistration(devs.clone(), mrs, lk, rk), DocaError.SUCCESS, null);
    }

    /** The outcome of {@link #register}: the registration, or the error and why. */
    record Result(VerbsRegistration reg, DocaError error, String why) {
    }

    /** The lkey on {@code dev}, or -1 if the map is not registered there. Allocation-free. */
    int lkey(DevInfo dev) {
        for (int i = 0; i < devs.length; i++) {
            if (devs[i] == dev) {
                return lkeys[i];
            }
        }
        return -1;
    }

    /** The rkey on {@code dev} (the first device if null), or -1. */
    int rkey(DevInfo dev) {
        for (int i = 0; i < devs.length; i++) {
            if (dev == null || devs[i] == dev) {
                return rkeys[i];
            }
        }
        return -1;
    }

    /** {@code ibv_dereg_mr} of every region; the first failure is thrown after all were tried. */
    void close() {
        VerbsException first = null;
        for (MemoryRegion mr : mrs) {
            try {
                mr.close();
            } catch (VerbsException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
