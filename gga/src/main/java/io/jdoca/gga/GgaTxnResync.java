package io.jdoca.gga;

import io.jdoca.core.DocaError;
import io.jdoca.storage.wire.IoMessageType;

/**
 * The resync part of {@link GgaTxnMachine} (docs/STORAGE-GGA.md "Resync"): before the data path
 * opens, or while it is paused for a target that came back mid-session, idle transactions rebuild
 * every dirty stripe of one rejoined target from the two survivors ({@code RESYNC_FETCH} →
 * {@code RESYNC_REBUILD} → {@code RESYNC_STORE}) and clear its bit.
 *
 * <p>Worker thread only; allocation-free.
 */
final class GgaTxnResync {
    private final GgaTxnMachine m;
    int role = -1;
    long cursor;
    int active;
    long rewritten;
    long failures;
    /** The data path is paused for a mid-session resync: host requests wait PARKED. */
    boolean paused;

    GgaTxnResync(GgaTxnMachine m) {
        this.m = m;
    }

    /** Starts on {@code target} with the idle transactions of {@code txns}. */
    void start(int target, GgaTxn[] txns) {
        role = target;
        cursor = 0;
        rewritten = 0;
        failures = 0;
        for (GgaTxn t : txns) {
            if (t.state == TxnState.IDLE) {
                active++;
                next(t);
            }
        }
    }

    /** The rebuild (EC create or recover) of {@code t} finished with {@code status}. */
    void rebuilt(GgaTxn t, DocaError status) {
        if (status != DocaError.SUCCESS) {
            failed(t);
        } else {
            store(t);
        }
    }

    /** Takes the next dirty stripe of the resync target, or retires the transaction when none is left. */
    void next(GgaTxn t) {
        long s = m.dirty[role].nextDirty(cursor);
        if (s < 0 || m.downMask() != 0) {
            if (s >= 0) {
                failures++; // a target is lost: this stripe (and the rest) stay dirty
            }
            if (t.state != TxnState.IDLE) {
                m.to(t, TxnState.IDLE);
            }
            active--;
            return;
        }
        cursor = s + 1;
        if (!m.to(t, TxnState.RESYNC_FETCH)) {
            active--;
            return;
        }
        t.resyncStripe = s;
        t.result = 0;
        t.failedTargets = 0;
        // Fetch the two survivors' halves into the chunk exactly as a recovery read would.
        t.plan = role == TargetRole.DATA_1 ? RecoveryKind.RECOVER_A
                : role == TargetRole.DATA_2 ? RecoveryKind.RECOVER_B : RecoveryKind.NONE;
        int mask = DegradedPolicy.targetsOf(t.plan);
        t.pendingSend = mask;
        t.pendingResp = mask;
        for (int r = 0; r < TargetRole.COUNT; r++) {
            if ((mask & TargetRole.bit(r)) != 0) {
                m.issue(t, r, IoMessageType.READ, t.chunkOffset + m.roleOffset(r), s * m.half);
            }
        }
        m.storageStepDone(t);
    }

    /**
     * A resync stripe failed: it stays dirty, so the target is not declared UP this session; the
     * transaction retires (no retry loop, no recursion through synchronous failures).
     */
    void failed(GgaTxn t) {
        failures++;
        m.to(t, TxnState.IDLE);
        active--;
    }

    void stepDone(GgaTxn t) {
        if (t.failedTargets != 0 || t.result != 0) {
            t.failedTargets = 0;
            failed(t);
            return;
        }
        if (t.state == TxnState.RESYNC_FETCH) {
            if (!m.to(t, TxnState.RESYNC_REBUILD)) {
                return;
            }
            // Parity from data_1 + data_2, or the lost data half from the other two.
            DocaError e = t.plan == RecoveryKind.NONE ? m.port.ecCreate(t.index) : m.port.ecRecover(t.index, t.plan);
            if (e != DocaError.SUCCESS) {
                failed(t);
            }
        } else if (t.state == TxnState.RESYNC_STORE) {
            m.dirty[role].clear(t.resyncStripe);
            rewritten++;
            m.to(t, TxnState.IDLE);
            next(t);
        }
    }

    /** The rebuilt half (at its role's place in the chunk) goes to the rejoined target. */
    void store(GgaTxn t) {
        if (!m.to(t, TxnState.RESYNC_STORE)) {
            return;
        }
        int bit = TargetRole.bit(role);
        t.pendingSend = bit;
        t.pendingResp = bit;
        m.issue(t, role, IoMessageType.WRITE, t.chunkOffset + m.roleOffset(role), t.resyncStripe * m.half);
        m.storageStepDone(t);
    }
}
