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
            System.err.println("bench ec: libisal.so.2 not found (scripts/ensure-packages.sh libisal2): native figures and the ISA-L baseline are skipped");
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
                for (int len : SIZES) {
                    MemorySegment data = arena.allocate((long) (k + m) * len, 64);
                    byte[] rnd = new byte[(int) Math.min(data.byteSize(), 1 << 20)];
                    new Random(k * 131 + len).nextBytes(rnd);
                    for (long o = 0; o < data.byteSize(); o += rnd.length) {
                        MemorySegment.copy(rnd, 0, data, ValueLayout.JAVA_BYTE, o, (int) Math.min(rnd.length, data.byteSize() - o));
                    }
                    MemorySegment parity = arena.allocate((long) m * len, 64);
                    String tag = k + "+" + m + "." + sizeName(len);
                    double base = Double.NaN;
                    if (isal != null) {
                        base = isal.gbps(mx.tables(), len, data, parity, runNanos, reps);
                        out.add(BenchResult.plain("ec.isal.encode." + tag + ".gbps", "GB/s", base));
                        System.err.printf(Locale.ROOT, "  isal   encode %-10s %7.2f GB/s%n", tag, base);
                    }
                    for (RsEngine e : engines) {
                        double enc = gbps(e, mx.tables(), len, data, parity, runNanos, reps);
                        double recv = gbps(e, rec.tables(), len, data, parity, runNanos, reps);
                        System.err.printf(Locale.ROOT, "  %-6s encode %-10s %7.2f GB/s   recover %7.2f GB/s%n", e.name(), tag, enc, recv);
                        out.add(result("ec." + e.name() + ".encode." + tag + ".gbps", enc, "ec.isal.encode." + tag, base));
                        out.add(BenchResult.of("ec." + e.name() + ".recover." + tag + ".gbps", "GB/s", recv,
                                "ec." + e.name() + ".encode." + tag, enc));
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
        return Double.isNaN(base) ? BenchResult.plain(name, "GB/s", v) : BenchResult.of(name, "GB/s", v, baseName, base);
    }

    static String sizeName(int len) {
        return len >= 1 << 20 ? (len >> 20) + "m" : (len >> 10) + "k";
    }

    /** Median GB/s over {@code reps} timed runs of {@code runNanos}, after one warm-up run. */
    static double gbps(RsEngine e, RsTables t, int len, MemorySegment data, MemorySegment out, long runNanos, int reps) {
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
        Runnable op = () -> e.encode(len, t, src, so, dst, dof);
        return medianGbps(op, (long) k * len, runNanos, reps);
    }

    static double medianGbps(Runnable op, long bytesPerOp, long runNanos, int reps) {
        timed(op, runNanos); // warm-up (JIT)
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

        double gbps(RsTables t, int len, MemorySegment data, MemorySegment out, long runNanos, int reps) {
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
            Runnable op = () -> {
                try {
                    encode.invokeExact(len, k, rows, g, sp, dp);
                } catch (Throwable x) {
                    throw new IllegalStateException(x);
                }
            };
            return medianGbps(op, (long) k * len, runNanos, reps);
        }
    }
}
