package io.jdoca.nvmf.tgt;

import io.jdoca.core.util.CpuAffinity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives the IO engines their CPUs to themselves when {@code -m} pins them, as SPDK's reactors have theirs: every
 * other thread of the process (the JVM's JIT compilers and GC, the management and listener threads) is moved to the
 * remaining CPUs before the engines start, and the threads those start later (handshakes', the RPC server's) inherit
 * that. librados' workers, which SPDK starts unaffinitized, are started with every CPU
 * ({@link CpuAffinity#callUnaffinitized}): they wait on the cluster, not on the engine. An engine thread then pins
 * itself to its CPU ({@link NvmfEngine#onStart}). When the engines' CPUs are all the process may use, nothing moves
 * (and the log says so): the other threads then share them.
 *
 * <p>Control path: {@link NvmfTarget#start}, before any engine or management thread exists.
 */
final class NvmfCpuIsolation {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfTarget.class);
    /** The CPUs the process had before {@link #keepOff} moved its threads (affinity is the process's), or null. */
    private static final AtomicReference<List<Integer>> BEFORE = new AtomicReference<>();

    private NvmfCpuIsolation() {
    }

    /** The CPUs left for the other threads: {@code allowed} less {@code engines}'; empty when none is left. */
    static List<Integer> rest(List<Integer> allowed, List<Integer> engines) {
        List<Integer> out = new ArrayList<>(allowed);
        out.removeAll(engines);
        return out;
    }

    /**
     * Moves every thread of this process off {@code engineCpus} (nothing when that list is empty: the engines are
     * not pinned) until {@link #release}. Returns how many threads moved.
     */
    static int keepOff(List<Integer> engineCpus) {
        if (engineCpus.isEmpty() || BEFORE.get() != null) {
            return 0;
        }
        List<Integer> allowed = CpuAffinity.allowedCpus();
        List<Integer> rest = rest(allowed, engineCpus);
        if (rest.isEmpty()) {
            LOG.info("-m gives the IO engines every CPU this process may use: the JVM's other threads share them");
            return 0;
        }
        if (!BEFORE.compareAndSet(null, allowed)) {
            return 0; // another target of this process did it first
        }
        CpuAffinity.setUnaffinitizedCpus(allowed); // librados' threads may still run anywhere, as under SPDK
        int moved = moveAll(rest);
        LOG.info("{} threads kept off the IO engines' CPUs {}: they run on {}", moved, engineCpus, rest);
        return moved;
    }

    /**
     * The target closed: the process's threads may run on the CPUs they had before {@link #keepOff} again (a process
     * that starts another target, as tests do, is not left on fewer CPUs).
     */
    static void release() {
        List<Integer> b = BEFORE.getAndSet(null);
        if (b != null) {
            moveAll(b);
            CpuAffinity.setUnaffinitizedCpus(null);
        }
    }

    /** Sets every thread of this process to {@code cpus}; returns how many the kernel accepted. */
    static int moveAll(List<Integer> cpus) {
        int moved = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : tasks.toList()) {
                long tid;
                try {
                    tid = Long.parseLong(t.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                if (CpuAffinity.setThreadCpus(tid, cpus)) {
                    moved++; // a thread that ended meanwhile is refused: nothing to move
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list this process's threads (/proc/self/task): {}; the JVM's threads may share the "
                    + "IO engines' CPUs", e.getMessage());
        }
        return moved;
    }
}
