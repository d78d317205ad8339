package io.jdoca.nvmf.tgt;

import io.jdoca.sta.StaQp;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * One NVMe-oF controller (dynamic model): created by an admin-queue Connect, joined by I/O-queue
 * Connects with its CNTLID. Holds the controller properties (CC, CSTS), features, keep-alive
 * and asynchronous-event state.
 *
 * <p>Thread-safe: every mutator is synchronized (admin and I/O queues may be on different IO
 * threads; the keep-alive monitor and RPC run on their own).
 */
public final class NvmfController {
    private final int cntlid;
    private final NvmfSubsystem subsystem;
    private final String hostNqn;
    private final byte[] hostId;
    private final StaQp adminQp;
    private final List<StaQp> ioQps = new ArrayList<>();
    private long cc;
    private int csts;
    private long katoMs;
    private volatile long lastKeepAliveNanos = System.nanoTime();
    private int grantedIoQueues;
    private int aec;
    private final ArrayDeque<Integer> aerCids = new ArrayDeque<>();
    private final ArrayDeque<Integer> pendingEvents = new ArrayDeque<>();
    private final TreeSet<Integer> changedNs = new TreeSet<>();
    private volatile boolean dead;
    // Feature values (Set/Get Features). Nothing is saveable: they start at their defaults on
    // every new controller (see AdminHandler for what each one means here).
    private int arbitration;
    private int tempOverComposite = TEMP_OVER_DEFAULT;
    private int tempUnderComposite;
    private int errorRecovery;
    private int writeAtomicity;
    // Error information log (LID 01h): the newest ERROR_LOG_ENTRIES entries, newest first.
    private final ArrayDeque<byte[]> errorLog = new ArrayDeque<>();
    private long errorCount;

    /** Entries kept in the error information log (Identify ELPE = this - 1). */
    public static final int ERROR_LOG_ENTRIES = 16;
    /** Default over-temperature threshold: the target has no sensor, so it never reports one crossed. */
    public static final int TEMP_OVER_DEFAULT = 0xffff;

    NvmfController(int cntlid, NvmfSubsystem subsystem, String hostNqn, byte[] hostId, StaQp adminQp, long katoMs, int maxIoQueues) {
        this.cntlid = cntlid;
        this.subsystem = subsystem;
        this.hostNqn = hostNqn;
        this.hostId = hostId;
        this.adminQp = adminQp;
        this.katoMs = katoMs;
        this.grantedIoQueues = maxIoQueues;
    }

    public int cntlid() {
        return cntlid;
    }

    public NvmfSubsystem subsystem() {
        return subsystem;
    }

    public String hostNqn() {
        return hostNqn;
    }

    public byte[] hostId() {
        return hostId.clone();
    }

    public StaQp adminQp() {
        return adminQp;
    }

    public synchronized List<StaQp> ioQps() {
        return new ArrayList<>(ioQps);
    }

    synchronized void addIoQp(StaQp qp) {
        ioQps.add(qp);
    }

    synchronized void removeIoQp(StaQp qp) {
        ioQps.remove(qp);
    }

    public synchronized long cc() {
        return cc;
    }

    public synchronized int csts() {
        return csts;
    }

    public synchronized boolean ready() {
        return (csts & 1) != 0;
    }

    /** Property Set CC (Base 2.0 §3.1.5): EN 0→1 sets CSTS.RDY; EN 1→0 clears it; SHN sets SHST complete. */
    synchronized void setCc(long value) {
        long old = cc;
        cc = value & 0xffffffffL;
        boolean en = (cc & 1) != 0;
        if (en && (old & 1) == 0) {
            csts |= 1;
        } else if (!en && (old & 1) != 0) {
            csts &= ~1;
        }
        int shn = (int) ((cc >>> 14) & 3);
        if (shn != 0) {
            csts = (csts & ~0xc) | (2 << 2);
        } else {
            csts &= ~0xc;
        }
    }

    public synchronized long katoMs() {
        return katoMs;
    }

    synchronized void setKatoMs(long ms) {
        katoMs = ms;
    }

    void keepAlive() {
        lastKeepAliveNanos = System.nanoTime();
    }

    public long lastKeepAliveNanos() {
        return lastKeepAliveNanos;
    }

    public synchronized int grantedIoQueues() {
        return grantedIoQueues;
    }

    synchronized void setGrantedIoQueues(int n) {
        grantedIoQueues = n;
    }

    public synchronized int aec() {
        return aec;
    }

    synchronized void setAec(int v) {
        aec = v;
    }

    /** Queues an AER's cid; false when AERL+1 are outstanding. */
    synchronized boolean addAer(int cid, int limit) {
        if (aerCids.size() >= limit) {
            return false;
        }
        aerCids.add(cid);
        return true;
    }

    /** Pairs an outstanding AER with a pending event: {cid, dw0} or null. */
    synchronized int[] takeAerAndEvent() {
        if (aerCids.isEmpty() || pendingEvents.isEmpty()) {
            return null;
        }
        return new int[] {aerCids.poll(), pendingEvents.poll()};
    }

    /** Records a namespace change and queues the notice if the host enabled it (AEC bit 8). */
    synchronized boolean namespaceChanged(int nsid) {
        boolean first = changedNs.isEmpty();
        changedNs.add(nsid);
        if ((aec & (1 << 8)) != 0 && first) {
            // Async event: type 2 (notice), info 0 (namespace attribute changed), log page 04h.
            pendingEvents.add((0x04 << 16) | 0x02);
            return true;
        }
        return false;
    }

    /** Reads and clears the changed namespace list (Get Log Page 04h). */
    synchronized List<Integer> takeChangedNs() {
        List<Integer> l = new ArrayList<>(changedNs);
        changedNs.clear();
        return l;
    }

    public synchronized int arbitration() {
        return arbitration;
    }

    synchronized void setArbitration(int v) {
        arbitration = v;
    }

    /** Composite temperature threshold: {@code under} selects the under-temperature one. */
    public synchronized int tempThreshold(boolean under) {
        return under ? tempUnderComposite : tempOverComposite;
    }

    synchronized void setTempThreshold(boolean under, int kelvin) {
        if (under) {
            tempUnderComposite = kelvin;
        } else {
            tempOverComposite = kelvin;
        }
    }

    public synchronized int errorRecovery() {
        return errorRecovery;
    }

    synchronized void setErrorRecovery(int v) {
        errorRecovery = v;
    }

    public synchronized int writeAtomicity() {
        return writeAtomicity;
    }

    synchronized void setWriteAtomicity(int v) {
        writeAtomicity = v;
    }

    /**
     * Records a command that completed with an error in the error information log (64-byte entry,
     * NVMe Base figure "Error Information Log Entry"): error count, SQID, CID, status field,
     * parameter error location (FFFFh: not specific), NSID, transport type (TCP).
     */
    synchronized void logError(int sqid, int cid, int status, int nsid) {
        errorCount++;
        java.nio.ByteBuffer e = IdentifyData.le(IdentifyData.ERROR_ENTRY_SIZE);
        e.putLong(0, errorCount);
        e.putShort(8, (short) sqid);
        e.putShort(10, (short) cid);
        e.putShort(12, (short) (status & 0xfffe));
        e.putShort(14, (short) 0xffff);
        e.putInt(24, nsid);
        e.put(29, (byte) IdentifyData.TRTYPE_TCP);
        errorLog.addFirst(e.array());
        if (errorLog.size() > ERROR_LOG_ENTRIES) {
            errorLog.removeLast();
        }
    }

    /** The error log entries, newest first. */
    synchronized List<byte[]> errorLog() {
        return new ArrayList<>(errorLog);
    }

    /** Errors recorded over the controller's life (SMART "Number of Error Information Log Entries"). */
    public synchronized long errorCount() {
        return errorCount;
    }

    public boolean isDead() {
        return dead;
    }

    void markDead() {
        dead = true;
    }

    @Override
    public String toString() {
        return "NvmfController[" + cntlid + ", " + subsystem.nqn() + ", " + hostNqn + "]";
    }
}
