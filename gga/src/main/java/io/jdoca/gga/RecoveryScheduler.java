package io.jdoca.gga;

/**
 * Decides which reads become simulated recovery reads ({@code --trigger-recovery-read-every-n},
 * reference §5 "Recovery read"): a counter reloads from N and every Nth read recovers, alternating
 * recover_a (even recovery count) and recover_b (odd). N = 0 disables it.
 *
 * <p>Per worker; not thread-safe; allocation-free.
 */
public final class RecoveryScheduler {
    private final int everyN;
    private int counter;
    private long recoveries;

    public RecoveryScheduler(int everyN) {
        if (everyN < 0) {
            throw new IllegalArgumentException("--trigger-recovery-read-every-n must be >= 0, got " + everyN);
        }
        this.everyN = everyN;
        this.counter = everyN;
    }

    /** Called once per read block: the kind of fetch it gets. */
    public RecoveryKind next() {
        if (everyN == 0) {
            return RecoveryKind.NONE;
        }
        if (--counter != 0) {
            return RecoveryKind.NONE;
        }
        counter = everyN;
        return (recoveries++ & 1) == 0 ? RecoveryKind.RECOVER_A : RecoveryKind.RECOVER_B;
    }

    /** Recovery reads scheduled so far. */
    public long recoveries() {
        return recoveries;
    }

    public int everyN() {
        return everyN;
    }
}
