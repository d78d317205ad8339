package io.jdoca.nvmf.perf;

import io.jdoca.core.util.TimerSlack;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One nvme-perf I/O queue: its own connection (Fabrics Connect of queue {@code qid} of its namespace's
 * controller) and thread ({@code nvme-perf-<index>}), keeping {@code -q} commands outstanding on one
 * namespace until the run stops (or its {@code -d} quota is done), recording each completion's latency.
 * With {@code prefill} it writes the verify pattern over the range once instead.
 *
 * <p>Threads: the queue's own thread owns everything here; the main thread reads the results after
 * {@link #join}. Nothing is allocated per I/O.
 */
final class PerfWorker extends Thread implements NvmeTcpHost.Listener {
    private static final long MAX_NANOS = 3_600_000_000_000L;

    private final NvmePerfApp app;
    final PerfController.Namespace ns;
    final int index;
    private final int qid;
    /** I/Os to submit, 0 for no limit (-d). */
    private final long quota;
    private final boolean prefill;
    final Histogram hist = new Histogram(MAX_NANOS, 3);
    final Histogram readHist = new Histogram(MAX_NANOS, 3);
    final Histogram writeHist = new Histogram(MAX_NANOS, 3);
    private final long[] submitted;
    private final boolean[] isRead;
    private final long[] lbaOf;
    private final MemorySegment buffers;
    private final MemorySegment expected;
    private final int bs;
    private final long ios;
    long errors;
    Exception failure;
    /** Thread CPU time (ns) from the start of I/O to the end, and the wall time it spans (-m). */
    long cpuNanos;
    long wallNanos;
    private long seq;
    private long rng;
    private int inflight;
    private long submittedCount;
    private long completedPrefill;
    private NvmeHostQueue host;
    private HybridPoll hybridPoll;
    private boolean signalled;

    PerfWorker(NvmePerfApp app, PerfController.Namespace ns, int index, int qid, long quota, long seqStart,
            boolean prefill) {
        super("nvme-perf-" + index);
        this.app = app;
        this.ns = ns;
        this.index = index;
        this.qid = qid;
        this.quota = quota;
        this.prefill = prefill;
        this.bs = ns.blockSize();
        this.ios = ns.ios();
        int qd = app.qd;
        this.submitted = new long[qd];
        this.isRead = new boolean[qd];
        this.lbaOf = new long[qd];
        this.buffers = Arena.ofAuto().allocate((long) qd * app.ioSize, 4096);
        this.expected = Arena.ofAuto().allocate(app.ioSize, 8);
        this.rng = 0x2545F4914F6CDD1DL * (index + 1);
        this.seq = seqStart;
        if (!app.verify) {
            for (int i = 0; i < qd; i++) {
                pattern(buffers, (long) i * app.ioSize, i, app.ioSize, bs);
            }
        }
    }

    /** When the oldest outstanding command was sent ({@code now} if none is); scans the queue's slots. */
    private long oldestSent(long now) {
        long oldest = now;
        for (long t : submitted) {
            if (t != 0 && t - oldest < 0) {
                oldest = t;
            }
        }
        return oldest;
    }

    private long nextRand() {
        rng ^= rng << 13;
        rng ^= rng >>> 7;
        rng ^= rng << 17;
        return rng;
    }

    @Override
    public void run() {
        if (!app.cpus.isEmpty() && !prefill) {
            io.jdoca.core.util.CpuAffinity.pinCurrentThread(app.cpus.get(index % app.cpus.size()));
        }
        PerfTrid t = ns.ctrl().trid;
        try (NvmeHostQueue h = app.openQueue(t, app.qd, app.ioSize)) {
            host = h;
            h.setListener(this);
            h.initialize();
            int[] c = h.connect(qid, app.sqsize0, t.connectNqn(), t.hostnqn(), ns.ctrl().cntlid, 0,
                    app.disableSqFlow ? 0x4 : 0);
            if (c[0] != 0) {
                throw new IOException("I/O queue " + qid + " Connect refused: " + PerfStatus.connect(c[0], c[1]));
            }
            signalConnected();
            if (!prefill) {
                app.go.await();
            }
            long cpu0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            long wall0 = System.nanoTime();
            for (int cid = 0; cid < app.qd && more(); cid++) {
                submit(cid);
            }
            loop(h);
            cpuNanos = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0;
            wallNanos = System.nanoTime() - wall0;
            if (hybridPoll != null && !prefill) {
                System.err.printf("nvme-perf: queue %d hybrid wait: %d sleeps (%d found an answer waiting), %d blocks; "
                        + "mean latency %d us, sleep overshoot %d us%n", index + 1, hybridPoll.sleeps,
                        hybridPoll.overslept, hybridPoll.blocks, hybridPoll.meanLatency() / 1000,
                        hybridPoll.overshoot() / 1000);
            }
        } catch (Exception e) {
            failure = e;
        } finally {
            signalConnected(); // a queue that failed does not hold the others' clock
        }
    }

    /** True while this queue may submit another I/O (prefill: the range; -d: the quota). */
    private boolean more() {
        if (prefill) {
            return seq < ios;
        }
        return !app.stop && (quota == 0 || submittedCount < quota);
    }

    private void loop(NvmeHostQueue h) throws IOException {
        NvmePerfApp.Idle mode = app.idleSleep ? NvmePerfApp.Idle.sleep : app.idle;
        if (mode == NvmePerfApp.Idle.hybrid) {
            hybridPoll = new HybridPoll();
            TimerSlack.setCurrentThread(1_000L); // its sleeps must end when asked (HybridPoll)
        }
        boolean justWoke = false;
        long wokeAt = 0;
        int empty = 0;
        while (prefill ? completedPrefill < ios : (more() || inflight > 0)) {
            int n = h.poll();
            if (justWoke) {
                hybridPoll.woke(wokeAt, n != 0);
                justWoke = false;
            }
            if (n != 0) {
                empty = 0;
            } else if (mode == NvmePerfApp.Idle.hybrid) {
                long now = System.nanoTime();
                switch (hybridPoll.idle(now, oldestSent(now))) {
                    case SLEEP -> {
                        LockSupport.parkNanos(hybridPoll.sleepNanos());
                        wokeAt = System.nanoTime();
                        justWoke = true;
                    }
                    case BLOCK -> h.awaitReadable(1);
                    case SPIN -> Thread.onSpinWait();
                }
            } else if (mode == NvmePerfApp.Idle.sleep && ++empty > 16) {
                h.awaitReadable(1); // woken by the target's answer, like a kernel initiator
            } else if (mode == NvmePerfApp.Idle.spin && ++empty > 1000) {
                Thread.onSpinWait();
            }
        }
    }

    private void signalConnected() {
        if (!prefill && !signalled) {
            signalled = true;
            app.connected.countDown();
        }
    }

    private void submit(int cid) {
        long slot;
        boolean read;
        if (prefill) {
            slot = seq++;
            read = false;
        } else {
            slot = app.rand ? Long.remainderUnsigned(nextRand(), ios) : (seq++ % ios);
            int pct = app.readPct;
            read = pct == 100 || (pct > 0 && Long.remainderUnsigned(nextRand(), 100) < pct);
        }
        int ioSize = app.ioSize;
        long lba = slot * ioSize / bs;
        int nlb = ioSize / bs;
        isRead[cid] = read;
        lbaOf[cid] = lba;
        submitted[cid] = System.nanoTime();
        boolean ok;
        if (read) {
            ok = host.read(cid, ns.nsid(), lba, nlb, ioSize);
        } else {
            if (app.verify) {
                pattern(buffers, (long) cid * ioSize, lba, ioSize, bs);
            }
            ok = host.write(cid, ns.nsid(), lba, nlb, buffers, (long) cid * ioSize, ioSize, app.inCapsule);
        }
        if (!ok) {
            throw new IllegalStateException("send buffer full");
        }
        inflight++;
        submittedCount++;
    }

    @Override
    public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
        if (app.verify && cid < app.qd) {
            long lba = lbaOf[cid] + dataOffset / bs;
            pattern(expected, 0, lba, len, bs);
            if (MemorySegment.mismatch(expected, 0, len, seg, off, off + len) != -1) {
                if (app.verifyErrors.incrementAndGet() <= 5) {
                    System.err.printf("nvme-perf: verify mismatch at LBA %d of %s (%d bytes)%n", lba, ns.name(), len);
                }
            }
        }
    }

    @Override
    public void onCompletion(int cid, int status, int dw0) {
        inflight--;
        long now = System.nanoTime();
        long lat = Math.max(1, now - submitted[cid]);
        submitted[cid] = 0; // not outstanding (oldestSent)
        if (hybridPoll != null) {
            hybridPoll.completed(lat);
        }
        if (status != 0) {
            // A failed I/O is counted apart: never in IOPS, MiB/s or latency.
            errors++;
            if (app.quietCount > 0 ? (errors - 1) % app.quietCount == 0 : errors <= 5) {
                System.err.printf("nvme-perf: %s of LBA %d on %s failed: %s%n", isRead[cid] ? "read" : "write",
                        lbaOf[cid], ns.name(), PerfStatus.name(status));
            }
        } else if (app.measuring && !prefill) {
            hist.recordValue(Math.min(lat, MAX_NANOS));
            (isRead[cid] ? readHist : writeHist).recordValue(Math.min(lat, MAX_NANOS));
        }
        if (prefill) {
            completedPrefill++;
        }
        if (more()) {
            submit(cid);
        }
    }

    /**
     * Fills {@code len} bytes for blocks starting at {@code lba}: each block starts with its LBA, then an
     * LBA-seeded xorshift.
     */
    static void pattern(MemorySegment m, long off, long lba, int len, int bs) {
        for (int b = 0; b < len / bs; b++) {
            long x = (lba + b) * 0x9E3779B97F4A7C15L + 1;
            long base = off + (long) b * bs;
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, base, lba + b);
            for (int i = 8; i < bs; i += 8) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                m.set(ValueLayout.JAVA_LONG_UNALIGNED, base + i, x);
            }
        }
    }
}
