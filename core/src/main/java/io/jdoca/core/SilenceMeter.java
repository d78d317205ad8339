package io.jdoca.core;

/**
 * Counts how long a peer has been silent, as seen by a checker that ticks periodically. Time
 * between two ticks counts at most {@code maxCredit}: when the checker itself ran late (a GC pause
 * of this process, a starved thread, a suspended VM), the peer's bytes may be sitting unread in our
 * socket, so that gap is this process's stall, not the peer's silence. A steady checker counts
 * wall time; a stalled one never blames the peer for its own stall.
 *
 * <p>Not thread-safe: one checker thread (and a fake clock in tests).
 */
public final class SilenceMeter {
    private final long maxCredit;
    private long lastTick;
    private long lastRxSeen;
    private long silent;

    /**
     * @param now       the clock now (nanoseconds)
     * @param lastRx    the clock when the peer was last heard from
     * @param maxCredit most silence one tick may add (a few checker periods)
     */
    public SilenceMeter(long now, long lastRx, long maxCredit) {
        this.maxCredit = maxCredit;
        this.lastTick = now;
        this.lastRxSeen = lastRx;
    }

    /** One check at {@code now}, the peer last heard from at {@code lastRx}; returns the silence counted so far. */
    public long tick(long now, long lastRx) {
        long gap = Math.max(0, now - lastTick);
        lastTick = now;
        if (lastRx != lastRxSeen) {
            lastRxSeen = lastRx;
            silent = Math.min(Math.max(0, now - lastRx), maxCredit);
        } else {
            silent += Math.min(gap, maxCredit);
        }
        return silent;
    }

    /** The silence counted so far. */
    public long silentNanos() {
        return silent;
    }

    /** Forgets the silence (the peer was heard from by other means). */
    public void reset(long now, long lastRx) {
        lastTick = now;
        lastRxSeen = lastRx;
        silent = 0;
    }
}
