package io.jdoca.storage.common;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * The data-path workers of one session of a storage service, with the statistics rows of those
 * already closed (DOCA prints them when the session ends) and the service's metrics told when the
 * data path starts and ends. Control thread only.
 *
 * @param <W> the service's worker type
 */
public final class SessionWorkers<W extends DataPathWorker> implements Iterable<W> {
    private final List<W> workers = new ArrayList<>();
    private final List<long[]> rows = new ArrayList<>();
    private final DataPathMetrics metrics;

    public SessionWorkers(DataPathMetrics metrics) {
        this.metrics = metrics;
    }

    /** Adds a worker built for this session. */
    public void add(W w) {
        workers.add(w);
    }

    public W get(int i) {
        return workers.get(i);
    }

    public int size() {
        return workers.size();
    }

    @Override
    public Iterator<W> iterator() {
        return workers.iterator();
    }

    /** The data path runs: the metrics read these workers from now on. */
    public void dataPathStarted() {
        metrics.sessionStarted(workers);
    }

    /** Closes every worker's measured window (a failing worker is logged, the others go on). */
    public void stopDataPaths() {
        DataPathWorker.stopAll(workers);
    }

    /** Closes every worker (its statistics row kept for {@link #printStats}); the metrics stop reading them. */
    public void closeAll() {
        metrics.sessionEnding();
        for (W w : workers) {
            rows.add(w.statsRow());
            w.close();
        }
        workers.clear();
    }

    /** The session ends: every worker closed, the statistics table printed (when {@code print}) and forgotten. */
    public void endSession(PrintStream out, List<Integer> cpus, boolean print) {
        closeAll();
        if (print) {
            printStats(out, cpus);
        }
        rows.clear();
    }

    /** Forgets the rows of closed workers (a failed init, or a session whose statistics were printed). */
    public void clearStats() {
        rows.clear();
    }

    /**
     * DOCA's per-core statistics table of the closed workers ({ops, engine hits, engine misses,
     * data-path bytes allocated} each), the worker's core from {@code cpus}; then forgets them.
     */
    public void printStats(PrintStream out, List<Integer> cpus) {
        out.println("+================================================+");
        out.println("| Stats");
        out.println("+================================================+");
        for (int i = 0; i < rows.size(); i++) {
            long[] s = rows.get(i);
            long t = s[1] + s[2];
            out.printf(Locale.ROOT, "| Core: %d%n", cpus.get(i));
            out.printf(Locale.ROOT, "| Operation count: %d%n", s[0]);
            out.printf(Locale.ROOT, "| PE hit rate: %.2f%% (%d:%d)%n", t == 0 ? 0.0 : 100.0 * s[1] / t, s[1], s[2]);
            out.printf(Locale.ROOT, "| Data path allocation: %d bytes (%.3f B/op)%n", s[3],
                    s[0] == 0 ? 0.0 : (double) s[3] / s[0]);
            out.println("+------------------------------------------------+");
        }
        out.flush();
        rows.clear();
    }
}
