package io.jdoca.nvmf.tgt;

import io.jdoca.sta.StaQp;
import io.jdoca.sta.nvme.NvmeStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * One NVMe-oF controller (dynamic model; SPDK's {@code spdk_nvmf_ctrlr}): created by an admin-queue
 * Connect, joined by I/O-queue Connects with its CNTLID. Holds the controller properties (CC,
 * CSTS), features, keep-alive and asynchronous-event state.
 *
 * <p>Threads: owned by {@code sta-main}, which executes every admin command ({@link AdminHandler})
 * and is the only thread that reads or writes its mutable state; no lock. Other threads may read
 * its identity ({@link #cntlid}, {@link #subsystem}, {@link #hostNqn}, {@link #hostId},
 * {@link #adminQp}) and {@link #ioQps} (an immutable list replaced on change).
 */
public final class NvmfController {
    private final int cntlid;
    private final NvmfSubsystem subsystem;
    private final String hostNqn;
    private final byte[] hostId;
    private final StaQp adminQp;
    /** The listener the admin queue came in on ("address:port"): the path whose ANA states this controller reports. */
    private final String listenerKey;
    /** Replaced, never changed in place, so other threads may read it. */
    private volatile List<StaQp> ioQps = List.of();
    private long cc;
    private int csts;
    private long katoMs;
    private long lastKeepAliveNanos = System.nanoTime();
    private int grantedIoQueues;
    private int aec;
    /** Outstanding Asynchronous Event Requests, answered when an event comes. */
    private final ArrayDeque<NvmfAdminCommand> aers = new ArrayDeque<>();
    private final ArrayDeque<Integer> pendingEvents = new ArrayDeque<>();
    private final TreeSet<Integer> changedNs = new TreeSet<>();
    private boolean dead;
    /** Reservation Notification log (80h) of this controller, and the notification mask per namespace (82h). */
    private final io.jdoca.nvmf.resv.ReservationNotificationLog reservationLog =
            new io.jdoca.nvmf.resv.ReservationNotificationLog();
    private final java.util.Map<Integer, Integer> reservationMasks = new java.util.HashMap<>();
    /** An ANA change notice was sent and the host has not read the ANA log since (Base 2.0 §5.27.1.13). */
    private boolean anaNoticeMasked;
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

    NvmfController(int cntlid, NvmfSubsystem subsystem, String hostNqn, byte[] hostId, StaQp adminQp, long katoMs,
                   int maxIoQueues, String listenerKey) {
        this.cntlid = cntlid;
        this.listenerKey = listenerKey;
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

    /** The listener ("address:port", RDMA ones prefixed) this controller's admin queue came in on. */
    public String listenerKey() {
        return listenerKey;
    }

    /** The host identifier's first 8 bytes, big-endian (reservations key on the 128-bit value). */
    public long hostIdHi() {
        return java.nio.ByteBuffer.wrap(hostId).getLong(0);
    }

    /** The host identifier's last 8 bytes. */
    public long hostIdLo() {
        return java.nio.ByteBuffer.wrap(hostId).getLong(8);
    }

    /** The connected I/O queues. Any thread (a snapshot). */
    public List<StaQp> ioQps() {
        return ioQps;
    }

    void addIoQp(StaQp qp) {
        List<StaQp> l = new ArrayList<>(ioQps);
        l.add(qp);
        ioQps = List.copyOf(l);
    }

    void removeIoQp(StaQp qp) {
        List<StaQp> l = new ArrayList<>(ioQps);
        if (l.remove(qp)) {
            ioQps = List.copyOf(l);
        }
    }

    long cc() {
        return cc;
    }

    int csts() {
        return csts;
    }

    boolean ready() {
        return (csts & 1) != 0;
    }

    /** Property Set CC (Base 2.0 §3.1.5): EN 0→1 sets CSTS.RDY; EN 1→0 clears it; SHN sets SHST complete. */
    void setCc(long value) {
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

    long katoMs() {
        return katoMs;
    }

    void setKatoMs(long ms) {
        katoMs = ms;
    }

    /** Any admin command counts as traffic for the keep-alive deadline. */
    void keepAlive() {
        lastKeepAliveNanos = System.nanoTime();
    }

    long lastKeepAliveNanos() {
        return lastKeepAliveNanos;
    }

    int grantedIoQueues() {
        return grantedIoQueues;
    }

    void setGrantedIoQueues(int n) {
        grantedIoQueues = n;
    }

    int aec() {
        return aec;
    }

    void setAec(int v) {
        aec = v;
    }

    /** Keeps an AER until an event comes; false when AERL+1 are outstanding. */
    boolean addAer(NvmfAdminCommand aer, int limit) {
        if (aers.size() >= limit) {
            return false;
        }
        aers.add(aer);
        return true;
    }

    /** Answers outstanding AERs with pending events (each posted to the admin QP's IO thread). */
    void deliverEvents() {
        while (!aers.isEmpty() && !pendingEvents.isEmpty()) {
            aers.poll().complete(NvmeStatus.SUCCESS, pendingEvents.poll(), 0);
        }
    }

    /**
     * Records a namespace change (added, removed, resized) and queues the notice if the host enabled
     * it (AEC bit 8) and has read the Changed Namespace List since the last one (the notice is masked
     * until then). True when a notice was queued.
     */
    boolean namespaceChanged(int nsid) {
        boolean first = changedNs.isEmpty();
        changedNs.add(nsid);
        if ((aec & (1 << 8)) != 0 && first) {
            // Async event: type 2 (notice), info 0 (namespace attribute changed), log page 04h.
            pendingEvents.add((0x04 << 16) | 0x02);
            return true;
        }
        return false;
    }

    /**
     * The ANA states this controller reports changed: queues the Asymmetric Namespace Access Change
     * notice (type 2, information 03h, log page 0Ch) if the host enabled it (AEC bit 11) and has read
     * the ANA log since the last one. True when a notice was queued.
     */
    boolean anaChanged() {
        if ((aec & (1 << 11)) == 0 || anaNoticeMasked) {
            return false;
        }
        anaNoticeMasked = true;
        pendingEvents.add((0x0c << 16) | (0x03 << 8) | 0x02);
        return true;
    }

    /** The host read the ANA log without Retain Asynchronous Event: the next change is notified again. */
    void anaLogRead() {
        anaNoticeMasked = false;
    }

    /** The completion DW0 the next AER would get, or null when no event is pending. */
    Integer nextEvent() {
        return pendingEvents.peek();
    }

    /** Queues an asynchronous event (its completion DW0) for the next outstanding AER. */
    void queueEvent(int dw0) {
        pendingEvents.add(dw0);
    }

    io.jdoca.nvmf.resv.ReservationNotificationLog reservationLog() {
        return reservationLog;
    }

    /** Set Features 82h's mask for namespace {@code nsid} (0: none masked). */
    int reservationMask(int nsid) {
        return reservationMasks.getOrDefault(nsid, 0);
    }

    void setReservationMask(int nsid, int mask) {
        reservationMasks.put(nsid, mask);
    }

    /** The changed namespace list, left as it is (Get Log Page 04h with Retain Asynchronous Event). */
    List<Integer> changedNs() {
        return new ArrayList<>(changedNs);
    }

    /** Reads and clears the changed namespace list (Get Log Page 04h), which unmasks the next notice. */
    List<Integer> takeChangedNs() {
        List<Integer> l = new ArrayList<>(changedNs);
        changedNs.clear();
        return l;
    }

    int arbitration() {
        return arbitration;
    }

    void setArbitration(int v) {
        arbitration = v;
    }

    /** Composite temperature threshold: {@code under} selects the under-temperature one. */
    int tempThreshold(boolean under) {
        return under ? tempUnderComposite : tempOverComposite;
    }

    void setTempThreshold(boolean under, int kelvin) {
        if (under) {
            tempUnderComposite = kelvin;
        } else {
            tempOverComposite = kelvin;
        }
    }

    int errorRecovery() {
        return errorRecovery;
    }

    void setErrorRecovery(int v) {
        errorRecovery = v;
    }

    int writeAtomicity() {
        return writeAtomicity;
    }

    void setWriteAtomicity(int v) {
        writeAtomicity = v;
    }

    /**
     * Records a command that completed with an error in the error information log (64-byte entry,
     * NVMe Base figure "Error Information Log Entry"): error count, SQID, CID, status field,
     * parameter error location (FFFFh: not specific), NSID, transport type (TCP).
     */
    void logError(int sqid, int cid, int status, int nsid) {
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
    List<byte[]> errorLog() {
        return new ArrayList<>(errorLog);
    }

    /** Errors recorded over the controller's life (SMART "Number of Error Information Log Entries"). */
    long errorCount() {
        return errorCount;
    }

    boolean isDead() {
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
