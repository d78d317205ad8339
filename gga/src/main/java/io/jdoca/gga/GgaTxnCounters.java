package io.jdoca.gga;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The data-path counters of one {@link GgaTxnMachine} and its allocation probe.
 *
 * <p>Single writer (the machine's worker thread, plain increments); {@link #read} may run on any
 * thread: opaque reads, racy by design (a scrape may be a moment behind), nothing added to the data path.
 */
final class GgaTxnCounters {
    long ops;
    long reads;
    long writes;
    long recoveries;
    long degradedReads;
    long failedIos;
    long refusedWrites;
    long tooBigWrites;
    long refetches;
    long illegalTransitions;
    long allocAtStart = -1;
    long allocOnDataPath;
    long opsMeasured;

    private static final VarHandle VH_OPS;
    private static final VarHandle VH_READS;
    private static final VarHandle VH_WRITES;
    private static final VarHandle VH_FAILEDIOS;
    private static final VarHandle VH_REFUSEDWRITES;
    private static final VarHandle VH_TOOBIGWRITES;
    private static final VarHandle VH_ILLEGALTRANSITIONS;
    private static final VarHandle VH_RECOVERIES;
    private static final VarHandle VH_DEGRADEDREADS;
    private static final VarHandle VH_REFETCHES;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            VH_OPS = l.findVarHandle(GgaTxnCounters.class, "ops", long.class);
            VH_READS = l.findVarHandle(GgaTxnCounters.class, "reads", long.class);
            VH_WRITES = l.findVarHandle(GgaTxnCounters.class, "writes", long.class);
            VH_FAILEDIOS = l.findVarHandle(GgaTxnCounters.class, "failedIos", long.class);
            VH_REFUSEDWRITES = l.findVarHandle(GgaTxnCounters.class, "refusedWrites", long.class);
            VH_TOOBIGWRITES = l.findVarHandle(GgaTxnCounters.class, "tooBigWrites", long.class);
            VH_ILLEGALTRANSITIONS = l.findVarHandle(GgaTxnCounters.class, "illegalTransitions", long.class);
            VH_RECOVERIES = l.findVarHandle(GgaTxnCounters.class, "recoveries", long.class);
            VH_DEGRADEDREADS = l.findVarHandle(GgaTxnCounters.class, "degradedReads", long.class);
            VH_REFETCHES = l.findVarHandle(GgaTxnCounters.class, "refetches", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The counters in the order of {@link GgaService#METRICS}. */
    void read(long[] into) {
        into[0] = (long) VH_OPS.getOpaque(this);
        into[1] = (long) VH_READS.getOpaque(this);
        into[2] = (long) VH_WRITES.getOpaque(this);
        into[3] = (long) VH_FAILEDIOS.getOpaque(this);
        into[4] = (long) VH_REFUSEDWRITES.getOpaque(this);
        into[5] = (long) VH_TOOBIGWRITES.getOpaque(this);
        into[6] = (long) VH_ILLEGALTRANSITIONS.getOpaque(this);
        into[7] = (long) VH_RECOVERIES.getOpaque(this);
        into[8] = (long) VH_DEGRADEDREADS.getOpaque(this);
        into[9] = (long) VH_REFETCHES.getOpaque(this);
    }
}
