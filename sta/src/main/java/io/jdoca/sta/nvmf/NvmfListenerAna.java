package io.jdoca.sta.nvmf;

import io.jdoca.sta.nvme.NvmeStatus;

/**
 * The Asymmetric Namespace Access state of every ANA group as seen through one listener of one
 * subsystem (NVMe Base 2.0 §8.1.3; SPDK's {@code spdk_nvmf_subsystem_listener.ana_state}): each
 * I/O queue that connected through that listener checks the state of the namespace's group before
 * it executes a command, so a path the operator made inaccessible answers with the path-related
 * status the host fails over on.
 *
 * <p>Threads: written by the management thread only ({@link #set}, which replaces the array);
 * read by IO engines on every I/O through one volatile read, no lock, no allocation.
 */
public final class NvmfListenerAna {
    /** ANA state values (Base 2.0 figure 200, the ANA log's "ANA State" field). */
    public static final int OPTIMIZED = 0x01;
    public static final int NON_OPTIMIZED = 0x02;
    public static final int INACCESSIBLE = 0x03;
    public static final int PERSISTENT_LOSS = 0x04;
    public static final int CHANGE = 0x0f;

    /** State per ANA group id (index 0 unused); replaced as a whole, never changed in place. */
    private volatile byte[] states;
    /** The state each group in {@link #CHANGE} is going to (0: none); management thread only. */
    private byte[] pending;

    /** Every group 1..{@code maxGroups} in {@code initial}. */
    public NvmfListenerAna(int maxGroups, int initial) {
        byte[] s = new byte[maxGroups + 1];
        java.util.Arrays.fill(s, 1, s.length, (byte) initial);
        this.states = s;
        this.pending = new byte[s.length];
    }

    /** The state of group {@code anagrpid} (OPTIMIZED for an id outside the table). Any thread. */
    public int state(int anagrpid) {
        byte[] s = states;
        return anagrpid > 0 && anagrpid < s.length ? s[anagrpid] : OPTIMIZED;
    }

    /**
     * The status an I/O command to a namespace of group {@code anagrpid} gets on this path before it
     * executes: SUCCESS on an optimized or non-optimized path, else the path-related status that
     * matches the state (Base 2.0 §8.1.3.5-8.1.3.7). IO thread; allocation-free.
     */
    public int ioStatus(int anagrpid) {
        return switch (state(anagrpid)) {
            case INACCESSIBLE -> NvmeStatus.ANA_INACCESSIBLE;
            case PERSISTENT_LOSS -> NvmeStatus.ANA_PERSISTENT_LOSS;
            case CHANGE -> NvmeStatus.ANA_TRANSITION;
            default -> NvmeStatus.SUCCESS;
        };
    }

    /** Sets group {@code anagrpid} (0: every group) to {@code state} at once. Management thread. */
    public void set(int anagrpid, int state) {
        byte[] s = states.clone();
        for (int g = anagrpid == 0 ? 1 : anagrpid; g <= (anagrpid == 0 ? s.length - 1 : anagrpid); g++) {
            s[g] = (byte) state;
            pending[g] = 0;
        }
        states = s;
    }

    /**
     * Starts moving group {@code anagrpid} (0: every group) to {@code state} through the ANA Change
     * state (Base 2.0 §8.1.3.8: I/O meanwhile gets ANA Transition, which hosts retry elsewhere or
     * later); {@link #settle} ends the transition. A group already in {@code state} does not move.
     * Returns whether any group moved. Management thread.
     */
    public boolean beginTransition(int anagrpid, int state) {
        byte[] s = states.clone();
        boolean moved = false;
        for (int g = anagrpid == 0 ? 1 : anagrpid; g <= (anagrpid == 0 ? s.length - 1 : anagrpid); g++) {
            int settled = pending[g] != 0 ? pending[g] : s[g];
            if (settled != state) {
                s[g] = (byte) CHANGE;
                pending[g] = (byte) state;
                moved = true;
            }
        }
        states = s;
        return moved;
    }

    /** Ends every transition: each group in Change takes the state it was going to. True when one did. */
    public boolean settle() {
        byte[] s = null;
        for (int g = 1; g < pending.length; g++) {
            if (pending[g] != 0) {
                s = s == null ? states.clone() : s;
                s[g] = pending[g];
                pending[g] = 0;
            }
        }
        if (s != null) {
            states = s;
        }
        return s != null;
    }

    /** The state group {@code anagrpid} is in, or going to during a transition. Management thread. */
    public int settledState(int anagrpid) {
        return anagrpid > 0 && anagrpid < pending.length && pending[anagrpid] != 0 ? pending[anagrpid]
                : state(anagrpid);
    }

    /** The highest group id this table holds (the subsystem's ANAGRPMAX). */
    public int maxGroups() {
        return states.length - 1;
    }
}
