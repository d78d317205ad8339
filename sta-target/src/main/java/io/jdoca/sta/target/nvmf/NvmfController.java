package io.jdoca.sta.target.nvmf;

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
