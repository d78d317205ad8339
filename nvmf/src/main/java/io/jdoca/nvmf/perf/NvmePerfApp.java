package io.jdoca.nvmf.perf;

import io.jdoca.argp.DocaFlags;
import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.core.util.TimerSlack;
import io.jdoca.sta.nvme.NvmeOpcode;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca nvme-perf}: an NVMe/TCP and NVMe/RDMA ({@code -r trtype:RDMA}, {@link NvmeRdmaHost}) initiator benchmark in the spirit of SPDK's
 * {@code spdk_nvme_perf}: connects an admin queue and N I/O queues (one thread each), keeps
 * {@code -q} commands outstanding per queue for {@code -t} seconds and prints IOPS, MiB/s and
 * latency percentiles (HdrHistogram). {@code --verify} writes a known pattern over the range first
 * and checks every byte read. {@code --echo-server PORT} instead runs a trivial NVMe/TCP responder
 * (the transport ceiling used as the benchmark baseline).
 *
 * <p>Picocli command; one instance per process.
 */
@Command(name = "nvme-perf", versionProvider = DocaFlags.Version.class,
        description = "NVMe/TCP and NVMe/RDMA initiator benchmark (like spdk_nvme_perf): IOPS, MiB/s, latency percentiles.")
public final class NvmePerfApp implements Callable<Integer> {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print a help synopsis.")
    boolean help;

    /** Long only: spdk_nvme_perf's -v is its full help and -V enables VMD. */
    @Option(names = "--version", versionHelp = true, description = "Print program version information.")
    boolean version;

    @Option(names = {"-a", "--address"}, defaultValue = "127.0.0.1", description = "Target address (default: ${DEFAULT-VALUE}).")
    String address;

    @Option(names = {"-s", "--port"}, defaultValue = "4420", description = "Target port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = {"-n", "--nqn"}, defaultValue = "nqn.2024-01.io.jdoca:demo", description = "Subsystem NQN (default: ${DEFAULT-VALUE}).")
    String nqn;

    @Option(names = "--hostnqn", defaultValue = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-612d-7065-7266-000000000001",
            description = "Host NQN sent at Connect.")
    String hostnqn;

    @Option(names = {"-q", "--queue-depth"}, defaultValue = "32", description = "Outstanding I/Os per queue (default: ${DEFAULT-VALUE}).")
    int qd;

    @Option(names = {"-o", "--io-size"}, defaultValue = "4096", description = "I/O size in bytes (default: ${DEFAULT-VALUE}).")
    int ioSize;

    @Option(names = {"-w", "--workload"}, defaultValue = "randread",
            description = "Workload: read, write, randread, randwrite, rw or randrw (default: ${DEFAULT-VALUE}).")
    String workload;

    @Option(names = {"-M", "--rwmixread"}, defaultValue = "50", description = "Read percentage for rw and randrw (default: ${DEFAULT-VALUE}).")
    int mixRead;

    @Option(names = {"-t", "--time"}, defaultValue = "10", description = "Seconds to measure (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--warmup", defaultValue = "1", description = "Seconds of warm-up before measuring (default: ${DEFAULT-VALUE}).")
    double warmup;

    @Option(names = {"-P", "--queues"}, defaultValue = "1",
            description = "I/O queue pairs, one thread each (spdk_nvme_perf's -P; default: ${DEFAULT-VALUE}).")
    int queues;

    @Option(names = {"-c", "--core-mask"}, paramLabel = "MASK",
            description = "The core mask of spdk_nvme_perf (e.g. 0x2 or [0,1]): queue thread i is pinned to the i-th CPU of the mask. "
                    + "Default: not pinned.")
    String coreMask;

    @Option(names = "-L", description = "-L: print latency percentiles; -LL: also a latency histogram (as spdk_nvme_perf).")
    boolean[] latencyDetail = new boolean[0];

    @Option(names = "--nsid", defaultValue = "1", description = "Namespace id (default: ${DEFAULT-VALUE}).")
    int nsid;

    @Option(names = "--range-mb", defaultValue = "0", description = "Limit I/O to the first N MiB (0 = the whole namespace; with --verify the default is 64).")
    long rangeMb;

    @Option(names = "--verify", description = "Write a pattern over the range first, then check every read.")
    boolean verify;

    @Option(names = "--no-prefill", description = "With --verify, do not write the pattern first: check what an earlier "
            + "--verify run left on the namespace (e.g. after the target restarted).")
    boolean noPrefill;

    @Option(names = {"-r", "--transport-id"}, paramLabel = "TRID",
            description = "The transport ID of spdk_nvme_perf, e.g. 'trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:4420 "
                    + "subnqn:nqn.2016-06.io.spdk:cnode1' (trtype TCP or RDMA; keys: trtype, adrfam, traddr, trsvcid, subnqn, hostnqn, ns); "
                    + "overrides -a, -s, -n, --hostnqn and --nsid.")
    String trid;

    @Option(names = {"-H", "-g", "--hdr-digest"}, description = "Enable the TCP header digest (CRC32C).")
    boolean hdgst;

    @Option(names = {"-I", "-G", "--data-digest"}, description = "Enable the TCP data digest (CRC32C).")
    boolean ddgst;

    @Option(names = "--in-capsule", defaultValue = "8192", description = "Largest write sent in the capsule, in bytes (default: ${DEFAULT-VALUE}).")
    int inCapsule;

    @Option(names = "--disable-sqflow", description = "Disable SQ flow control at Connect, so reads complete with C2HData SUCCESS (no CapsuleResp).")
    boolean disableSqFlow;

    /** How a queue waits for answers (see {@link HybridPoll}). */
    enum Idle { spin, sleep, hybrid }

    @Option(names = "--idle", defaultValue = "spin", description = "How a queue with nothing to read or send waits: spin "
            + "(busy-poll, as spdk_nvme_perf does), sleep (in the socket, as fio on a kernel initiator sleeps in the kernel) "
            + "or hybrid (sleep through the first half of the usual wait, then spin; Linux's hybrid polling). On a shared "
            + "machine a spinning initiator loses its core to other processes; see docs/performance/nvmf.md. Default: ${DEFAULT-VALUE}.")
    Idle idle;

    @Option(names = "--idle-sleep", description = "Same as --idle sleep.")
    boolean idleSleep;

    @Option(names = "--json", description = "Also print one JSON line with the results.")
    boolean json;

    @Option(names = "--echo-server", description = "Run the trivial NVMe/TCP echo responder on this port instead (the benchmark baseline).")
    Integer echoPort;

    @Option(names = {"-l", "--log-level"}, defaultValue = "40", description = "DOCA log level 10..70 (default: ${DEFAULT-VALUE}).")
    int logLevel;

    private List<Integer> cpus = List.of();
    private boolean rdma;
    private boolean ipv6;
    private volatile java.util.concurrent.CountDownLatch connected = new java.util.concurrent.CountDownLatch(0);
    private volatile boolean measuring;
    private volatile boolean stop;
    private final AtomicLong verifyErrors = new AtomicLong();

    /** Exit status for bad flags (picocli's invalid-input code). */
    static final int EXIT_USAGE = 2;

    /**
     * Checks the flags before anything connects; returns one line naming the bad flag, or null.
     * Limits that depend on the target (MDTS, MQES, queues granted) are checked after Connect.
     */
    String badFlag() {
        if (trid != null) {
            String bad = applyTrid(trid);
            if (bad != null) {
                return bad;
            }
        }
        if (noPrefill && !verify) {
            return "--no-prefill needs --verify";
        }
        if (rdma && (hdgst || ddgst)) {
            return "-H/-I (header/data digest) are NVMe/TCP options, not for trtype:RDMA";
        }
        if (rdma && echoPort != null) {
            return "--echo-server is an NVMe/TCP responder, not for trtype:RDMA";
        }
        if (echoPort != null) {
            return echoPort < 0 || echoPort > 65535 ? "--echo-server must be a TCP port 0..65535 (got " + echoPort + ")" : null;
        }
        if (port < 1 || port > 65535) {
            return "-s/--port must be a TCP port 1..65535 (got " + port + ")";
        }
        if (qd < 1 || qd > 65535) {
            return "-q/--queue-depth must be 1..65535 (got " + qd + ")";
        }
        if (queues < 1 || queues > 65535) {
            return "-P/--queues must be 1..65535 (got " + queues + ")";
        }
        if (coreMask != null) {
            try {
                cpus = io.jdoca.core.util.CpuAffinity.parseCoreMask("-c/--core-mask", coreMask);
                io.jdoca.core.util.CpuAffinity.check("-c/--core-mask", cpus);
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
        if (ioSize < 1) {
            return "-o/--io-size must be a positive number of bytes (got " + ioSize + ")";
        }
        if (mixRead < 0 || mixRead > 100) {
            return "-M/--rwmixread must be a percentage 0..100 (got " + mixRead + ")";
        }
        if (!(seconds > 0) || Double.isInfinite(seconds) || seconds > 1e7) {
            return "-t/--time must be a positive number of seconds (got " + seconds + ")";
        }
        if (!(warmup >= 0) || Double.isInfinite(warmup) || warmup > 1e7) {
            return "--warmup must be 0 or more seconds (got " + warmup + ")";
        }
        if (nsid < 1 || nsid == 0xffffffff) {
            return "--nsid must be a namespace id 1..4294967294 (got " + Integer.toUnsignedString(nsid) + ")";
        }
        if (rangeMb < 0 || rangeMb > (1L << 43)) {
            return "--range-mb must be 0 (whole namespace) or a positive number of MiB (got " + rangeMb + ")";
        }
        if (inCapsule < 0) {
            return "--in-capsule must be 0 or more bytes (got " + inCapsule + ")";
        }
        if (readPct() < 0) {
            return "-w/--workload must be one of read, write, randread, randwrite, rw, randrw (got '" + workload + "')";
        }
        return null;
    }

    /** Applies spdk_nvme_perf's {@code -r} transport ID; returns one line naming what is wrong, or null. */
    String applyTrid(String t) {
        for (String kv : t.trim().split("\\s+")) {
            int c = kv.indexOf(':');
            if (c <= 0) {
                return "-r: '" + kv + "' is not key:value (e.g. 'trtype:TCP traddr:127.0.0.1 trsvcid:4420 subnqn:NQN')";
            }
            String k = kv.substring(0, c).toLowerCase(Locale.ROOT);
            String v = kv.substring(c + 1);
            switch (k) {
                case "trtype" -> {
                    if (v.equalsIgnoreCase("rdma")) {
                        rdma = true;
                    } else if (v.equalsIgnoreCase("tcp")) {
                        rdma = false;
                    } else {
                        return "-r: trtype:" + v + " is not supported (nvme-perf speaks TCP and RDMA)";
                    }
                }
                case "adrfam" -> {
                    if (!v.equalsIgnoreCase("ipv4") && !v.equalsIgnoreCase("ipv6")) {
                        return "-r: adrfam:" + v + " must be IPv4 or IPv6";
                    }
                    ipv6 = v.equalsIgnoreCase("ipv6");
                }
                case "traddr" -> address = v;
                case "trsvcid" -> {
                    try {
                        port = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        return "-r: trsvcid:" + v + " is not a port number";
                    }
                }
                case "subnqn" -> nqn = v;
                case "hostnqn" -> hostnqn = v;
                case "ns" -> {
                    try {
                        nsid = Integer.parseUnsignedInt(v);
                    } catch (NumberFormatException e) {
                        return "-r: ns:" + v + " is not a namespace id";
                    }
                }
                default -> {
                    return "-r: unknown key '" + k + "' (trtype, adrfam, traddr, trsvcid, subnqn, hostnqn, ns)";
                }
            }
        }
        if (rdma) {
            if (ipv6) {
                return "-r: adrfam:IPv6 is not supported with trtype:RDMA (IPv4 only)";
            }
            if (!isIpv4Literal(address)) {
                return "-r: traddr:" + address + " must be an IPv4 address with trtype:RDMA";
            }
        }
        return null;
    }

    /** True for a dotted-quad IPv4 literal (no name lookup: rdma_cm is given the address as is). */
    static boolean isIpv4Literal(String a) {
        String[] p = a.split("\\.", -1);
        if (p.length != 4) {
            return false;
        }
        for (String x : p) {
            if (x.isEmpty() || x.length() > 3 || !x.chars().allMatch(Character::isDigit) || Integer.parseInt(x) > 255) {
                return false;
            }
        }
        return true;
    }

    /** The transport this run speaks: NVMe/RDMA with -r trtype:RDMA, else NVMe/TCP. */
    boolean rdma() {
        return rdma;
    }

    /** A host queue of the run's transport for cids 0..maxCid-1 of at most maxIo bytes. */
    private NvmeHostQueue openQueue(int maxCid, int maxIo) throws IOException {
        return rdma ? new NvmeRdmaHost(address, port, maxCid, maxIo) : new NvmeTcpHost(address, port, hdgst, ddgst, maxCid, maxIo);
    }

    /** Read percentage of the workload, -1 when the workload is unknown. */
    private int readPct() {
        String kind = workload.startsWith("rand") ? workload.substring(4) : workload;
        return switch (kind) {
            case "read" -> 100;
            case "write" -> 0;
            case "rw" -> mixRead;
            default -> -1;
        };
    }

    private static int usage(String line) {
        System.err.println("nvme-perf: " + line);
        return EXIT_USAGE;
    }

    @Override
    public Integer call() throws Exception {
        DocaLogLevel.apply(logLevel);
        String bad = badFlag();
        if (bad != null) {
            return usage(bad);
        }
        if (echoPort != null) {
            NvmeTcpEcho echo = new NvmeTcpEcho(echoPort, 1L << 30);
            System.out.println("ECHO READY on port " + echo.port());
            System.out.flush();
            echo.serve();
            return 0;
        }
        boolean rand = workload.startsWith("rand");
        int readPct = readPct();
        try (NvmeHostQueue admin = openQueue(64, 8192)) {
            admin.initialize();
            int[] c = admin.connect(0, 31, nqn, hostnqn, 0xffff, 0, 0);
            if (c[0] != 0) {
                System.err.printf("nvme-perf: admin Connect to %s failed: status 0x%04x%n", nqn, c[0]);
                return 1;
            }
            int cntlid = c[1] & 0xffff;
            int[] cap = admin.propertyGet(0x00, true);
            int mqes = cap[1] & 0xffff;           // CAP.MQES: largest queue size, 0's based
            int mpsmin = (cap[2] >>> 16) & 0xf;   // CAP.MPSMIN (bits 51:48): MDTS unit = 2^(12+MPSMIN)
            if (cap[0] == 0 && qd > mqes) {
                return usage(String.format("-q/--queue-depth %d exceeds the target's queue size limit %d (CAP.MQES+1, "
                        + "one entry kept free)", qd, mqes));
            }
            int[] cc = admin.propertySet(0x14, 1 | (6 << 16) | (4 << 20)); // CC.EN, IOSQES 64 B, IOCQES 16 B
            if (cc[0] != 0) {
                System.err.printf("nvme-perf: Property Set CC.EN failed: status 0x%04x%n", cc[0]);
                return 1;
            }
            String notReady = awaitReady(admin);
            if (notReady != null) {
                System.err.println("nvme-perf: " + notReady);
                return 1;
            }
            int[] nq = admin.adminSimple(NvmeOpcode.ADMIN_SET_FEATURES, 0, 0x07, ((queues - 1) << 16) | (queues - 1));
            if (nq[0] == 0 && Math.min(nq[1] & 0xffff, nq[1] >>> 16) + 1 < queues) {
                return usage(String.format("-P/--queues %d exceeds the %d I/O queue(s) the target grants (Number of Queues)",
                        queues, Math.min(nq[1] & 0xffff, nq[1] >>> 16) + 1));
            }
            byte[] idctrl = new byte[4096];
            if (admin.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 0, 0x01, 0, idctrl) == 0 && cap[0] == 0) {
                int mdts = idctrl[77] & 0xff;
                long maxIo = mdts == 0 ? Long.MAX_VALUE : 1L << (12 + mpsmin + mdts);
                if (ioSize > maxIo) {
                    return usage(String.format("-o/--io-size %d exceeds the target's maximum data transfer size %d (MDTS)",
                            ioSize, maxIo));
                }
            }
            byte[] idns = new byte[4096];
            int st = admin.adminRead(NvmeOpcode.ADMIN_IDENTIFY, nsid, 0x00, 0, idns);
            ByteBuffer b = ByteBuffer.wrap(idns).order(ByteOrder.LITTLE_ENDIAN);
            long nsze = b.getLong(0);
            int lbads = idns[128 + 2];
            if (st != 0 || nsze == 0) {
                System.err.printf("nvme-perf: namespace %d not found (status 0x%04x)%n", nsid, st);
                return 1;
            }
            int bs = 1 << lbads;
            if (ioSize % bs != 0) {
                return usage(String.format("-o/--io-size %d is not a multiple of the %d-byte block", ioSize, bs));
            }
            long rangeBytes = nsze * bs;
            long limit = rangeMb > 0 ? rangeMb << 20 : (verify ? 64L << 20 : rangeBytes);
            rangeBytes = Math.min(rangeBytes, limit);
            long ios = rangeBytes / ioSize;
            if (ios == 0) {
                return usage(String.format("-o/--io-size %d is larger than the %d-byte range (--range-mb, namespace size)",
                        ioSize, rangeBytes));
            }
            if (verify && !noPrefill) {
                prefill(cntlid, bs, ios);
            }
            List<Worker> workers = new ArrayList<>();
            for (int i = 0; i < queues; i++) {
                workers.add(new Worker(i, cntlid, bs, ios, rand, readPct));
            }
            connected = new java.util.concurrent.CountDownLatch(workers.size());
            for (Worker w : workers) {
                w.start();
            }
            // The clock starts once every queue is connected (or failed): Connect is not I/O time.
            if (!connected.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
                System.err.println("nvme-perf: the I/O queues did not connect within 60 s");
            }
            Thread.sleep((long) (warmup * 1000));
            measuring = true;
            long t0 = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            measuring = false;
            long elapsed = System.nanoTime() - t0;
            stop = true;
            Histogram all = new Histogram(3_600_000_000_000L, 3);
            Histogram reads = new Histogram(3_600_000_000_000L, 3);
            Histogram writes = new Histogram(3_600_000_000_000L, 3);
            long errors = 0;
            int failedQueues = 0;
            for (Worker w : workers) {
                w.join(30_000);
                all.add(w.hist);
                reads.add(w.readHist);
                writes.add(w.writeHist);
                errors += w.errors;
                if (w.failure != null) {
                    System.err.println("nvme-perf: queue " + w.index + " failed: " + w.failure.getMessage());
                    failedQueues++;
                }
            }
            report(all, elapsed, errors);
            spdkTable(reads, writes, all, elapsed);
            if (json) {
                printJson(all, reads, writes, elapsed, errors);
            }
            if (errors > 0) {
                System.err.printf("nvme-perf: %d I/O(s) failed (not counted in IOPS or latency)%n", errors);
            }
            return errors == 0 && failedQueues == 0 && verifyErrors.get() == 0 ? 0 : 1;
        } catch (IOException e) {
            // control path (connect, admin): one line naming what failed, exit 1
            System.err.println("nvme-perf: " + (rdma ? "NVMe/RDMA " : "NVMe/TCP ") + address + ":" + port + ": " + e.getMessage());
            return 1;
        }
    }

    /**
     * After CC.EN = 1, polls CSTS until RDY (a controller may become ready later, NVMe Base 2.0 §3.5.1);
     * null when ready (or when CSTS cannot be read: the commands that follow then tell), else one line.
     */
    private static String awaitReady(NvmeHostQueue admin) throws IOException {
        long deadline = System.nanoTime() + 60_000_000_000L; // a TCG guest is slow, not dead
        while (true) {
            int[] csts = admin.propertyGet(0x1c, false);
            if (csts[0] != 0 || (csts[1] & 1) != 0) {
                return null;
            }
            if ((csts[1] & 2) != 0) {
                return "the controller reports a fatal status (CSTS.CFS) after CC.EN";
            }
            if (System.nanoTime() > deadline) {
                return "the controller did not become ready (CSTS.RDY) within 60 s of CC.EN";
            }
            Thread.onSpinWait();
        }
    }

    private void prefill(int cntlid, int bs, long ios) throws Exception {
        Worker w = new Worker(0, cntlid, bs, ios, false, 0);
        w.prefill = true;
        w.run();
        if (w.failure != null) {
            throw w.failure;
        }
        if (w.errors > 0) {
            throw new IOException(w.errors + " write(s) of the verify pattern failed");
        }
        System.err.printf("nvme-perf: verify: wrote the pattern over %d MiB%n", ios * ioSize >> 20);
    }

    private void report(Histogram h, long elapsedNs, long errors) {
        double secs = elapsedNs / 1e9;
        long n = h.getTotalCount();
        double iops = n / secs;
        double mibps = iops * ioSize / (1 << 20);
        System.out.printf(Locale.ROOT, "nvme-perf: %s %d B QD %d x %d queue(s), %.1f s%n", workload, ioSize, qd, queues, secs);
        System.out.printf(Locale.ROOT, "  IOPS: %.0f  MiB/s: %.2f  I/Os: %d  errors: %d (not in IOPS or latency)%s%n", iops, mibps, n, errors,
                verify ? "  verify mismatches: " + verifyErrors.get() : "");
        System.out.printf(Locale.ROOT, "  latency us: avg %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f%n",
                h.getMean() / 1e3, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3);
    }

    /** spdk_nvme_perf's summary table: per namespace, reads and writes apart, then the total. */
    private void spdkTable(Histogram reads, Histogram writes, Histogram all, long elapsedNs) {
        double secs = elapsedNs / 1e9;
        String dev = String.format(Locale.ROOT, "%s (addr:%s subnqn:%s) NSID %s", rdma ? "RDMA" : "TCP ", address, nqn,
                Integer.toUnsignedString(nsid));
        int w = Math.max(55, dev.length() + 8);
        String bar = "=".repeat(w + 57);
        System.out.println(bar);
        System.out.printf(Locale.ROOT, "%" + (w + 57) + "s%n", "Latency(us)");
        System.out.printf(Locale.ROOT, "%-" + w + "s: %10s %10s %10s %10s %10s%n", "Device Information", "IOPS", "MiB/s",
                "Average", "min", "max");
        if (reads.getTotalCount() > 0) {
            row(w, dev + " reads", reads, secs);
        }
        if (writes.getTotalCount() > 0) {
            row(w, dev + " writes", writes, secs);
        }
        System.out.println(bar);
        row(w, "Total", all, secs);
        System.out.println();
        if (latencyDetail.length >= 1) {
            for (String[] k : new String[][] {{"reads", ""}, {"writes", ""}}) {
                Histogram h = k[0].equals("reads") ? reads : writes;
                if (h.getTotalCount() == 0) {
                    continue;
                }
                System.out.println("Summary latency data for " + dev + " " + k[0] + ":");
                System.out.println("=".repeat(w + 20));
                for (double p : new double[] {1, 10, 25, 50, 75, 90, 95, 98, 99, 99.5, 99.9, 99.99, 99.999}) {
                    System.out.printf(Locale.ROOT, "%10.5f%% : %12.3fus%n", p, h.getValueAtPercentile(p) / 1e3);
                }
                System.out.println();
                if (latencyDetail.length >= 2) {
                    System.out.println("Latency histogram for " + dev + " " + k[0] + ":");
                    System.out.println("=".repeat(w + 20));
                    System.out.printf(Locale.ROOT, "%26s %12s %12s%n", "Range in us", "Cumulative", "IO count");
                    long cum = 0;
                    long prev = 0;
                    for (var v : h.logarithmicBucketValues(1000, 2)) {
                        if (v.getCountAddedInThisIterationStep() > 0) {
                            cum += v.getCountAddedInThisIterationStep();
                            System.out.printf(Locale.ROOT, "%12.3f - %12.3f: %10.4f%%  (%10d)%n", prev / 1e3,
                                    v.getValueIteratedTo() / 1e3, 100.0 * cum / h.getTotalCount(), v.getCountAddedInThisIterationStep());
                        }
                        prev = v.getValueIteratedTo();
                    }
                    System.out.println();
                }
            }
        }
    }

    private void row(int w, String name, Histogram h, double secs) {
        long n = h.getTotalCount();
        double iops = n / secs;
        System.out.printf(Locale.ROOT, "%-" + w + "s: %10.2f %10.2f %10.2f %10.2f %10.2f%n", name, iops,
                iops * ioSize / (1 << 20), n == 0 ? 0.0 : h.getMean() / 1e3, n == 0 ? 0.0 : h.getMinValue() / 1e3,
                n == 0 ? 0.0 : h.getMaxValue() / 1e3);
    }

    /** One JSON line (Jackson) with the results, reads and writes apart. */
    private void printJson(Histogram all, Histogram reads, Histogram writes, long elapsedNs, long errors)
            throws com.fasterxml.jackson.core.JsonProcessingException {
        double secs = elapsedNs / 1e9;
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("workload", workload);
        m.put("io_size", ioSize);
        m.put("qd", qd);
        m.put("queues", queues);
        m.put("iops", all.getTotalCount() / secs);
        m.put("mibps", all.getTotalCount() / secs * ioSize / (1 << 20));
        m.put("lat_avg_us", all.getMean() / 1e3);
        m.put("lat_p50_us", all.getValueAtPercentile(50) / 1e3);
        m.put("lat_p99_us", all.getValueAtPercentile(99) / 1e3);
        m.put("lat_p999_us", all.getValueAtPercentile(99.9) / 1e3);
        m.put("errors", errors);
        m.put("verify_errors", verifyErrors.get());
        m.put("trtype", rdma ? "RDMA" : "TCP");
        m.put("traddr", address);
        m.put("trsvcid", port);
        m.put("subnqn", nqn);
        m.put("nsid", Integer.toUnsignedLong(nsid));
        m.put("reads", side(reads, secs));
        m.put("writes", side(writes, secs));
        System.out.println(new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(m));
    }

    private java.util.Map<String, Object> side(Histogram h, double secs) {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        long n = h.getTotalCount();
        m.put("ios", n);
        m.put("iops", n / secs);
        m.put("mibps", n / secs * ioSize / (1 << 20));
        m.put("lat_avg_us", n == 0 ? 0.0 : h.getMean() / 1e3);
        m.put("lat_min_us", n == 0 ? 0.0 : h.getMinValue() / 1e3);
        m.put("lat_max_us", n == 0 ? 0.0 : h.getMaxValue() / 1e3);
        m.put("lat_p99_us", n == 0 ? 0.0 : h.getValueAtPercentile(99) / 1e3);
        return m;
    }

    /** Fills {@code len} bytes for blocks starting at {@code lba}: each block starts with its LBA, then an LBA-seeded xorshift. */
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

    /** One I/O queue: its own connection and thread. */
    private final class Worker extends Thread implements NvmeTcpHost.Listener {
        final int index;
        final int cntlid;
        final int bs;
        final long ios;
        final boolean rand;
        final int readPct;
        final Histogram hist = new Histogram(3_600_000_000_000L, 3);
        final Histogram readHist = new Histogram(3_600_000_000_000L, 3);
        final Histogram writeHist = new Histogram(3_600_000_000_000L, 3);
        final long[] submitted;
        final boolean[] isRead;
        final long[] lbaOf;
        final MemorySegment buffers;
        final MemorySegment expected;
        long errors;
        Exception failure;
        boolean prefill;
        long seq;
        long rng;
        int inflight;
        long completedPrefill;
        NvmeHostQueue host;
        HybridPoll hybridPoll;

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

        Worker(int index, int cntlid, int bs, long ios, boolean rand, int readPct) {
            super("nvme-perf-" + index);
            this.index = index;
            this.cntlid = cntlid;
            this.bs = bs;
            this.ios = ios;
            this.rand = rand;
            this.readPct = readPct;
            this.submitted = new long[qd];
            this.isRead = new boolean[qd];
            this.lbaOf = new long[qd];
            this.buffers = Arena.ofAuto().allocate((long) qd * ioSize, 4096);
            this.expected = Arena.ofAuto().allocate(ioSize, 8);
            this.rng = 0x2545F4914F6CDD1DL * (index + 1);
            this.seq = index * (ios / Math.max(1, queues));
            if (!verify) {
                for (int i = 0; i < qd; i++) {
                    pattern(buffers, (long) i * ioSize, i, ioSize, bs);
                }
            }
        }

        private long nextRand() {
            rng ^= rng << 13;
            rng ^= rng >>> 7;
            rng ^= rng << 17;
            return rng;
        }

        @Override
        public void run() {
            if (!cpus.isEmpty() && !prefill) {
                io.jdoca.core.util.CpuAffinity.pinCurrentThread(cpus.get(index % cpus.size()));
            }
            try (NvmeHostQueue h = openQueue(qd, ioSize)) {
                host = h;
                h.setListener(this);
                h.initialize();
                int[] c = h.connect(index + 1, Math.max(qd, 31), nqn, hostnqn, cntlid, 0, disableSqFlow ? 0x4 : 0);
                if (c[0] != 0) {
                    throw new IOException(String.format("I/O queue %d Connect failed: status 0x%04x", index + 1, c[0]));
                }
                signalConnected();
                for (int cid = 0; cid < qd; cid++) {
                    if (prefill && seq >= ios) {
                        break;
                    }
                    submit(cid);
                }
                Idle mode = idleSleep ? Idle.sleep : idle;
                if (mode == Idle.hybrid) {
                    hybridPoll = new HybridPoll();
                    TimerSlack.setCurrentThread(1_000L); // its sleeps must end when asked (HybridPoll)
                }
                boolean justWoke = false;
                long wokeAt = 0;
                int empty = 0;
                while (prefill ? (completedPrefill < ios) : !(stop && inflight == 0)) {
                    int n = h.poll();
                    if (justWoke) {
                        hybridPoll.woke(wokeAt, n != 0);
                        justWoke = false;
                    }
                    if (n != 0) {
                        empty = 0;
                    } else if (mode == Idle.hybrid) {
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
                    } else if (mode == Idle.sleep && ++empty > 16) {
                        h.awaitReadable(1); // woken by the target's answer, like a kernel initiator
                    } else if (mode == Idle.spin && ++empty > 1000) {
                        Thread.onSpinWait();
                    }
                }
                if (hybridPoll != null && !prefill) {
                    System.err.printf("nvme-perf: queue %d hybrid wait: %d sleeps (%d found an answer waiting), %d blocks; "
                                    + "mean latency %d us, sleep overshoot %d us%n", index + 1, hybridPoll.sleeps, hybridPoll.overslept,
                            hybridPoll.blocks, hybridPoll.meanLatency() / 1000, hybridPoll.overshoot() / 1000);
                }
            } catch (Exception e) {
                failure = e;
            } finally {
                signalConnected(); // a queue that failed does not hold the others' clock
            }
        }

        private boolean signalled;

        private void signalConnected() {
            if (!prefill && !signalled) {
                signalled = true;
                connected.countDown();
            }
        }

        private void submit(int cid) {
            long slot;
            boolean read;
            if (prefill) {
                slot = seq++;
                read = false;
            } else {
                slot = rand ? Long.remainderUnsigned(nextRand(), ios) : (seq++ % ios);
                read = readPct == 100 || (readPct > 0 && Long.remainderUnsigned(nextRand(), 100) < readPct);
            }
            long lba = slot * ioSize / bs;
            int nlb = ioSize / bs;
            isRead[cid] = read;
            lbaOf[cid] = lba;
            submitted[cid] = System.nanoTime();
            boolean ok;
            if (read) {
                ok = host.read(cid, nsid, lba, nlb, ioSize);
            } else {
                if (verify) {
                    pattern(buffers, (long) cid * ioSize, lba, ioSize, bs);
                }
                ok = host.write(cid, nsid, lba, nlb, buffers, (long) cid * ioSize, ioSize, inCapsule);
            }
            if (!ok) {
                throw new IllegalStateException("send buffer full");
            }
            inflight++;
        }

        @Override
        public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
            if (verify && cid < qd) {
                long lba = lbaOf[cid] + dataOffset / bs;
                pattern(expected, 0, lba, len, bs);
                if (MemorySegment.mismatch(expected, 0, len, seg, off, off + len) != -1) {
                    if (verifyErrors.incrementAndGet() <= 5) {
                        System.err.printf("nvme-perf: verify mismatch at LBA %d (%d bytes)%n", lba, len);
                    }
                }
            }
        }

        @Override
        public void onCompletion(int cid, int status, int dw0) {
            inflight--;
            long lat = Math.max(1, System.nanoTime() - submitted[cid]);
            submitted[cid] = 0; // not outstanding (oldestSent)
            if (hybridPoll != null) {
                hybridPoll.completed(lat);
            }
            if (status != 0) {
                // A failed I/O is counted apart: never in IOPS, MiB/s or latency.
                errors++;
                if (errors <= 5) {
                    System.err.printf("nvme-perf: command %d failed: status 0x%04x%n", cid, status);
                }
            } else if (measuring && !prefill) {
                hist.recordValue(lat);
                (isRead[cid] ? readHist : writeHist).recordValue(lat);
            }
            if (prefill) {
                completedPrefill++;
                if (seq < ios) {
                    submit(cid);
                }
                return;
            }
            if (!stop) {
                submit(cid);
            }
        }
    }
}
