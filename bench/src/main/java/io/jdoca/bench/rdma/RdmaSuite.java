package io.jdoca.bench.rdma;

import io.jdoca.bench.BenchProperties;
import io.jdoca.bench.BenchResult;
import io.jdoca.bench.BenchSuite;
import io.jdoca.bench.Measure;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import io.jdoca.rdma.RdmaTransportType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * {@code ./jdoca bench rdma}: per transport (shm, tcp) the 64 KiB write and read bandwidth, the
 * 4 KiB write rate and the send/receive round trip (p50, p99), each against a baseline measured in
 * the same run: {@code MemorySegment.copy} for shm data movement, a plain blocking-socket stream
 * and ping-pong over loopback for tcp (and as the round-trip reference for shm).
 *
 * <p>Both RDMA sides run in this JVM, each with its own progress engine and thread. The requester
 * busy-polls for SHM (its own thread does the work) and, for TCP, polls briefly then sleeps in
 * notification mode (the context's transport agent, the only reader and writer of its sockets, wakes
 * it on completions; {@code -Djdoca.bench.rdma.yield=true} makes it poll with a yielding strategy
 * instead). The responder sleeps in notification mode, so its transport agent serves the one-sided
 * operations like a NIC, except while round trips are measured, when both engines poll with a
 * yielding strategy (their agents still do the socket I/O). The baselines are measured in every round,
 * interleaved with the RDMA figures; medians over the rounds are reported.
 *
 * <p>{@code ./jdoca bench rdma -d DEV} measures the verbs transport on an rdma-core device instead,
 * beside perftest on the same device ({@link VerbsBench}).
 */
public final class RdmaSuite implements BenchSuite.OnDevice {
    private static final int DEPTH_64K = 8;
    private static final int DEPTH_4K = 32;
    private static final int K64 = 64 * 1024;
    private static final int K4 = 4096;
    private static final int MSG = 64;

    @Override
    public String description() {
        return "RDMA (shm, tcp): 64 KiB write/read Gbit/s, 4 KiB write Mop/s, 64 B send/recv RTT vs memcpy and "
                + "raw sockets";
    }

    /** {@code -d DEV}: the verbs run beside perftest ({@link VerbsBench}), written to {@code rdma-verbs.json}. */
    @Override
    public String resultName() {
        return "rdma-verbs";
    }

    @Override
    public List<BenchResult> run(boolean quick, String device) throws Exception {
        return new VerbsBench(device, quick).run();
    }

    @Override
    public List<BenchResult> run(boolean quick) throws Exception {
        long dur = quick ? 300_000_000L : 1_000_000_000L;
        int rtts = quick ? 2_000 : 20_000;
        int rounds = quick ? 3 : 5;
        List<BenchResult> out = new ArrayList<>();
        Measure.progress("baselines: memcpy");
        double memcpy64 = memcpyGbps(K64, DEPTH_64K, dur);
        double memcpy4 = memcpyOps(K4, DEPTH_4K, dur) / 1e6;
        for (RdmaTransportType t : transports()) {
            String p = "rdma." + t.name().toLowerCase() + ".";
            boolean shm = t == RdmaTransportType.SHM;
            try (Pair pair = new Pair(t)) {
                Measure.progress(t + ": warm-up");
                pair.oneSided(true, K64, DEPTH_64K, dur / 3);
                pair.oneSided(false, K64, DEPTH_64K, dur / 3);
                pair.oneSided(true, K4, DEPTH_4K, dur / 3);
                pair.rtt(rtts / 4);
                rawPingPong(MSG, rtts / 4);
                // Each round measures the baselines and the RDMA figures back to back, so both see
                // the same machine; the medians over the rounds are reported. Two shared cores drift
                // by 2x within a minute, which a baseline taken once at the start cannot follow.
                double[] w64 = new double[rounds];
                double[] r64 = new double[rounds];
                double[] w4 = new double[rounds];
                double[] s64 = new double[rounds];
                double[] s4 = new double[rounds];
                Histogram h = new Histogram(3_600_000_000L, 3);
                Histogram raw = new Histogram(3_600_000_000L, 3);
                for (int r = 0; r < rounds; r++) {
                    Measure.progress(t + ": round " + (r + 1) + "/" + rounds
                            + " (64 KiB write/read, 4 KiB write, round trips)");
                    if (!shm) {
                        s64[r] = rawStreamOps(K64, dur);
                    }
                    w64[r] = pair.timed(true, K64, DEPTH_64K, dur);
                    r64[r] = pair.timed(false, K64, DEPTH_64K, dur);
                    if (!shm) {
                        s4[r] = rawStreamOps(K4 + MSG, dur);
                    }
                    w4[r] = pair.timed(true, K4, DEPTH_4K, dur);
                    raw.add(rawPingPong(MSG, rtts / rounds));
                    h.add(pair.rtt(rtts / rounds));
                }
                Measure.progress(t + ": idle CPU");
                double idleCpu = pair.idleCpuPercent(quick ? 500_000_000L : 3_000_000_000L);
                double stream64 = median(s64) * K64 * 8 / 1e9;
                double stream4 = median(s4) / 1e6;
                double bw = median(w64) * K64 * 8 / 1e9;
                double br = median(r64) * K64 * 8 / 1e9;
                double rawP50 = raw.getValueAtPercentile(50) / 1000.0;
                double rawP99 = raw.getValueAtPercentile(99) / 1000.0;
                out.add(BenchResult.of(p + "write_64k.gbps", "Gbit/s", bw,
                        shm ? "memcpy_64k.gbps" : "socket_stream_64k.gbps", shm ? memcpy64 : stream64)
                        .withRounds(scaled(w64, K64 * 8 / 1e9)));
                out.add(BenchResult.of(p + "read_64k.gbps", "Gbit/s", br,
                        shm ? "memcpy_64k.gbps" : "socket_stream_64k.gbps", shm ? memcpy64 : stream64)
                        .withRounds(scaled(r64, K64 * 8 / 1e9)));
                out.add(BenchResult.of(p + "write_4k.mops", "Mop/s", median(w4) / 1e6,
                        shm ? "memcpy_4k.mops" : "socket_stream_4k.mops", shm ? memcpy4 : stream4)
                        .withRounds(scaled(w4, 1e-6)));
                out.add(BenchResult.of(p + "send_recv_rtt_p50.us", "us", h.getValueAtPercentile(50) / 1000.0,
                        "socket_pingpong_p50.us", rawP50));
                out.add(BenchResult.of(p + "send_recv_rtt_p99.us", "us", h.getValueAtPercentile(99) / 1000.0,
                        "socket_pingpong_p99.us", rawP99));
                out.add(BenchResult.plain(p + "idle_cpu.pct", "% of one core", idleCpu));
            }
        }
        return out;
    }

    private static double[] scaled(double[] v, double f) {
        double[] s = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            s[i] = v[i] * f;
        }
        return s;
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        java.util.Arrays.sort(c);
        return c[c.length / 2];
    }

    /** {@code -Djdoca.bench.rdma.transports=tcp} (comma list) narrows the run while tuning one transport. */
    private static RdmaTransportType[] transports() {
        String p = BenchProperties.RDMA_TRANSPORTS.asString();
        return java.util.Arrays.stream(p.split(",")).map(String::trim).map(String::toUpperCase)
                .map(RdmaTransportType::valueOf).toArray(RdmaTransportType[]::new);
    }

    // ------------------------------------------------------------------ baselines

    static double memcpyGbps(int size, int depth, long dur) {
        return memcpyOps(size, depth, dur) * size * 8 / 1e9;
    }

    /** Median of three runs, like the RDMA figures. */
    static double memcpyOps(int size, int depth, long dur) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate((long) size * depth, 4096);
            MemorySegment dst = arena.allocate((long) size * depth, 4096);
            Measure.opsPerSecond(dur / 2, depth, i -> MemorySegment.copy(src, i * size, dst, i * size, size));
            return Measure.medianOpsPerSecond(3, dur, depth,
                    i -> MemorySegment.copy(src, i * size, dst, i * size, size));
        }
    }

    private static SocketChannel[] loopbackPair() throws IOException {
        try (ServerSocketChannel ss = ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel c = SocketChannel.open(ss.getLocalAddress());
            SocketChannel s = ss.accept();
            for (SocketChannel x : new SocketChannel[] {c, s}) {
                x.setOption(StandardSocketOptions.TCP_NODELAY, true);
                x.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
                x.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
            }
            return new SocketChannel[] {c, s};
        }
    }

    /** A plain blocking-socket stream of {@code size}-byte writes from one thread to a reader thread. */
    static double rawStreamOps(int size, long dur) throws Exception {
        SocketChannel[] p = loopbackPair();
        try {
            Thread reader = Thread.ofPlatform().daemon().start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(size);
                try {
                    while (true) {
                        b.clear();
                        if (p[1].read(b) < 0) {
                            return;
                        }
                    }
                } catch (IOException e) {
                    // closed: done
                }
            });
            ByteBuffer w = ByteBuffer.allocateDirect(size);
            long t0 = System.nanoTime();
            long end = t0 + dur;
            long ops = 0;
            long now;
            do {
                w.clear();
                while (w.hasRemaining()) {
                    p[0].write(w);
                }
                ops++;
                now = System.nanoTime();
            } while (now < end);
            p[0].close();
            reader.join(5000);
            return ops * 1e9 / (now - t0);
        } finally {
            p[0].close();
            p[1].close();
        }
    }

    /** Blocking-socket ping-pong of {@code size} bytes; round trips in ns. */
    static Histogram rawPingPong(int size, int n) throws Exception {
        SocketChannel[] p = loopbackPair();
        Histogram h = new Histogram(3_600_000_000L, 3);
        try {
            Thread echo = Thread.ofPlatform().daemon().start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(size);
                try {
                    while (true) {
                        b.clear();
                        while (b.hasRemaining()) {
                            if (p[1].read(b) < 0) {
                                return;
                            }
                        }
                        b.flip();
                        while (b.hasRemaining()) {
                            p[1].write(b);
                        }
                    }
                } catch (IOException e) {
                    // closed: done
                }
            });
            ByteBuffer b = ByteBuffer.allocateDirect(size);
            for (int i = 0; i < n + n / 4; i++) {
                long t0 = System.nanoTime();
                b.clear();
                while (b.hasRemaining()) {
                    p[0].write(b);
                }
                b.clear();
                while (b.hasRemaining()) {
                    p[0].read(b);
                }
                if (i >= n / 4) {
                    h.recordValue(System.nanoTime() - t0);
                }
            }
            p[0].close();
            echo.join(5000);
            return h;
        } finally {
            p[0].close();
            p[1].close();
        }
    }

    // ------------------------------------------------------------------ RDMA pair

    /**
     * One side of a benchmark pair: device, engine, RDMA context on a transport, a shared-memory map registered on the
     * device (for verbs: ibv_reg_mr), an inventory. Shared by the software transports' pairs here and the verbs pair
     * of {@link VerbsBench}. Control path: a setup error is an exception naming the step.
     */
    static final class Side implements AutoCloseable {
        final Dev dev;
        final ProgressEngine pe = ProgressEngine.create();
        final Rdma rdma;
        final SharedRegion region;
        final MemoryMap map = MemoryMap.create();
        final BufInventory inv = BufInventory.create(1024);
        MemoryMap imported;

        Side(String device, RdmaTransportType t, long memBytes) {
            dev = Devices.open(device);
            region = SharedMemory.allocate(memBytes);
            rdma = Rdma.create(dev);
            check("transport", rdma.setTransport(t));
            check("permissions", rdma.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA));
            check("memrange", map.setMemrange(region.segment()));
            check("add device", map.addDev(dev));
            check("map permissions", map.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA));
            check("map start", map.start());
            check("inventory start", inv.start());
        }

        Side(RdmaTransportType t) {
            this("sw0", t, 32L << 20);
        }

        Buf buf(MemoryMap m, long off, long len, long dataLen) {
            Buf b = inv.getByArgs(m, m.baseAddress() + off, len, m.baseAddress() + off, dataLen);
            if (b == null) {
                throw new IllegalStateException("buffer inventory: " + inv.lastError());
            }
            return b;
        }

        @Override
        public void close() {
            if (imported != null) {
                imported.close();
            }
            map.close();
            region.close();
        }
    }

    static void check(String what, DocaError e) {
        if (e != DocaError.SUCCESS && e != DocaError.IN_PROGRESS) {
            throw new IllegalStateException("bench rdma: " + what + ": " + e);
        }
    }

    /** Stops {@code a}'s context and progresses both engines until both are idle or {@code timeoutNanos} passed. */
    static void stopBoth(Side a, Side b, long timeoutNanos) {
        a.rdma.stop();
        long deadline = System.nanoTime() + timeoutNanos;
        while ((a.rdma.state() != CtxState.IDLE || b.rdma.state() != CtxState.IDLE) && System.nanoTime() < deadline) {
            a.pe.progress();
            b.pe.progress();
        }
        a.close();
        b.close();
    }

    static final class Pair implements AutoCloseable {
        final Side a;
        final Side b;
        final RdmaConnection ca;
        final RdmaConnection cb;
        volatile boolean running = true;
        /** The responder polls hot only while round trips are measured; otherwise it sleeps in notification mode. */
        volatile boolean responderHot;
        final boolean tcp;
        final Thread responder;
        // requester state (bench thread only)
        long completed;
        long errors;
        boolean rearm;
        // round trip state
        long rttDone;
        int recvPosted;

        Pair(RdmaTransportType t) throws InterruptedException {
            tcp = t == RdmaTransportType.TCP;
            a = new Side(t);
            b = new Side(t);
            a.rdma.taskWriteSetConf((task, ud, cud) -> {
                completed++;
                task.dst().resetDataLen();
                if (!rearm || task.submit() != DocaError.SUCCESS) {
                    task.free();
                }
            }, (task, ud, cud) -> {
                errors++;
                task.free();
            }, 64);
            a.rdma.taskReadSetConf((task, ud, cud) -> {
                completed++;
                task.dst().resetDataLen();
                if (!rearm || task.submit() != DocaError.SUCCESS) {
                    task.free();
                }
            }, (task, ud, cud) -> {
                errors++;
                task.free();
            }, 64);
            a.rdma.taskSendSetConf((task, ud, cud) -> task.free(), (task, ud, cud) -> {
                errors++;
                task.free();
            }, 16);
            a.rdma.taskReceiveSetConf((task, ud, cud) -> {
                rttDone = System.nanoTime();
                task.dst().resetDataLen();
                if (task.submit() != DocaError.SUCCESS) {
                    task.free();
                }
            }, (task, ud, cud) -> task.free(), 16);
            // b echoes every message back from its receive buffer, then reposts the receive.
            RdmaTaskReceive[] recvs = new RdmaTaskReceive[16];
            b.rdma.taskReceiveSetConf((task, ud, cud) -> {
                RdmaTaskSend s = b.rdma.taskSendAllocInit(task.resultConnection(), task.dst(), ud);
                if (s == null || s.submit() != DocaError.SUCCESS) {
                    task.free();
                }
            }, (task, ud, cud) -> task.free(), 16);
            b.rdma.taskSendSetConf((task, ud, cud) -> {
                RdmaTaskReceive r = recvs[(int) ud];
                r.dst().resetDataLen();
                task.free();
                r.submit();
            }, (task, ud, cud) -> task.free(), 16);
            a.pe.connectCtx(a.rdma);
            b.pe.connectCtx(b.rdma);
            a.rdma.start();
            b.rdma.start();
            RdmaExport xa = a.rdma.export();
            RdmaExport xb = b.rdma.export();
            a.rdma.connect(xb.blob(), xa.connection());
            b.rdma.connect(xa.blob(), xb.connection());
            ca = xa.connection();
            cb = xb.connection();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (a.rdma.state() != CtxState.RUNNING || b.rdma.state() != CtxState.RUNNING) {
                a.pe.progress();
                b.pe.progress();
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("RDMA pair did not connect: " + a.rdma.state() + " / "
                            + b.rdma.state());
                }
            }
            a.imported = MemoryMap.createFromExport(b.map.exportRdma(b.dev), a.dev);
            for (int i = 0; i < recvs.length; i++) {
                recvs[i] = b.rdma.taskReceiveAllocInit(b.buf(b.map, (30L << 20) + i * 1024L, 1024, 0), i);
                recvs[i].submit();
            }
            responder = Thread.ofPlatform().daemon().name("bench-rdma-responder").start(() -> {
                IdleStrategy hot = IdleStrategy.yielding();
                IdleStrategy cold = IdleStrategy.notifying(b.pe, 0, 0, 1_000_000L);
                while (running) {
                    boolean work = b.pe.progress();
                    (responderHot ? hot : cold).idle(work ? 1 : 0);
                }
            });
        }

        /** Keeps {@code depth} writes (or reads) of {@code size} bytes in flight for {@code dur} ns; returns ops/s. */
        double oneSided(boolean write, int size, int depth, long dur) {
            timed(write, size, depth, dur / 2);
            double[] r = {timed(write, size, depth, dur), timed(write, size, depth, dur),
                timed(write, size, depth, dur)};
            java.util.Arrays.sort(r);
            return r[1];
        }

        /** Process CPU while both sides idle in notification mode (the shm engine polls its rings every 100 µs). */
        double idleCpuPercent(long dur) throws InterruptedException {
            com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean();
            IdleStrategy idle = IdleStrategy.notifying(a.pe, 0, 0, 100_000_000L);
            long c0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            while (System.nanoTime() - t0 < dur) {
                idle.idle(a.pe.progress() ? 1 : 0);
            }
            long c1 = os.getProcessCpuTime();
            return 100.0 * (c1 - c0) / (System.nanoTime() - t0);
        }

        /** One timed run of {@code dur} ns (no warm-up); ops/s. */
        double timed(boolean write, int size, int depth, long dur) {
            completed = 0;
            rearm = true;
            for (int i = 0; i < depth; i++) {
                Buf local = a.buf(a.map, (long) i * size, size, write ? size : 0);
                Buf remote = a.buf(a.imported, (long) i * size, size, write ? 0 : size);
                DocaError e = write ? a.rdma.taskWriteAllocInit(ca, local, remote, i).submit()
                        : a.rdma.taskReadAllocInit(ca, remote, local, i).submit();
                if (e != DocaError.SUCCESS) {
                    throw new IllegalStateException("submit: " + e);
                }
            }
            // TCP completions come from the transport thread, which wakes a sleeping engine; SHM completes on this
            // thread.
            IdleStrategy idle = !tcp ? IdleStrategy.busySpin()
                    : BenchProperties.RDMA_YIELD.asBoolean() ? IdleStrategy.yielding()
                    : IdleStrategy.notifying(a.pe, 64, 8, 1_000_000L);
            long t0 = System.nanoTime();
            long end = t0 + dur;
            long now;
            do {
                idle.idle(a.pe.progress() ? 1 : 0);
                now = System.nanoTime();
            } while (now < end);
            long n = completed;
            rearm = false;
            // The receive posted for round trips stays in flight; wait for the one-sided tasks only.
            while (a.rdma.numInflightTasks() > recvPosted) {
                idle.idle(a.pe.progress() ? 1 : 0);
            }
            if (errors > 0) {
                throw new IllegalStateException(errors + " RDMA tasks failed");
            }
            return n * 1e9 / (now - t0);
        }

        Histogram rtt(int n) {
            Histogram h = new Histogram(3_600_000_000L, 3);
            if (recvPosted == 0) {
                RdmaTaskReceive r = a.rdma.taskReceiveAllocInit(a.buf(a.map, 20L << 20, 1024, 0), 0);
                r.submit();
                recvPosted = 1;
            }
            Buf msg = a.buf(a.map, 21L << 20, MSG, MSG);
            IdleStrategy idle = IdleStrategy.yielding();
            responderHot = true;
            for (int i = 0; i < n + n / 4; i++) {
                rttDone = 0;
                long t0 = System.nanoTime();
                a.rdma.taskSendAllocInit(ca, msg, i).submit();
                while (rttDone == 0) {
                    idle.idle(a.pe.progress() ? 1 : 0);
                }
                if (i >= n / 4) {
                    h.recordValue(rttDone - t0);
                }
            }
            responderHot = false;
            return h;
        }

        @Override
        public void close() {
            running = false;
            try {
                responder.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stopBoth(a, b, 10_000_000_000L);
        }
    }
}
