package io.jdoca.core.util;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Pins threads to CPUs with Linux's {@code sched_setaffinity} through the FFM API, and parses
 * CPU lists the way DOCA ({@code --cpu N}) and SPDK ({@code -m 0x3}, {@code -m [0,2-3]}) give
 * them. A CPU outside the set this process may run on is refused with one line naming the flag.
 *
 * <p>Control path: call {@link #pinCurrentThread} at the start of the thread to pin (it pins the
 * calling thread only). Stateless; safe from any thread.
 */
// FFM: this class is a native binding; its downcall handles and reinterpreted segments are the point
@SuppressWarnings("restricted")
public final class CpuAffinity {
    private static final int MASK_BYTES = 128; // 1024 CPUs, glibc's cpu_set_t
    private static final MethodHandle SET;
    private static final MethodHandle GET;
    private static final MethodHandle GETTID;

    static {
        Linker l = Linker.nativeLinker();
        var lookup = l.defaultLookup();
        FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                ValueLayout.ADDRESS);
        SET = lookup.find("sched_setaffinity").map(a -> l.downcallHandle(a, fd)).orElse(null);
        GET = lookup.find("sched_getaffinity").map(a -> l.downcallHandle(a, fd)).orElse(null);
        GETTID = l.downcallHandle(l.defaultLookup().find("gettid").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
    }

    private CpuAffinity() {
    }

    /** The calling thread's Linux thread id ({@code gettid(2)}), as {@code /proc/<pid>/task/<tid>} names it. */
    public static long currentTid() {
        try {
            return (int) GETTID.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("gettid: " + t, t);
        }
    }

    /** The CPUs this process may run on (the calling thread's affinity mask at the time of the call). */
    public static List<Integer> allowedCpus() {
        if (GET == null) {
            List<Integer> out = new ArrayList<>();
            for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
                out.add(i);
            }
            return out;
        }
        List<Integer> out = maskOf(0);
        if (out == null) {
            throw new IllegalStateException("sched_getaffinity failed");
        }
        return out;
    }

    /** {@code sched_getaffinity} of thread {@code tid} (0: the caller) as a list, or null when refused. */
    private static List<Integer> maskOf(long tid) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(MASK_BYTES);
            if ((int) GET.invokeExact((int) tid, (long) MASK_BYTES, m) != 0) {
                return null;
            }
            List<Integer> out = new ArrayList<>();
            for (int cpu = 0; cpu < MASK_BYTES * 8; cpu++) {
                if ((m.get(ValueLayout.JAVA_BYTE, cpu / 8) & (1 << (cpu % 8))) != 0) {
                    out.add(cpu);
                }
            }
            return out;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_getaffinity: " + t, t);
        }
    }

    /**
     * The CPU for the {@code slot}-th role of a run that starts several pinned apps on one machine (the
     * demos and benches, whose apps all require {@code --cpu}): the slot-th CPU this process may run
     * on, wrapping around. Giving every app CPU 0, as those runs did once {@code --cpu} began to pin,
     * puts a whole storage chain on one core and leaves the others idle.
     */
    public static int spread(int slot) {
        List<Integer> ok = allowedCpus();
        return ok.get(Math.floorMod(slot, ok.size()));
    }

    /**
     * Checks that {@code cpus} may be used; throws IllegalArgumentException "FLAG: CPU n is out of
     * range (this process may run on 0-1)" otherwise.
     */
    public static void check(String flag, List<Integer> cpus) {
        List<Integer> ok = allowedCpus();
        for (int c : cpus) {
            if (!ok.contains(c)) {
                throw new IllegalArgumentException(flag + ": CPU " + c + " is out of range (this process may run on "
                        + ranges(ok) + ")");
            }
        }
    }

    /** Pins the calling thread to {@code cpu}; throws IllegalArgumentException when the kernel refuses. */
    public static void pinCurrentThread(int cpu) {
        if (cpu < 0 || cpu >= MASK_BYTES * 8) {
            throw new IllegalArgumentException("CPU " + cpu + " is out of range 0.." + (MASK_BYTES * 8 - 1));
        }
        if (SET == null) {
            throw new IllegalStateException("sched_setaffinity is not available on this system");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(MASK_BYTES);
            m.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
            int rc = (int) SET.invokeExact(0, (long) MASK_BYTES, m);
            if (rc != 0) {
                throw new IllegalArgumentException("CPU " + cpu
                        + ": sched_setaffinity refused it (offline or not allowed; "
                        + "this process may run on " + ranges(allowedCpus()) + ")");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity: " + t, t);
        }
    }

    /**
     * Sets the CPUs thread {@code tid} of this process may run on (threads it starts later inherit them); false
     * when the kernel refuses (the thread has ended, or no CPU of the list is allowed).
     */
    public static boolean setThreadCpus(long tid, List<Integer> cpus) {
        if (SET == null || cpus.isEmpty()) {
            return false;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = a.allocate(MASK_BYTES);
            for (int cpu : cpus) {
                if (cpu < 0 || cpu >= MASK_BYTES * 8) {
                    throw new IllegalArgumentException("CPU " + cpu + " is out of range 0.." + (MASK_BYTES * 8 - 1));
                }
                m.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (m.get(ValueLayout.JAVA_BYTE, cpu / 8) | 1 << (cpu % 8)));
            }
            return (int) SET.invokeExact((int) tid, (long) MASK_BYTES, m) == 0;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("sched_setaffinity: " + t, t);
        }
    }

    /** The CPUs thread {@code tid} of this process may run on; empty when it cannot be read (the thread ended). */
    public static List<Integer> threadCpus(long tid) {
        List<Integer> out = GET == null ? null : maskOf(tid);
        return out == null ? new ArrayList<>() : out;
    }

    /** See {@link #setUnaffinitizedCpus}; null while no one narrowed the process's threads. */
    private static volatile List<Integer> unaffinitized;

    /**
     * The CPUs {@link #callUnaffinitized} gives: the process's own, recorded by whoever moved its threads to fewer
     * (sta-target {@code -m} keeps them off its engines' CPUs). Control path.
     */
    public static void setUnaffinitizedCpus(List<Integer> cpus) {
        unaffinitized = cpus == null ? null : List.copyOf(cpus);
    }

    /**
     * Runs {@code action} with the calling thread allowed on every CPU of {@link #setUnaffinitizedCpus}, so the
     * threads it starts (librados' workers) run anywhere, as SPDK's {@code spdk_call_unaffinitized} starts them; then
     * gives the thread its own CPUs back. Without a recorded set, just runs it. Control path.
     */
    public static <T> T callUnaffinitized(java.util.function.Supplier<T> action) {
        List<Integer> all = unaffinitized;
        if (all == null) {
            return action.get();
        }
        long tid = currentTid();
        List<Integer> own = threadCpus(tid);
        setThreadCpus(tid, all);
        try {
            return action.get();
        } finally {
            setThreadCpus(tid, own);
        }
    }

    /**
     * SPDK's core mask: hexadecimal ({@code 0x3}, {@code 3}) or a list in brackets
     * ({@code [0,2-3]}). Returns the CPUs in ascending order; IllegalArgumentException naming
     * {@code flag} when malformed or empty.
     */
    public static List<Integer> parseCoreMask(String flag, String mask) {
        String m = mask.trim().toLowerCase(Locale.ROOT);
        TreeSet<Integer> cpus = new TreeSet<>();
        try {
            if (m.startsWith("[") && m.endsWith("]")) {
                for (String part : m.substring(1, m.length() - 1).split(",")) {
                    String p = part.trim();
                    int dash = p.indexOf('-');
                    int lo = Integer.parseInt(dash < 0 ? p : p.substring(0, dash).trim());
                    int hi = dash < 0 ? lo : Integer.parseInt(p.substring(dash + 1).trim());
                    if (lo < 0 || hi < lo || hi >= MASK_BYTES * 8) {
                        throw new NumberFormatException();
                    }
                    for (int c = lo; c <= hi; c++) {
                        cpus.add(c);
                    }
                }
            } else {
                String hex = m.startsWith("0x") ? m.substring(2) : m;
                java.math.BigInteger v = new java.math.BigInteger(hex, 16);
                if (v.signum() < 0 || v.bitLength() > MASK_BYTES * 8) {
                    throw new NumberFormatException();
                }
                for (int c = 0; c < v.bitLength(); c++) {
                    if (v.testBit(c)) {
                        cpus.add(c);
                    }
                }
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + ": '" + mask + "' is not a core mask (e.g. 0x3 or [0,2-3])");
        }
        if (cpus.isEmpty()) {
            throw new IllegalArgumentException(flag + ": '" + mask + "' selects no CPU");
        }
        return new ArrayList<>(cpus);
    }

    /** "0-1,4" for [0,1,4]. */
    static String ranges(List<Integer> cpus) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cpus.size(); i++) {
            int lo = cpus.get(i);
            int hi = lo;
            while (i + 1 < cpus.size() && cpus.get(i + 1) == hi + 1) {
                hi = cpus.get(++i);
            }
            b.append(b.isEmpty() ? "" : ",").append(lo).append(lo == hi ? "" : "-" + hi);
        }
        return b.toString();
    }
}
