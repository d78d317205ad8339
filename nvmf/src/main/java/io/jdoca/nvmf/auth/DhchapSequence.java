package io.jdoca.nvmf.auth;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sequence numbers S1 of the controller's Challenges (NVMe Base 2.0 §8.13.5.3; Base 2.1 Figure 742, the
 * SEQNUM rule of Figure 743): a random non-zero first value, then incremented modulo 2^32 after each use,
 * skipping 0. Linux keeps one counter for the kernel, SPDK one per subsystem; {@link #shared()} is this JVM's,
 * and a controller may be given its own.
 *
 * <p>Thread-safe (lock-free): controllers of several queue pairs draw from one counter concurrently.
 */
public final class DhchapSequence {
    private static final DhchapSequence SHARED = new DhchapSequence(new SecureRandom());

    /** The value the next {@link #next()} returns; never 0. */
    private final AtomicInteger next;

    /** A counter starting at a random non-zero value drawn from {@code random}. */
    public DhchapSequence(SecureRandom random) {
        int first;
        do {
            first = random.nextInt();
        } while (first == 0);
        next = new AtomicInteger(first);
    }

    /** The JVM-wide counter. */
    public static DhchapSequence shared() {
        return SHARED;
    }

    /** A sequence number to use once: never 0, the previous one plus 1 (modulo 2^32, skipping 0). */
    public int next() {
        return next.getAndUpdate(v -> v == -1 ? 1 : v + 1);
    }
}
