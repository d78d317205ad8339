package io.jdoca.nvmf.perf;

/**
 * The wait policy of an initiator queue between its commands and their answers, after Linux
 * blk-mq's hybrid polling: sleep through the part of the wait in which no answer can come yet,
 * then spin so that the answer is seen the moment it arrives, and block in the socket only when
 * the wait runs far past what a command usually takes.
 *
 * <p>Why: a queue that sleeps in the socket pays a thread wake-up per burst of answers (on this
 * project's 2-vCPU test machine 27–36 µs: a halted vCPU woken by the host), which at a disk-bound
 * QD 32 is IOPS lost; a queue that spins takes a whole core and, on a shared machine, loses it
 * to the scheduler. docs/performance/nvmf.md has the measurements.
 *
 * <p>When to wake: like blk-mq, from the commands' own latency, not from the gaps between answers
 * (those are bimodal under a disk that completes in batches: a few microseconds between the
 * groups of one batch, a whole device round between batches). The queue tracks the mean command
 * latency ({@link #completed}); idle, it sleeps until the oldest outstanding command is half that
 * mean old, less the sleep's learned overshoot (the wake-up), so a command finishing in under half
 * the mean is the only one that can wait for the queue. Sleeps shorter than
 * {@link #MIN_SLEEP_NANOS} are spun through (the memory back-end's answers come within
 * microseconds); past the mean plus {@link #SPIN_SLACK_NANOS} the queue blocks in the socket.
 *
 * <p>Thread rules: one instance per queue thread, not thread-safe; allocation-free. Times are
 * {@link System#nanoTime()} values passed in by the caller, so tests drive it with a fake clock.
 */
public final class HybridPoll {
    /** What the queue does next while it has nothing to read or send. */
    public enum Action { SPIN, SLEEP, BLOCK }

    /** A sleep shorter than this is not worth its wake-up: spin instead. */
    static final long MIN_SLEEP_NANOS = 30_000L;
    /** How far past the mean latency the oldest command may get, spinning, before the queue blocks. */
    static final long SPIN_SLACK_NANOS = 200_000L;
    /** Longer latencies and overshoots (the run's start, a stalled target) are learned as this much. */
    static final long MAX_LEARNED_NANOS = 5_000_000L;

    private long meanLatency;
    private long overshoot;
    private long sleepAsked;
    private long sleepStarted;
    /** Sleeps asked for, and those after which an answer was already waiting (for logs and tests). */
    long sleeps;
    long overslept;
    long blocks;

    /** A command completed {@code latencyNanos} after it was sent: learns the mean latency. */
    public void completed(long latencyNanos) {
        meanLatency += (Math.min(latencyNanos, MAX_LEARNED_NANOS) - meanLatency) >> 4;
    }

    /**
     * A poll found nothing to do at time {@code now}; {@code oldestSent} is when the oldest
     * outstanding command was sent ({@code now} if none is). For {@link Action#SLEEP} the caller
     * sleeps {@link #sleepNanos()} and then calls {@link #woke}.
     */
    public Action idle(long now, long oldestSent) {
        long age = now - oldestSent;
        long target = meanLatency / 2 - Math.min(overshoot, meanLatency / 4) - age;
        if (target >= MIN_SLEEP_NANOS) {
            sleeps++;
            sleepAsked = target;
            sleepStarted = now;
            return Action.SLEEP;
        }
        if (age < meanLatency + SPIN_SLACK_NANOS) {
            return Action.SPIN;
        }
        blocks++;
        return Action.BLOCK;
    }

    /** How long to sleep after {@link #idle} returned {@link Action#SLEEP}. */
    public long sleepNanos() {
        return sleepAsked;
    }

    /**
     * The sleep that {@link #idle} asked for ended at {@code now}; {@code answerWaiting}: the first
     * poll after it found work (the answer may have waited for the queue). Learns the overshoot.
     */
    public void woke(long now, boolean answerWaiting) {
        long over = Math.min(Math.max(0, now - sleepStarted - sleepAsked), MAX_LEARNED_NANOS);
        overshoot += (over - overshoot) >> 2;
        if (answerWaiting) {
            overslept++;
        }
    }

    /** The learned mean command latency, in nanoseconds. */
    public long meanLatency() {
        return meanLatency;
    }

    /** The learned overshoot of a sleep past what was asked, in nanoseconds. */
    public long overshoot() {
        return overshoot;
    }
}
