package io.jdoca.bench.ec;

import io.jdoca.bench.BenchResult;
import io.jdoca.bench.BenchSuite;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.ec.Ec;
import io.jdoca.ec.EcMatrix;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.ec.EcTaskCreate;
import io.jdoca.ec.RsEngine;
import io.jdoca.ec.RsTables;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * {@code ./jdoca bench ec}: Reed-Solomon encode and cached recover throughput (GB/s of data in,
 * k &times; block length per second, one thread) of the Java (Vector API) and native (ISA-L via
 * FFM) engines for 2+1, 4+2, 8+3, 10+4 at 4 KiB, 64 KiB and 1 MiB blocks, against ISA-L's own
 * {@code ec_encode_data} called in the same run with the same tables and buffers (the baseline),
 * plus the per-task cost of a 2+1 4 KiB create through the Ec context and progress engine.
 * "recover" rebuilds m lost data blocks (m decode rows, the worst case), "recover1" one lost data
 * block; both use cached decode matrices and count k &times; block length per second like encode.
 */
public final class EcSuite implements BenchSuite {
    private static final int[][] LAYOUTS = {{2, 1}, {4, 2}, {8, 3}, {10, 4}};
    private static final int[] SIZES = {4096, 65536, 1 << 20};

    @Override
    public String description() {
        return "RS encode/recover GB/s, Java (Vector API) and native (ISA-L FFM) engines vs ISA-L ec_encode_data";
    }

    @Override
    public List<BenchResult> run(boolean quick) throws Exception {
        List<BenchResult> out = new ArrayList<>();
        long runNanos = quick ? 60_000_000L : 300_000_000L;
        int reps = quick ? 3 : 5;
        IsalBaseline isal = IsalBaseline.load();
        if (isal == null) {
            System.err.println("bench ec: libisal.so.2 not found (scripts/ensure-packages.sh libisal2): native figures "
                    + "and the ISA-L baseline are skipped");
        }
        List<RsEngine> engines = new ArrayList<>();
        engines.add(RsEngine.java());
        if (RsEngine.isNativeAvailable()) {
            engines.add(RsEngine.isal());
        }
        try (Arena arena = Arena.ofConfined()) {
            for (int[] km : LAYOUTS) {
                int k = km[0];
                int m = km[1];
                EcMatrix mx = EcMatrix.create(EcMatrixType.VANDERMONDE, k, m);
                int[] lost = new int[m];
                for (int i = 0; i < m; i++) {
                    lost[i] = i; // worst case: m data blocks lost, m decode rows
                }
                EcMatrix rec = mx.createRecover(lost);
                EcMatrix rec1 = mx.createRecover(new int[] {0}); // the common case: one data block lost
                for (int len : SIZES) {
                    MemorySegment data = arena.allocate((long) (k + m) * len, 64);
                    byte[] rnd = new byte[(int) Math.min(data.byteSize(), 1 << 20)];
                    new Random(k * 131 + len).nextBytes(rnd);
                    for (long o = 0; o < data.byteSize(); o += rnd.length) {
                        MemorySegment.copy(rnd, 0, data, ValueLayout.JAVA_BYTE, o, (int) Math.min(rnd.length,
                                data.byteSize() - o));
                    }
                    MemorySegment parity = arena.allocate((long) m * len, 64);
                    String tag = k + "+" + m + "." + sizeName(len);
                    // Every figure of one layout and size is measured interleaved, round by round,
                    // so that load from other processes hits all of them alike; medians per figure.
                    List<String> names = new ArrayList<>();
                    List<Runnable> ops = new ArrayList<>();
                    if (isal != null) {
                        names.add("isal.encode");
                        ops.add(isal.op(mx.tables(), len, data, parity));
                    }
                    for (RsEngine e : engines) {
                        names.add(e.name() + ".encode");
                        ops.add(op(e, mx.tables(), len, data, parity));
                        names.add(e.name() + ".recover");
                        ops.add(op(e, rec.tables(), len, data, parity));
                        names.add(e.name() + ".recover1");
                        ops.add(op(e, rec1.tables(), len, data, parity));
                    }
                    double[] gbps = interleaved(ops, (long) k * len, runNanos, reps);
                    double base = isal != null ? gbps[0] : Double.NaN;
                    if (isal != null) {
                        out.add(BenchResult.plain("ec.isal.encode." + tag + ".gbps", "GB/s", base));
                    }
                    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  %-10s", tag));
                    for (int i = 0; i < names.size(); i++) {
                        line.append(String.format(Locale.ROOT, "  %s %6.2f", names.get(i), gbps[i]));
                    }
                    System.err.println(line);
                    for (int i = isal != null ? 1 : 0; i < names.size(); i += 3) {
                        String eng = names.get(i).substring(0, names.get(i).indexOf('.'));
                        out.add(result("ec." + eng + ".encode." + tag + ".gbps", gbps[i], "ec.isal.encode." + tag,
                                base));
                        out.add(BenchResult.of("ec." + eng + ".recover." + tag + ".gbps", "GB/s", gbps[i + 1],
                                "ec." + eng + ".encode." + tag, gbps[i]));
                        out.add(BenchResult.of("ec." + eng + ".recover1." + tag + ".gbps", "GB/s", gbps[i + 2],
                                "ec." + eng + ".encode." + tag, gbps[i]));
                    }
                }
            }
            for (RsEngine e : engines) {
                double ns = ctxNanosPerTask(e, quick);
                System.err.printf(Locale.ROOT, "  %-6s ctx create 2+1.4k   %7.1f ns/task%n", e.name(), ns);
                out.add(BenchResult.plain("ec." + e.name() + ".ctx.create.2+1.4k.ns_per_task", "ns", ns));
            }
        }
        return out;
    }

    private static BenchResult result(String name, double v, String baseName, double base) {
        return Double.isNaN(base) ? BenchResult.plain(name, "GB/s", v) : BenchResult.of(name, "GB/s", v, baseName,
                base);
    }

    static String sizeName(int len) {
        return len >= 1 << 20 ? (len >> 20) + "m" : (len >> 10) + "k";
    }

    /** Medians (GB/s) of each op over {@code reps} rounds; each round runs every op for {@code runNanos}. */
    static double[] interleaved(List<Runnable> ops, long bytesPerOp, long runNanos, int reps) {
        for (Runnable op : ops) {
            warmUp(op);
        }
        double[][] r = new double[ops.size()][reps];
        for (int rep = 0; rep < reps; rep++) {
            for (int i = 0; i < ops.size(); i++) {
                r[i][rep] = timed(ops.get(i), runNanos) * bytesPerOp / 1e9;
            }
        }
        double[] med = new double[ops.size()];
        for (int i = 0; i < ops.size(); i++) {
            Arrays.sort(r[i]);
            med[i] = r[i][reps / 2];
        }
        return med;
    }

    /** One coding pass of {@code t} over blocks laid out back to back in {@code data}, into {@code out}. */
    static Runnable op(RsEngine e, RsTables t, int len, MemorySegment data, MemorySegment out) {
        int k = t.k();
        int rows = t.rows();
        MemorySegment[] src = new MemorySegment[k];
        long[] so = new long[k];
        MemorySegment[] dst = new MemorySegment[rows];
        long[] dof = new long[rows];
        for (int j = 0; j < k; j++) {
            src[j] = data;
            so[j] = (long) j * len;
        }
        for (int r = 0; r < rows; r++) {
            dst[r] = out;
            dof[r] = (long) r * len;
        }
        return () -> e.encode(len, t, src, so, dst, dof);
    }

    static double medianGbps(Runnable op, long bytesPerOp, long runNanos, int reps) {
        warmUp(op);
        double[] r = new double[reps];
        for (int i = 0; i < reps; i++) {
            r[i] = timed(op, runNanos) * bytesPerOp / 1e9;
        }
        Arrays.sort(r);
        return r[reps / 2];
    }

    /** Ops per second over about {@code runNanos}. */
    static double timed(Runnable op, long runNanos) {
        long ops = 0;
        long batch = 16;
        long t0 = System.nanoTime();
        long t;
        do {
            for (long i = 0; i < batch; i++) {
                op.run();
            }
            ops += batch;
            t = System.nanoTime();
            if (batch < 1 << 16) {
                batch <<= 1;
            }
        } while (t - t0 < runNanos);
        return ops * 1e9 / (t - t0);
    }

    /** ns per create task (alloc, submit, progress, callback, free) through the Ec context, 2+1 at 4 KiB. */
    static double ctxNanosPerTask(RsEngine engine, boolean quick) {
        Dev dev = Devices.open("sw0");
        try (Arena arena = Arena.ofConfined(); ProgressEngine pe = ProgressEngine.create()) {
            MemorySegment mem = arena.allocate(1 << 16, 64);
            MemoryMap mmap = MemoryMap.create();
            mmap.setMemrange(mem);
            mmap.addDev(dev);
            mmap.setPermissions(AccessFlags.LOCAL_READ_WRITE);
            mmap.start();
            BufInventory inv = BufInventory.create(8);
            inv.start();
            Ec ec = Ec.create(dev, engine);
            long[] done = new long[1];
            ec.taskCreateSetConf((t, ud, cud) -> done[0]++, (t, ud, cud) -> done[0]++, 4);
            pe.connectCtx(ec);
            ec.start();
            EcMatrix mx = ec.matrixCreate(EcMatrixType.VANDERMONDE, 2, 1);
            Buf src = inv.getByData(mmap, mmap.baseAddress(), 4096);
            Buf dst = inv.getByAddr(mmap, mmap.baseAddress() + 8192, 2048);
            Runnable op = () -> {
                dst.resetDataLen();
                EcTaskCreate t = ec.taskCreateAllocInit(mx, src, dst, 0);
                t.submit();
                pe.progress();
                t.free();
            };
            double perSec = medianGbps(op, 1_000_000_000L, quick ? 60_000_000L : 300_000_000L, 3);
            ec.stop();
            src.decRefcount();
            dst.decRefcount();
            mmap.stop();
            if (ec.state() != io.jdoca.core.exec.CtxState.IDLE) {
                throw new IllegalStateException("ec did not stop");
            }
            return 1e9 / perSec;
        }
    }

    /** ISA-L's {@code ec_encode_data} bound directly (critical downcall), fed the same g_tbls. */
    static final class IsalBaseline {
        private final MethodHandle encode;

        private IsalBaseline(MethodHandle encode) {
            this.encode = encode;
        }

        @SuppressWarnings("restricted") // FFM: the baseline binds ISA-L itself
        static IsalBaseline load() {
            try {
                SymbolLookup l = SymbolLookup.libraryLookup("libisal.so.2", Arena.global());
                ValueLayout.OfInt i = ValueLayout.JAVA_INT;
                ValueLayout a = ValueLayout.ADDRESS;
                return new IsalBaseline(Linker.nativeLinker().downcallHandle(l.findOrThrow("ec_encode_data"),
                        FunctionDescriptor.ofVoid(i, i, i, a, a, a), Linker.Option.critical(false)));
            } catch (Throwable t) {
                return null;
            }
        }

        Runnable op(RsTables t, int len, MemorySegment data, MemorySegment out) {
            int k = t.k();
            int rows = t.rows();
            Arena arena = Arena.ofAuto();
            MemorySegment g = arena.allocate(32L * k * rows, 64);
            byte[] tb = t.isalTables();
            MemorySegment.copy(tb, 0, g, ValueLayout.JAVA_BYTE, 0, tb.length);
            MemorySegment sp = arena.allocate(8L * k);
            MemorySegment dp = arena.allocate(8L * rows);
            for (int j = 0; j < k; j++) {
                sp.setAtIndex(ValueLayout.JAVA_LONG, j, data.address() + (long) j * len);
            }
            for (int r = 0; r < rows; r++) {
                dp.setAtIndex(ValueLayout.JAVA_LONG, r, out.address() + (long) r * len);
            }
            return () -> {
                try {
                    encode.invokeExact(len, k, rows, g, sp, dp);
                } catch (Throwable x) {
                    throw new IllegalStateException(x);
                }
            };
        }
    }

    /**
     * Runs {@code op} for at least 2 s and then until its rate is stable (two consecutive 100 ms
     * windows within 10 %, at most 10 s in all): the Vector API kernels are only fast once C2 has
     * compiled them, which takes seconds on a busy 2-core machine, and an interpreted kernel is
     * also "stable".
     */
    static void warmUp(Runnable op) {
        long t0 = System.nanoTime();
        double prev = timed(op, 100_000_000L);
        while (System.nanoTime() - t0 < 10_000_000_000L) {
            double cur = timed(op, 100_000_000L);
            if (System.nanoTime() - t0 > 2_000_000_000L && cur > 0.9 * prev && cur < 1.1 * prev) {
                return;
            }
            prev = cur;
        }
    }
}
