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

    /** Every group 1..{@code maxGroups} in {@code initial}. */
    public NvmfListenerAna(int maxGroups, int initial) {
        byte[] s = new byte[maxGroups + 1];
        java.util.Arrays.fill(s, 1, s.length, (byte) initial);
        this.states = s;
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

    /** Sets group {@code anagrpid} (0: every group) to {@code state}. Management thread. */
    public void set(int anagrpid, int state) {
        byte[] s = states.clone();
        if (anagrpid == 0) {
            java.util.Arrays.fill(s, 1, s.length, (byte) state);
        } else {
            s[anagrpid] = (byte) state;
        }
        states = s;
    }

    /** The highest group id this table holds (the subsystem's ANAGRPMAX). */
    public int maxGroups() {
        return states.length - 1;
    }
}
