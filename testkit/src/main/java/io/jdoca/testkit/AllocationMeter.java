package io.jdoca.testkit;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Measures bytes allocated by the current thread (HotSpot's ThreadMXBean), to prove a data path
 * allocates nothing in steady state: warm up, then {@link #measure} over many operations.
 */
public final class AllocationMeter {
    private static final com.sun.management.ThreadMXBean BEAN =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocationMeter() {
    }

    /** Bytes allocated so far by the calling thread. */
    public static long allocatedBytes() {
        return BEAN.getCurrentThreadAllocatedBytes();
    }

    /** Runs {@code op} {@code ops} times and returns the bytes the calling thread allocated meanwhile. */
    public static long measure(long ops, Runnable op) {
        // Call once first so the bean's own lazy initialisation is not counted.
        allocatedBytes();
        long before = allocatedBytes();
        for (long i = 0; i < ops; i++) {
            op.run();
        }
        return allocatedBytes() - before;
    }

    /**
     * Result of a steady-state measurement: the best round's operation count and bytes, and how many
     * times the operation ran in all (warm-up and every round), for tests that count completions.
     */
    public record Result(long ops, long bytes, long totalRuns, String where) {
        public Result(long ops, long bytes, long totalRuns) {
            this(ops, bytes, totalRuns, "");
        }

        public double bytesPerOp() {
            return (double) bytes / ops;
        }

        /** The bytes, and where they were allocated when any were (for an assertion's message). */
        @Override
        public String toString() {
            return bytes + " bytes over " + ops + " runs" + (where.isEmpty() ? "" : "; allocated at:\n" + where);
        }
    }

    /** Rounds {@link #steadyState} measures at most, keeping the best. */
    public static final int ROUNDS = 5;

    /**
     * Warms {@code op} up for {@code warmup} runs, then measures rounds of {@code ops} runs (at most
     * {@link #ROUNDS}, stopping at the first round that allocates nothing) and returns the round that
     * allocated least. A real per-operation allocation (≥ 16 bytes each time) shows in every round;
     * what one round alone shows is a one-time transient, e.g. the JIT replacing a method mid-round
     * on a loaded machine, and is not steady state.
     */
    public static Result steadyState(long warmup, long ops, Runnable op) {
        for (long i = 0; i < warmup; i++) {
            op.run();
        }
        long bestBytes = Long.MAX_VALUE;
        long runs = warmup;
        for (int round = 0; round < ROUNDS && bestBytes != 0; round++) {
            bestBytes = Math.min(bestBytes, measure(ops, op));
            runs += ops;
        }
        if (bestBytes == 0) {
            return new Result(ops, 0, runs);
        }
        // Every round allocated: one more round under a flight recording says where (the allocation may depend on
        // what the JIT made of the path in this JVM, so the place is caught now, not in a later run).
        String where = where(ops, op);
        return new Result(ops, bestBytes, runs + ops, where);
    }

    /** The allocating frames of the calling thread over {@code ops} runs of {@code op}, most samples first. */
    private static String where(long ops, Runnable op) {
        long tid = Thread.currentThread().threadId();
        try (Recording r = new Recording()) {
            r.enable("jdk.ObjectAllocationInNewTLAB").withStackTrace();
            r.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
            r.enable("jdk.ObjectAllocationSample").withStackTrace().with("throttle", "off");
            r.start();
            for (long i = 0; i < ops; i++) {
                op.run();
            }
            r.stop();
            Path f = Files.createTempFile("alloc", ".jfr");
            try {
                r.dump(f);
                Map<String, Integer> counts = new TreeMap<>();
                for (RecordedEvent e : RecordingFile.readAllEvents(f)) {
                    if (e.getThread() == null || e.getThread().getJavaThreadId() != tid || e.getStackTrace() == null) {
                        continue;
                    }
                    String type = e.getClass("objectClass") == null ? "?" : e.getClass("objectClass").getName();
                    String frames = e.getStackTrace().getFrames().stream().limit(8).map(AllocationMeter::frame)
                            .collect(Collectors.joining(" <- "));
                    counts.merge(type + " at " + frames, 1, Integer::sum);
                }
                return counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                        .limit(5).map(x -> "  " + x.getValue() + "x " + x.getKey()).collect(Collectors.joining("\n"));
            } finally {
                Files.deleteIfExists(f);
            }
        } catch (IOException | RuntimeException e) {
            return "  (no flight recording: " + e + ")";
        }
    }

    private static String frame(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName() + ":" + f.getLineNumber();
    }
}
