package io.jdoca.gga;

import io.jdoca.core.DocaError;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;

/**
 * The GGA transaction state machine ({@link TxnState} documents the flow): every transaction's
 * state, the degraded-mode bookkeeping (targets down, dirty stripes, refetches), the resync of a
 * rejoined target and the data-path counters. It does no IO itself: each step is a call on its
 * {@link GgaTxnPort}, and each completion comes back as an {@code on...} event. An event the
 * transaction's state does not expect is rejected with {@link DocaError#BAD_STATE} (and counted as an
 * illegal transition); nothing changes then.
 *
 * <p>Single-threaded: the owning worker thread only, except {@link #readCounters} (any thread, racy
 * by design). Allocation-free after construction; no locks, no exceptions on the data path.
 */
public final class GgaTxnMachine {
    private static final System.Logger LOG = System.getLogger(GgaTxnMachine.class.getName());
    /** Operations before the allocation baseline is taken (class loading, JIT, first-use caches). */
    static final long WARMUP_OPS = 2048;

    private final int index;
    private final GgaLayout layout;
    final int half;
    private final int block;
    private final long capacity;
    private final long hostLen;
    final DirtyStripes[] dirty;
    private final RecoveryScheduler scheduler;
    final GgaTxnPort port;
    private final GgaTxn[] txns;

    private boolean dataPath;
    private int downMask;
    private int inflight;
    /** The resync of a rejoined target (before the data path). */
    private final GgaTxnResync resync = new GgaTxnResync(this);

    /** The data-path counters (single writer: this machine). */
    private final GgaTxnCounters c = new GgaTxnCounters();

    /**
     * A machine of {@code transactions} slots; transaction i owns the chunk at
     * {@code scratchOffset + i * chunkSize} of the scratch map. {@code dirty} may be null (no log).
     */
    public GgaTxnMachine(int index, GgaLayout layout, int transactions, long capacity, long hostLen,
            long scratchOffset, int recoverEveryN, DirtyStripes[] dirty, GgaTxnPort port) {
        this.index = index;
        this.layout = layout;
        this.half = layout.halfSize();
        this.block = layout.blockSize();
        this.capacity = capacity;
        this.hostLen = hostLen;
        this.dirty = dirty;
        this.scheduler = new RecoveryScheduler(recoverEveryN);
        this.port = port;
        this.txns = new GgaTxn[transactions];
        for (int i = 0; i < transactions; i++) {
            txns[i] = new GgaTxn(i, scratchOffset + i * layout.chunkSize());
        }
    }

    /** Any thread (metrics): the counters in the order of {@link GgaService#METRICS}; racy by design. */
    public void readCounters(long[] into) {
        c.read(into);
    }

    /** Worker-state counters for {@link WorkerStats} (hits and misses are the engine's). */
    public WorkerStats snapshot(long hits, long misses) {
        return new WorkerStats(index, c.ops, c.reads, c.writes, c.recoveries, c.degradedReads, c.failedIos,
                c.refusedWrites, c.tooBigWrites, c.refetches, hits, misses, downMask, c.illegalTransitions,
                c.allocOnDataPath, c.opsMeasured);
    }

    // =================================================================== control (worker thread)

    /** Number of transaction slots. */
    public int transactions() {
        return txns.length;
    }

    /** The state of transaction {@code txn}. */
    public TxnState state(int txn) {
        return txns[txn].state;
    }

    /** Offset of transaction {@code txn}'s chunk in the scratch map. */
    public long chunkOffset(int txn) {
        return txns[txn].chunkOffset;
    }

    /** Mask of targets declared lost ({@link TargetRole#bit}). */
    public int downMask() {
        return downMask;
    }

    /** Transactions between request and reply. */
    public int inflight() {
        return inflight;
    }

    /** Transactions still resyncing (0: done). */
    public int resyncActive() {
        return resync.active;
    }

    /** {rewritten, failed} stripes of the last resync. */
    public long[] resyncResult() {
        return new long[] {resync.rewritten, resync.failures};
    }

    /** Opens the data path (after the receives are posted by the caller); BAD_STATE while resyncing. */
    public DocaError startDataPath() {
        if (resync.active != 0) {
            return DocaError.BAD_STATE;
        }
        c.allocAtStart = -1;
        dataPath = true;
        return DocaError.SUCCESS;
    }

    /** Ends the data path; in-flight transactions finish ({@link #inflight()} drains). */
    public void stopDataPath() {
        if (dataPath && c.allocAtStart >= 0) {
            // Bytes this thread allocated in steady state (after WARMUP_OPS): the data path's, target 0.
            c.allocOnDataPath = io.jdoca.core.agent.ThreadAllocation.current() - c.allocAtStart;
            c.opsMeasured = c.ops - WARMUP_OPS;
        }
        dataPath = false;
    }

    /** Closes the data path without measuring it (tear-down). */
    public void closeDataPath() {
        dataPath = false;
    }

    /**
     * Starts rebuilding every stripe of {@code dirty[role]} on {@code role} from the two other targets
     * with every idle transaction (before the data path: nothing else writes meanwhile); BAD_STATE
     * when the data path is open, a resync runs or there is no log.
     */
    public DocaError startResync(int role) {
        if (!canStartResync(role)) {
            return DocaError.BAD_STATE;
        }
        resync.start(role, txns);
        return DocaError.SUCCESS;
    }

    /** Whether {@link #startResync} would accept {@code role} now (before the data path, or paused and drained). */
    public boolean canStartResync(int role) {
        return (!dataPath || (resync.paused && inflight == 0)) && resync.active == 0 && dirty != null
                && dirty[role] != null;
    }

    /** Pauses the data path (a target rejoins mid-session): new host requests wait PARKED, in-flight ones finish. */
    public void pauseDataPath() {
        resync.paused = true;
    }

    /** Ends the pause; the caller hands every {@link #unpark unparked} request in again. */
    public void resumeDataPath() {
        resync.paused = false;
    }

    /** PARKED → IDLE for transaction {@code txn}; true if it had a request waiting. */
    public boolean unpark(int txn) {
        GgaTxn t = txns[txn];
        return t.state == TxnState.PARKED && to(t, TxnState.IDLE);
    }

    /** A lost target is reconnected (mid-session, data path paused): it takes writes again. */
    public void targetBack(int role) {
        downMask &= ~TargetRole.bit(role);
    }

    /** The control connection of {@code role} dropped: treat the target as lost. */
    public void targetLost(int role) {
        markDown(role);
    }

    /** A context of {@code role} left RUNNING: the target is lost if it mattered (data path or resync). */
    public void onTargetContextDown(int role) {
        if (dataPath || resync.active > 0) {
            markDown(role);
        }
    }

    // =================================================================== events (data path, allocation-free)

    boolean to(GgaTxn t, TxnState next) {
        if (!t.state.canTransitionTo(next)) {
            c.illegalTransitions++;
            return false;
        }
        t.state = next;
        return true;
    }

    private DocaError reject() {
        c.illegalTransitions++;
        return DocaError.BAD_STATE;
    }

    /** The initiator's message {@code m} ({@code len} bytes received) arrived for idle transaction {@code txn}. */
    public DocaError onHostRequest(int txn, IoMessage m, long len) {
        GgaTxn t = txns[txn];
        if (t.state != TxnState.IDLE) {
            return reject();
        }
        if (resync.paused) {
            to(t, TxnState.PARKED); // waits for resumeDataPath: a target is being resynced mid-session
            return DocaError.SUCCESS;
        }
        inflight++;
        t.result = 0;
        t.block = 0;
        t.refetches = 0;
        t.failedTargets = 0;
        t.pendingSend = 0;
        t.pendingResp = 0;
        t.storageOffset = m.storageOffset();
        t.requesterOffset = m.requesterOffset();
        int type = m.typeCode();
        int blocks = IoRequestCheck.request(m, len, layout, capacity, hostLen);
        if (blocks < 0) {
            fail(t, DocaError.INVALID_VALUE);
            return DocaError.SUCCESS;
        }
        t.blocks = blocks;
        if (type == IoMessageType.READ.code()) {
            t.write = false;
            t.scheduled = scheduler.next();
            readBlock(t);
        } else if (type == IoMessageType.WRITE.code()) {
            t.write = true;
            if (!DegradedPolicy.writeAllowed(downMask)) {
                c.refusedWrites++;
                fail(t, DegradedPolicy.REFUSED);
                return DocaError.SUCCESS;
            }
            writeBlock(t);
        } else {
            fail(t, DocaError.INVALID_VALUE);
        }
        return DocaError.SUCCESS;
    }

    /** The request to target {@code role} went out (or failed with {@code status}). */
    public DocaError onRequestSent(int txn, int role, DocaError status) {
        GgaTxn t = txns[txn];
        int bit = TargetRole.bit(role);
        if ((t.pendingSend & bit) == 0) {
            return DocaError.SUCCESS; // abandoned when the target was declared lost
        }
        t.pendingSend &= ~bit;
        if (status != DocaError.SUCCESS) {
            t.pendingResp &= ~bit; // an undelivered request gets no response
            t.failedTargets |= bit;
        }
        storageStepDone(t);
        return DocaError.SUCCESS;
    }

    /** Target {@code role} answered transaction {@code txn} with result {@code code} (0: success). */
    public DocaError onResponse(int txn, int role, int code) {
        GgaTxn t = txns[txn];
        int bit = TargetRole.bit(role);
        if ((t.pendingResp & bit) == 0) {
            return DocaError.SUCCESS; // late answer of an abandoned request: dropped
        }
        t.pendingResp &= ~bit;
        if (code != 0 && t.result == 0) {
            t.result = code; // reference §5: any target's failure is copied into the reply
        }
        storageStepDone(t);
        return DocaError.SUCCESS;
    }

    /** The DMA from the initiator finished with {@code status}. */
    public DocaError onFetchedFromInitiator(int txn, DocaError status) {
        GgaTxn t = txns[txn];
        if (t.state != TxnState.FETCH_FROM_INITIATOR) {
            return reject();
        }
        if (status != DocaError.SUCCESS) {
            fail(t, status);
            return DocaError.SUCCESS;
        }
        // Software LZ4 runs inline, as DOCA's liblz4 path does.
        int csize = port.packBlock(txn);
        if (csize < 0) {
            c.tooBigWrites++;
            fail(t, DocaError.fromCode(-csize));
            return DocaError.SUCCESS;
        }
        if (!to(t, TxnState.EC_CREATE)) {
            return DocaError.BAD_STATE;
        }
        DocaError e = port.ecCreate(txn);
        if (e != DocaError.SUCCESS) {
            fail(t, e);
        }
        return DocaError.SUCCESS;
    }

    /** EC create finished with {@code status} (a write's parity or a resync's rebuilt parity). */
    public DocaError onEcCreated(int txn, DocaError status) {
        GgaTxn t = txns[txn];
        if (t.state == TxnState.RESYNC_REBUILD) {
            resync.rebuilt(t, status);
            return DocaError.SUCCESS;
        }
        if (t.state != TxnState.EC_CREATE) {
            return reject();
        }
        if (status != DocaError.SUCCESS) {
            fail(t, status);
            return DocaError.SUCCESS;
        }
        if (!DegradedPolicy.writeAllowed(downMask)) {
            c.refusedWrites++;
            fail(t, DegradedPolicy.REFUSED);
            return DocaError.SUCCESS;
        }
        long storage = layout.targetOffset(t.storageOffset, t.block);
        int live = TargetRole.ALL_MASK & ~downMask;
        // The lost target's half is logged (and, with a write-ahead file, flushed) before the write
        // goes out and long before the reply: its rejoin rebuilds the stripe (resync).
        if (!markDirty(~live & TargetRole.ALL_MASK, storage)) {
            fail(t, DocaError.IO_FAILED);
            return DocaError.SUCCESS;
        }
        if (!to(t, TxnState.STORE_HALVES)) {
            return DocaError.BAD_STATE;
        }
        t.pendingSend = live;
        t.pendingResp = live;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if ((live & TargetRole.bit(r)) != 0) {
                issue(t, r, IoMessageType.WRITE, t.chunkOffset + roleOffset(r), storage);
            }
        }
        storageStepDone(t);
        return DocaError.SUCCESS;
    }

    /** EC recover finished with {@code status} (a recovery read's or a resync's rebuilt half). */
    public DocaError onEcRecovered(int txn, DocaError status) {
        GgaTxn t = txns[txn];
        if (t.state == TxnState.RESYNC_REBUILD) {
            resync.rebuilt(t, status);
            return DocaError.SUCCESS;
        }
        if (t.state != TxnState.RECOVER) {
            return reject();
        }
        if (status != DocaError.SUCCESS) {
            fail(t, status);
            return DocaError.SUCCESS;
        }
        decompress(t);
        return DocaError.SUCCESS;
    }

    /** The decompression finished; {@code ok}: success and exactly one block came out. */
    public DocaError onDecompressed(int txn, boolean ok) {
        GgaTxn t = txns[txn];
        if (t.state != TxnState.DECOMPRESS) {
            return reject();
        }
        if (!ok) {
            // Corrupt or inconsistent halves never reach the initiator as data.
            fail(t, DocaError.IO_FAILED);
            return DocaError.SUCCESS;
        }
        if (++t.block < t.blocks) {
            readBlock(t);
        } else {
            respond(t);
        }
        return DocaError.SUCCESS;
    }

    /** The reply went out (or failed with {@code status}); the transaction is idle again. */
    public DocaError onReplySent(int txn, DocaError status) {
        GgaTxn t = txns[txn];
        if (t.state != TxnState.RESPOND) {
            return reject();
        }
        t.state = TxnState.IDLE;
        inflight--;
        if (status == DocaError.SUCCESS) {
            if (++c.ops == WARMUP_OPS) {
                c.allocAtStart = io.jdoca.core.agent.ThreadAllocation.current();
            }
            if (t.write) {
                c.writes++;
            } else {
                c.reads++;
            }
        }
        port.repostHostReceive(txn);
        return DocaError.SUCCESS;
    }

    // ------------------------------------------------------------------- steps

    private void readBlock(GgaTxn t) {
        RecoveryKind plan = DegradedPolicy.readPlan(t.scheduled, downMask);
        if (plan == null) {
            fail(t, DegradedPolicy.REFUSED);
            return;
        }
        if (!to(t, TxnState.FETCH_HALVES)) {
            return;
        }
        t.plan = plan;
        if (plan != RecoveryKind.NONE) {
            c.recoveries++;
            if (plan != t.scheduled) {
                c.degradedReads++;
            }
        }
        int mask = DegradedPolicy.targetsOf(plan);
        long storage = layout.targetOffset(t.storageOffset, t.block);
        t.pendingSend = mask;
        t.pendingResp = mask;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if ((mask & TargetRole.bit(r)) != 0) {
                issue(t, r, IoMessageType.READ, t.chunkOffset + roleOffset(r), storage);
            }
        }
        storageStepDone(t);
    }

    long roleOffset(int role) {
        return role == TargetRole.DATA_1 ? layout.data1Offset()
                : role == TargetRole.DATA_2 ? layout.data2Offset() : layout.parityOffset();
    }

    void issue(GgaTxn t, int role, IoMessageType type, long requesterOffset, long storageOffset) {
        DocaError e = port.sendRequest(t.index, role, type, half, requesterOffset, storageOffset);
        if (e != DocaError.SUCCESS) {
            int bit = TargetRole.bit(role);
            t.pendingSend &= ~bit;
            t.pendingResp &= ~bit;
            t.failedTargets |= bit;
        }
    }

    /** A target is gone: abandon what it owes to every transaction and let each one move on. */
    private void markDown(int role) {
        int bit = TargetRole.bit(role);
        if ((downMask & bit) != 0) {
            return;
        }
        downMask |= bit;
        port.reportTargetLost(role);
        for (GgaTxn t : txns) {
            if (((t.pendingSend | t.pendingResp) & bit) != 0) {
                t.pendingSend &= ~bit;
                t.pendingResp &= ~bit;
                t.failedTargets |= bit;
                storageStepDone(t);
            }
        }
    }

    /** All sends and responses of the current storage step are in (or abandoned). */
    void storageStepDone(GgaTxn t) {
        if ((t.pendingSend | t.pendingResp) != 0) {
            return;
        }
        if (t.state == TxnState.RESYNC_FETCH || t.state == TxnState.RESYNC_STORE) {
            resync.stepDone(t);
            return;
        }
        if (t.state == TxnState.FETCH_HALVES) {
            if (t.failedTargets != 0) {
                boolean lost = (t.failedTargets & ~downMask) == 0;
                t.failedTargets = 0;
                if (lost && t.result == 0 && t.refetches < 3) {
                    // Degraded mode: refetch this block from the survivors (recovery).
                    t.refetches++;
                    c.refetches++;
                    readBlock(t);
                    return;
                }
                if (t.result == 0) {
                    t.result = lost ? DegradedPolicy.REFUSED.code() : DocaError.IO_FAILED.code();
                }
            }
            if (t.result != 0) {
                respond(t);
            } else if (t.plan == RecoveryKind.NONE) {
                decompress(t);
            } else {
                recover(t);
            }
        } else if (t.state == TxnState.STORE_HALVES) {
            if (t.failedTargets != 0) {
                boolean lost = (t.failedTargets & ~downMask) == 0;
                if (lost && DegradedPolicy.writeAllowed(downMask)) {
                    // The write died with its target (the write hole): the survivors hold the new
                    // stripe; the lost half is logged dirty and rebuilt when the target rejoins.
                    if (!markDirty(t.failedTargets, layout.targetOffset(t.storageOffset, t.block)) && t.result == 0) {
                        t.result = DocaError.IO_FAILED.code(); // not in the write-ahead log: not acknowledged
                    }
                } else if (t.result == 0) {
                    t.result = lost ? DegradedPolicy.REFUSED.code() : DocaError.IO_FAILED.code();
                }
                t.failedTargets = 0;
            }
            if (t.result != 0) {
                respond(t);
            } else if (++t.block < t.blocks) {
                writeBlock(t);
            } else {
                respond(t);
            }
        }
    }

    /**
     * Logs the stripe at target offset {@code storage} dirty for every target in {@code mask}; false
     * if a write-ahead flush failed.
     */
    private boolean markDirty(int mask, long storage) {
        long stripe = storage / half;
        boolean ok = true;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if ((mask & TargetRole.bit(r)) != 0 && dirty != null && dirty[r] != null) {
                ok &= dirty[r].mark(stripe);
            }
        }
        return ok;
    }

    private void recover(GgaTxn t) {
        if (!to(t, TxnState.RECOVER)) {
            return;
        }
        DocaError e = port.ecRecover(t.index, t.plan);
        if (e != DocaError.SUCCESS) {
            fail(t, e);
        }
    }

    private void decompress(GgaTxn t) {
        if (!to(t, TxnState.DECOMPRESS)) {
            return;
        }
        DocaError e = port.decompress(t.index, t.requesterOffset + (long) t.block * block);
        if (e != DocaError.SUCCESS) {
            fail(t, e);
        }
    }

    private void writeBlock(GgaTxn t) {
        if (!to(t, TxnState.FETCH_FROM_INITIATOR)) {
            return;
        }
        DocaError e = port.fetchFromInitiator(t.index, t.requesterOffset + (long) t.block * block);
        if (e != DocaError.SUCCESS) {
            fail(t, e);
        }
    }

    private void fail(GgaTxn t, DocaError e) {
        if (t.result == 0) {
            t.result = e.code();
        }
        respond(t);
    }

    private void respond(GgaTxn t) {
        if (!to(t, TxnState.RESPOND)) {
            return;
        }
        if (t.result != 0) {
            c.failedIos++;
        }
        DocaError e = port.reply(t.index, t.result);
        if (e != DocaError.SUCCESS) {
            // The initiator is gone: the transaction cannot complete; release its slot.
            t.state = TxnState.IDLE;
            inflight--;
        }
    }
}
