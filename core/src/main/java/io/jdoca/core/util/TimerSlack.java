package io.jdoca.core.util;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Sets the calling thread's timer slack ({@code prctl(PR_SET_TIMERSLACK)}) through the FFM API.
 *
 * <p>Why: Linux lets a timed sleep of an ordinary thread end up to its timer slack late (50 µs by
 * default) so that wake-ups can be batched. A thread that sleeps for tens of microseconds on
 * purpose (nvme-perf's hybrid-polling queues) then sleeps two or three times what it asked: measured on this project's
 * 2-vCPU machine, {@code parkNanos}
 * of 50 or 200 µs overshot by ≈ 100 µs with the default slack and by 27–36 µs (the wake-up
 * itself) with a slack of 1 µs.
 *
 * <p>Control path: call it once at the start of the thread it is for (it applies to the calling
 * thread only). Stateless; safe from any thread.
 */
@SuppressWarnings("restricted") // FFM: a native binding
public final class TimerSlack {
    /** {@code PR_SET_TIMERSLACK} of {@code linux/prctl.h}. */
    static final int PR_SET_TIMERSLACK = 29;
    /** {@code PR_GET_TIMERSLACK} of {@code linux/prctl.h}. */
    static final int PR_GET_TIMERSLACK = 30;
    private static final MethodHandle PRCTL;

    static {
        Linker l = Linker.nativeLinker();
        // int prctl(int option, ...): variadic after the first argument
        PRCTL = l.defaultLookup().find("prctl").map(a -> l.downcallHandle(a,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
                Linker.Option.firstVariadicArg(1))).orElse(null);
    }

    private TimerSlack() {
    }

    /** Sets the calling thread's timer slack to {@code nanos}; false where the system has no prctl or refuses. */
    public static boolean setCurrentThread(long nanos) {
        if (PRCTL == null || nanos <= 0) {
            return false;
        }
        try {
            return (int) PRCTL.invokeExact(PR_SET_TIMERSLACK, nanos) == 0;
        } catch (Throwable e) {
            return false;
        }
    }

    /** The calling thread's timer slack in nanoseconds, or -1 where it cannot be read. */
    public static long currentThread() {
        if (PRCTL == null) {
            return -1;
        }
        try {
            return (int) PRCTL.invokeExact(PR_GET_TIMERSLACK, 0L);
        } catch (Throwable e) {
            return -1;
        }
    }
}
