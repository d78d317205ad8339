package io.jdoca.nvmf.perf;

import io.jdoca.argp.DocaFlags;
import io.jdoca.core.util.DocaLogLevel;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code ./jdoca nvme-perf}: an NVMe/TCP and NVMe/RDMA ({@code -r trtype:RDMA}, {@link NvmeRdmaHost})
 * initiator benchmark speaking SPDK's {@code spdk_nvme_perf} dialect: every spdk_nvme_perf flag means what
 * SPDK means or is refused with one line ({@link PerfFlags}); several {@code -r}, a discovery trid, every
 * active namespace when none is named. For each namespace it connects {@code -P} I/O queues (one thread
 * each, {@link PerfWorker}), keeps {@code -q} commands outstanding per queue for {@code -t} seconds (or
 * {@code -d} I/Os) and prints IOPS, MiB/s and latency ({@link PerfReport}). {@code --verify} writes a known
 * pattern over the range first and checks every byte read. {@code --echo-server PORT} instead runs a
 * trivial NVMe/TCP responder (the transport ceiling used as the benchmark baseline).
 *
 * <p>Picocli command; one instance per process. The main thread runs the control path (the controllers'
 * admin queues, Keep Alive); the queue threads touch only their own queue.
 */
@Command(name = "nvme-perf", versionProvider = DocaFlags.Version.class, modelTransformer = NvmePerfApp.Refused.class,
        description = "NVMe/TCP and NVMe/RDMA initiator benchmark (like spdk_nvme_perf): IOPS, MiB/s, latency "
                + "percentiles. -v lists every spdk_nvme_perf flag and what nvme-perf does with it.")
public final class NvmePerfApp implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print a help synopsis.")
    boolean help;

    @Option(names = {"-v", "--help-full"},
            description = "Print the help with every spdk_nvme_perf flag and its status.")
    boolean helpFull;

    /** Long only: spdk_nvme_perf's -v is its full help and -V enables VMD. */
    @Option(names = "--version", versionHelp = true, description = "Print program version information.")
    boolean version;

    @Option(names = {"-r", "--transport", "--transport-id"}, paramLabel = "TRID",
            description = "spdk_nvme_perf's transport ID, repeatable, e.g. 'trtype:TCP adrfam:IPv4 traddr:127.0.0.1 "
                    + "trsvcid:4420 subnqn:nqn.2016-06.io.spdk:cnode1' (trtype TCP or RDMA; keys: trtype, adrfam, "
                    + "traddr, trsvcid, subnqn, hostnqn, ns). Without subnqn: a discovery service (every NVM subsystem "
                    + "its log lists at that address); without ns: every active namespace. Overrides --address, "
                    + "--port, -n, --hostnqn and --nsid.")
    List<String> trids = new ArrayList<>();

    @Option(names = "--address", defaultValue = "127.0.0.1", description = "Target address without -r "
            + "(default: ${DEFAULT-VALUE}).")
    String address;

    @Option(names = "--port", defaultValue = "4420",
            description = "Target port without -r (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = {"-n", "--nqn"}, defaultValue = "nqn.2024-01.io.jdoca:demo",
            description = "Subsystem NQN without -r (default: ${DEFAULT-VALUE}).")
    String nqn;

    @Option(names = "--hostnqn", defaultValue = "nqn.2014-08.org.nvmexpress:uuid:6a646f63-612d-7065-7266-000000000001",
            description = "Host NQN sent at Connect (a trid's hostnqn: wins).")
    String hostnqn;

    @Option(names = "--nsid", description = "Namespace id without a trid's ns: (default: every active namespace).")
    Integer nsidArg;

    @Option(names = {"-q", "--io-depth", "--queue-depth"}, defaultValue = "32", paramLabel = "N",
            description = "Outstanding I/Os per queue, SPDK's units allowed (default: ${DEFAULT-VALUE}).")
    String qdArg;

    @Option(names = {"-o", "--io-size"}, defaultValue = "4096", paramLabel = "BYTES",
            description = "I/O size: bytes or SPDK's units, e.g. 4k, 128K, 1M (default: ${DEFAULT-VALUE}).")
    String ioSizeArg;

    @Option(names = {"-w", "--io-pattern", "--workload"}, defaultValue = "randread",
            description = "read, write, randread, randwrite, rw or randrw (default: ${DEFAULT-VALUE}).")
    String workload;

    @Option(names = {"-M", "--rwmixread"}, defaultValue = "50",
            description = "Read percentage for rw and randrw (default: ${DEFAULT-VALUE}).")
    int mixRead;

    @Option(names = {"-t", "--time"}, defaultValue = "10",
            description = "Seconds to measure (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = {"-a", "--warmup-time", "--warmup"}, paramLabel = "SECONDS",
            description = "Seconds of warm-up before measuring (default: 1; 0 with -d).")
    Double warmupArg;

    @Option(names = {"-d", "--number-ios"}, paramLabel = "N|N%",
            description = "I/Os per namespace (or N%% of its I/O range), spread over its -P queues; the run ends when "
                    + "they are done (or at -t). Not with -a, as SPDK.")
    String numberIos;

    @Option(names = {"-P", "--num-qpairs", "--queues"}, defaultValue = "1",
            description = "I/O queue pairs per namespace, one thread each (default: ${DEFAULT-VALUE}).")
    int queues;

    @Option(names = {"-c", "--core-mask"}, paramLabel = "MASK",
            description = "Core mask (e.g. 0x2 or [0,1]): queue thread i is pinned to the i-th CPU of the mask. "
                    + "Default: not pinned.")
    String coreMask;

    @Option(names = {"-H", "--enable-tcp-hdgst", "--hdr-digest"}, description = "NVMe/TCP header digest (CRC32C).")
    boolean hdgst;

    @Option(names = {"-I", "--enable-tcp-ddgst", "--data-digest"}, description = "NVMe/TCP data digest (CRC32C).")
    boolean ddgst;

    @Option(names = {"-L", "--enable-sw-latency-tracking"},
            description = "-L: print latency percentiles; -LL: also a latency histogram.")
    boolean[] latencyDetail = new boolean[0];

    @Option(names = {"-Q", "--continue-on-error"}, paramLabel = "N", description = "Continue on I/O errors "
            + "(they do not make the exit status 1) and print every Nth. Without it: the first 5, exit status 1.")
    Integer continueOnError;

    @Option(names = {"-m", "--cpu-usage"}, description = "Print each queue thread's CPU use.")
    boolean cpuUsage;

    @Option(names = {"-k", "--keepalive"}, defaultValue = "10000", paramLabel = "MS", description = "Keep-alive "
            + "timeout in ms sent at Connect; Keep Alive goes out every half of it; 0: none "
            + "(default: ${DEFAULT-VALUE}).")
    long keepAliveMs;

    @Option(names = "--io-queue-size", paramLabel = "N", description = "I/O submission queue entries asked at Connect "
            + "(default: -q + 1, at least 32).")
    String ioQueueSizeArg;

    @Option(names = "--range-mb", defaultValue = "0",
            description = "Limit I/O to the first N MiB (0 = the whole namespace; with --verify the default is 64).")
    long rangeMb;

    @Option(names = "--verify", description = "Write a pattern over the range first, then check every read.")
    boolean verify;

    @Option(names = "--no-prefill", description = "With --verify, do not write the pattern first: check what an "
            + "earlier --verify run left on the namespace (e.g. after the target restarted).")
    boolean noPrefill;

    @Option(names = "--in-capsule", defaultValue = "8192",
            description = "Largest write sent in the capsule, in bytes (default: ${DEFAULT-VALUE}).")
    int inCapsule;

    @Option(names = "--disable-sqflow",
            description = "Disable SQ flow control at Connect, so reads complete with C2HData SUCCESS "
                    + "(no CapsuleResp).")
    boolean disableSqFlow;

    /** How a queue waits for answers (see {@link HybridPoll}). */
    enum Idle { spin, sleep, hybrid }

    @Option(names = "--idle", defaultValue = "spin", description = "How a queue with nothing to read or send waits: "
            + "spin (busy-poll, as spdk_nvme_perf does), sleep (in the socket, as fio on a kernel initiator sleeps in "
            + "the kernel) or hybrid (sleep through the first half of the usual wait, then spin; Linux's hybrid "
            + "polling). On a shared machine a spinning initiator loses its core to other processes; see "
            + "docs/performance/nvmf.md. Default: ${DEFAULT-VALUE}.")
    Idle idle;

    @Option(names = "--idle-sleep", description = "Same as --idle sleep.")
    boolean idleSleep;

    @Option(names = "--json", description = "Also print one JSON line with the results.")
    boolean json;

    @Option(names = "--echo-server",
            description = "Run the trivial NVMe/TCP echo responder on this port instead (the benchmark baseline).")
    Integer echoPort;

    @CommandLine.Mixin
    PerfTls tls = new PerfTls();

    @Option(names = "--log-level", defaultValue = "warning", paramLabel = "LEVEL", description = "SPDK's error, "
            + "warning, notice, info or debug, or a DOCA level 10..70 (default: ${DEFAULT-VALUE}).")
    String logLevel;

    /** Adds spdk_nvme_perf's refused flags as hidden options (picocli model transformer). */
    public static final class Refused implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec s) {
            PerfFlags.addRefused(s);
            return s;
        }
    }

    // ---- the run's settings (from the flags, badFlag) and shared state, read by PerfWorker and PerfReport
    int qd;
    int ioSize;
    int sqsize0;
    boolean rand;
    int readPct;
    /** -Q's N, 0 without -Q. */
    int quietCount;
    double warmup;
    List<Integer> cpus = List.of();
    private final List<PerfTrid> targets = new ArrayList<>();
    volatile boolean measuring;
    volatile boolean stop;
    volatile CountDownLatch connected = new CountDownLatch(0);
    final CountDownLatch go = new CountDownLatch(1);
    final AtomicLong verifyErrors = new AtomicLong();
    private final List<PerfController> ctrls = new ArrayList<>();

    /** Exit status for bad flags (picocli's invalid-input code). */
    static final int EXIT_USAGE = 2;

    /**
     * Checks the flags before anything connects; returns one line naming the bad flag, or null.
     * Limits that depend on the target (MDTS, MQES, queues granted) are checked after Connect.
     */
    String badFlag() {
        try {
            qd = intSize("-q/--io-depth", qdArg);
            ioSize = intSize("-o/--io-size", ioSizeArg);
            int sq = ioQueueSizeArg == null ? Math.max(qd + 1, 32) : intSize("--io-queue-size", ioQueueSizeArg);
            sqsize0 = sq - 1;
            targets.clear();
            PerfTrid base = new PerfTrid(false, false, address, port, nqn, hostnqn, nsidArg == null ? 0 : nsidArg);
            for (String t : trids) {
                targets.add(PerfTrid.parse(t, base));
            }
            if (trids.isEmpty()) {
                targets.add(base);
            }
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        boolean anyRdma = targets.stream().anyMatch(PerfTrid::rdma);
        String tlsBad = tls.check();
        if (tlsBad != null || (anyRdma && tls.pskPath != null)) {
            return tlsBad != null ? tlsBad : "--psk-path: TLS is NVMe/TCP's, not NVMe/RDMA's";
        }
        if (noPrefill && !verify) {
            return "--no-prefill needs --verify";
        }
        if (anyRdma && (hdgst || ddgst)) {
            return "-H/-I (header/data digest) are NVMe/TCP options, not for trtype:RDMA";
        }
        if (echoPort != null) {
            return echoPort < 0 || echoPort > 65535 ? "--echo-server must be a TCP port 0..65535 (got " + echoPort + ")"
                    : null;
        }
        if (port < 1 || port > 65535) {
            return "--port must be a TCP port 1..65535 (got " + port + ")";
        }
        if (qd < 1 || qd > 65535) {
            return "-q/--io-depth must be 1..65535 (got " + qdArg + ")";
        }
        if (sqsize0 < qd || sqsize0 > 65535) {
            return "--io-queue-size must be more than -q (one entry stays free) and at most 65536 (got "
                    + ioQueueSizeArg + ")";
        }
        if (queues < 1 || queues > 65535) {
            return "-P/--num-qpairs must be 1..65535 (got " + queues + ")";
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
            return "-o/--io-size must be a positive number of bytes (got " + ioSizeArg + ")";
        }
        if (mixRead < 0 || mixRead > 100) {
            return "-M/--rwmixread must be a percentage 0..100 (got " + mixRead + ")";
        }
        if (!(seconds > 0) || Double.isInfinite(seconds) || seconds > 1e7) {
            return "-t/--time must be a positive number of seconds (got " + seconds + ")";
        }
        if (numberIos != null && warmupArg != null && warmupArg > 0) {
            return "-d (--number-ios) with -a (--warmup-time) is not supported";
        }
        warmup = warmupArg != null ? warmupArg : numberIos != null ? 0 : 1;
        if (!(warmup >= 0) || Double.isInfinite(warmup) || warmup > 1e7) {
            return "-a/--warmup-time must be 0 or more seconds (got " + warmup + ")";
        }
        if (numberIos != null) {
            String bad = checkNumberIos();
            if (bad != null) {
                return bad;
            }
        }
        if (continueOnError != null && continueOnError < 1) {
            return "-Q (--continue-on-error) value must be greater than 0 (got " + continueOnError + ")";
        }
        quietCount = continueOnError == null ? 0 : continueOnError;
        if (keepAliveMs < 0 || keepAliveMs > 0xffffffffL) {
            return "-k/--keepalive must be 0..4294967295 ms (got " + keepAliveMs + ")";
        }
        if (nsidArg != null && (nsidArg == 0 || nsidArg == -1)) {
            return "--nsid must be a namespace id 1..4294967294 (got " + Integer.toUnsignedString(nsidArg) + ")";
        }
        if (rangeMb < 0 || rangeMb > (1L << 43)) {
            return "--range-mb must be 0 (whole namespace) or a positive number of MiB (got " + rangeMb + ")";
        }
        if (inCapsule < 0) {
            return "--in-capsule must be 0 or more bytes (got " + inCapsule + ")";
        }
        rand = workload.startsWith("rand");
        readPct = readPct();
        if (readPct < 0) {
            return "-w/--io-pattern must be one of read, write, randread, randwrite, rw, randrw (got '" + workload
                    + "')";
        }
        return null;
    }

    private String checkNumberIos() {
        String v = numberIos.trim();
        try {
            long n = v.endsWith("%") ? Long.parseLong(v.substring(0, v.length() - 1)) : PerfFlags.size("-d", v);
            if (n < 1) {
                return "-d/--number-ios must be a positive count or percentage (got " + numberIos + ")";
            }
            if (!v.endsWith("%") && n < qd) {
                return "-d (--number-ios) less than -q (--io-depth) is not supported";
            }
        } catch (NumberFormatException e) {
            return "-d/--number-ios must be a count (4096, 1M) or a percentage (50%) (got " + numberIos + ")";
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        return null;
    }

    private static int intSize(String flag, String v) {
        long n = PerfFlags.size(flag, v);
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(flag + " must be below 2 GiB (got " + v + ")");
        }
        return (int) n;
    }

    /** The trids of this run (after {@link #badFlag()}). */
    List<PerfTrid> targets() {
        return targets;
    }

    /** A host queue of {@code t}'s transport for cids 0..maxCid-1 of at most maxIo bytes. */
    NvmeHostQueue openQueue(PerfTrid t, int maxCid, int maxIo) throws IOException {
        return t.rdma() ? new NvmeRdmaHost(t.traddr(), t.trsvcid(), maxCid, maxIo)
                : new NvmeTcpHost(t.traddr(), t.trsvcid(), hdgst, ddgst, maxCid, maxIo, tls.derive(t));
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

    /** The DOCA level of --log-level (SPDK's names or 10..70), or -1. */
    static int docaLevel(String v) {
        return switch (v.trim().toLowerCase(Locale.ROOT)) {
            case "error" -> 30;
            case "warning", "warn" -> 40;
            case "notice", "info" -> 50;
            case "debug" -> 60;
            default -> {
                try {
                    int n = Integer.parseInt(v.trim());
                    yield n >= 10 && n <= 70 ? n : -1;
                } catch (NumberFormatException e) {
                    yield -1;
                }
            }
        };
    }

    private static int usage(String line) {
        System.err.println("nvme-perf: " + line);
        return EXIT_USAGE;
    }

    @Override
    public Integer call() throws Exception {
        if (helpFull) {
            spec.commandLine().usage(System.out);
            System.out.println();
            System.out.print(PerfFlags.table());
            return 0;
        }
        String refused = PerfFlags.refusal(spec.commandLine().getParseResult());
        if (refused != null) {
            return usage(refused);
        }
        int level = docaLevel(logLevel);
        if (level < 0) {
            return usage("--log-level must be error, warning, notice, info, debug or a DOCA level 10..70 (got '"
                    + logLevel + "')");
        }
        DocaLogLevel.apply(level);
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
        PerfTrid current = targets.getFirst();
        try {
            List<PerfController.Namespace> nss = new ArrayList<>();
            for (PerfTrid t : targets) {
                current = t;
                for (PerfController c : controllers(t)) {
                    current = c.trid;
                    if (qd > c.maxQueueEntries - 1) {
                        return usage(String.format("-q/--io-depth %d exceeds the queue size limit %d of %s "
                                + "(CAP.MQES+1, one entry kept free)", qd, c.maxQueueEntries, c.trid.name()));
                    }
                    List<PerfController.Namespace> l = c.namespaces(ioSize, rangeMb > 0 ? rangeMb << 20
                            : verify ? 64L << 20 : 0);
                    c.grantQueues(queues * l.size());
                    nss.addAll(l);
                }
            }
            if (nss.isEmpty()) {
                System.err.println("nvme-perf: no NVM subsystem to run against (the discovery log lists none here)");
                return 1;
            }
            return run(nss);
        } catch (PerfController.Failure f) {
            System.err.println("nvme-perf: " + f.getMessage());
            return f.exit;
        } catch (IOException e) {
            // control path (connect, admin): one line naming what failed, exit 1
            System.err.println("nvme-perf: " + (current.rdma() ? "NVMe/RDMA " : "NVMe/TCP ") + current.traddr() + ":"
                    + current.trsvcid() + ": " + e.getMessage());
            return 1;
        } finally {
            for (PerfController c : ctrls) {
                c.close();
            }
        }
    }

    /** The controllers of {@code t}: itself, or for a discovery trid every subsystem its log lists here. */
    private List<PerfController> controllers(PerfTrid t) throws IOException, PerfController.Failure {
        List<PerfTrid> subs;
        if (t.discovery()) {
            List<String> notes = new ArrayList<>();
            try (PerfController d = PerfController.open(t, this, 0)) {
                subs = d.discoveryLog(notes);
            }
            for (String n : notes) {
                System.err.println("nvme-perf: " + n);
            }
        } else {
            subs = List.of(t);
        }
        List<PerfController> out = new ArrayList<>();
        for (PerfTrid s : subs) {
            PerfController c = PerfController.open(s, this, keepAliveMs);
            ctrls.add(c);
            out.add(c);
        }
        return out;
    }

    private int run(List<PerfController.Namespace> nss) throws Exception {
        if (verify && !noPrefill) {
            for (PerfController.Namespace ns : nss) {
                prefill(ns);
            }
        }
        List<PerfWorker> workers = new ArrayList<>();
        for (PerfController.Namespace ns : nss) {
            long total = numberIos == null ? 0 : numberIos.trim().endsWith("%")
                    ? Math.max(1, ns.ios() * Long.parseLong(numberIos.trim().replace("%", "")) / 100)
                    : PerfFlags.size("-d", numberIos);
            for (int q = 0; q < queues; q++) {
                long quota = total == 0 ? 0 : total / queues + (q < total % queues ? 1 : 0);
                if (total != 0 && quota == 0) {
                    continue; // fewer I/Os than queues: this one has none
                }
                workers.add(new PerfWorker(this, ns, workers.size(), ns.ctrl().nextQid(), quota,
                        q * (ns.ios() / queues), false));
            }
        }
        connected = new CountDownLatch(workers.size());
        for (PerfWorker w : workers) {
            w.start();
        }
        // The clock starts once every queue is connected (or failed): Connect is not I/O time.
        if (!awaitKeepingAlive(60_000_000_000L, () -> connected.getCount() == 0)) {
            System.err.println("nvme-perf: the I/O queues did not connect within 60 s");
        }
        long t0;
        if (warmup <= 0) {
            // No warm-up: the count starts before the first I/O (after go, a loaded machine could let some
            // complete before this thread set measuring, and -d would report fewer I/Os than it ran).
            measuring = true;
            t0 = System.nanoTime();
            go.countDown();
        } else {
            go.countDown();
            awaitKeepingAlive((long) (warmup * 1e9), null);
            measuring = true;
            t0 = System.nanoTime();
        }
        awaitKeepingAlive((long) (seconds * 1e9), numberIos == null ? null
                : () -> workers.stream().noneMatch(Thread::isAlive));
        measuring = false;
        long elapsed = System.nanoTime() - t0;
        stop = true;
        int failedQueues = 0;
        for (PerfWorker w : workers) {
            w.join(30_000);
            if (w.failure != null) {
                System.err.println("nvme-perf: queue " + w.index + " (" + w.ns.name() + ") failed: "
                        + w.failure.getMessage());
                failedQueues++;
            }
        }
        PerfReport report = new PerfReport(this, workers, elapsed);
        report.print();
        if (report.errors > 0) {
            System.err.printf("nvme-perf: %d I/O(s) failed (not counted in IOPS or latency)%n", report.errors);
        }
        boolean ioErrorsFail = report.errors > 0 && quietCount == 0;
        return !ioErrorsFail && failedQueues == 0 && verifyErrors.get() == 0 ? 0 : 1;
    }

    /**
     * Waits {@code nanos} (or until {@code done} says so), sending Keep Alive on every controller every half
     * of {@code -k}; true when {@code done} became true (always false without it).
     */
    private boolean awaitKeepingAlive(long nanos, BooleanSupplier done) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        long every = keepAliveMs > 0 ? keepAliveMs * 500_000L : Long.MAX_VALUE / 4;
        long nextKa = System.nanoTime() + every;
        while (true) {
            if (done != null && done.getAsBoolean()) {
                return true;
            }
            long now = System.nanoTime();
            if (now - end >= 0) {
                return false;
            }
            if (now - nextKa >= 0) {
                for (PerfController c : ctrls) {
                    String failed = c.keepAlive();
                    if (failed != null) {
                        System.err.println("nvme-perf: " + failed);
                    }
                }
                nextKa = now + every;
            }
            long sleep = Math.min(end - now, nextKa - now);
            if (done != null) {
                sleep = Math.min(sleep, 5_000_000L); // poll the condition every 5 ms
            }
            Thread.sleep(Math.max(1, sleep / 1_000_000L), (int) (sleep % 1_000_000L));
        }
    }

    private void prefill(PerfController.Namespace ns) throws Exception {
        PerfWorker w = new PerfWorker(this, ns, 0, 1, 0, 0, true);
        w.start();
        awaitKeepingAlive(Long.MAX_VALUE / 4, () -> !w.isAlive());
        w.join();
        if (w.failure != null) {
            throw w.failure;
        }
        if (w.errors > 0) {
            throw new IOException(w.errors + " write(s) of the verify pattern failed on " + ns.name());
        }
        System.err.printf("nvme-perf: verify: wrote the pattern over %d MiB of %s%n", ns.ios() * ioSize >> 20,
                ns.name());
    }
}
