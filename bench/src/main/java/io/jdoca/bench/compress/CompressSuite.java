package io.jdoca.bench.compress;

import io.jdoca.bench.BenchResult;
import io.jdoca.bench.BenchSuite;
import io.jdoca.compress.DeflateCodec;
import io.jdoca.compress.Lz4Codec;
import io.jdoca.compress.Lz4StreamCodec;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ./jdoca bench compress}: LZ4 compress and decompress MB/s (per uncompressed byte, one
 * thread) and ratio, on 1 MiB of text-like and of random data cut into independent 4 KiB and
 * 64 KiB blocks, for every LZ4 engine (system liblz4 through jdoca's FFM binding, aircompressor-v3
 * native and pure Java, lz4-java JNI and pure Java, jdoca's pure Java), against the {@code lz4}
 * CLI's own benchmark ({@code lz4 -b1 -B<size>}) on the same bytes in the same run (mean of a run
 * before and a run after the Java engines of that size). Also the GGA
 * container path (LZ4 stream of a 4 KiB block) and deflate.
 */
public final class CompressSuite implements BenchSuite {
    private static final int TOTAL = 1 << 20;
    private static final int[] BLOCKS = {4096, 65536};
    private static final String[] KINDS = {"text", "random"};

    @Override
    public String description() {
        return "LZ4 MB/s per engine (liblz4 FFM, aircompressor-v3, lz4-java, pure Java) vs the lz4 CLI's -b1 figures";
    }

    @Override
    public List<BenchResult> run(boolean quick) throws Exception {
        List<BenchResult> out = new ArrayList<>();
        long runNanos = quick ? 100_000_000L : 400_000_000L;
        int reps = quick ? 3 : 5;
        Map<String, Supplier<Lz4Codec>> engines = new LinkedHashMap<>();
        if (Lz4Codec.isLiblz4Available()) {
            engines.put("liblz4-ffm", Lz4Codec::liblz4);
        }
        if (Lz4Codec.isNativeAvailable()) {
            engines.put("aircompressor-native", Lz4Codec::aircompressorNative);
        }
        engines.put("aircompressor-java", Lz4Codec::aircompressorJava);
        try {
            Lz4Codec.lz4JavaJni();
            engines.put("lz4-java-jni", Lz4Codec::lz4JavaJni);
        } catch (Throwable t) {
            System.err.println("bench compress: lz4-java JNI unavailable: " + t);
        }
        engines.put("lz4-java-safe", Lz4Codec::lz4JavaSafe);
        engines.put("jdoca-java", Lz4Codec::javaSafe);
        Path dir = Files.createTempDirectory("jdoca-bench-compress");
        try (Arena arena = Arena.ofConfined()) {
            for (String kind : KINDS) {
                byte[] data = data(kind);
                MemorySegment src = arena.allocate(TOTAL, 64);
                MemorySegment.copy(data, 0, src, ValueLayout.JAVA_BYTE, 0, TOTAL);
                Path file = dir.resolve(kind + ".bin");
                Files.write(file, data);
                for (int bs : BLOCKS) {
                    String tag = kind + "." + (bs >> 10) + "k";
                    // The CLI runs as its own process; running it before and after the Java engines
                    // and averaging spreads the load drift of a shared machine over both sides.
                    double[] cliBefore = cliBench(file, bs, quick);
                    Map<String, double[]> measured = new LinkedHashMap<>();
                    for (Map.Entry<String, Supplier<Lz4Codec>> e : engines.entrySet()) {
                        measured.put(e.getKey(), measure(e.getValue().get(), src, bs, arena, runNanos, reps));
                    }
                    double[] cliAfter = cliBench(file, bs, quick);
                    double[] cli = cliBefore == null || cliAfter == null ? null
                            : new double[] {(cliBefore[0] + cliAfter[0]) / 2, (cliBefore[1] + cliAfter[1]) / 2,
                                    cliBefore[2]};
                    if (cli != null) {
                        out.add(BenchResult.plain("compress.lz4-cli.compress." + tag + ".mbps", "MB/s", cli[0]));
                        out.add(BenchResult.plain("compress.lz4-cli.decompress." + tag + ".mbps", "MB/s", cli[1]));
                        out.add(BenchResult.plain("compress.lz4-cli.ratio." + tag, "x", cli[2]));
                        System.err.printf(Locale.ROOT,
                                "  lz4 CLI -b1     %-11s compress %8.1f MB/s  decompress %8.1f MB/s  ratio %.3f%n", tag,
                                cli[0], cli[1], cli[2]);
                    }
                    for (Map.Entry<String, double[]> e : measured.entrySet()) {
                        double[] r = e.getValue();
                        String n = "compress." + e.getKey();
                        System.err.printf(Locale.ROOT,
                                "  %-22s %-11s compress %8.1f MB/s  decompress %8.1f MB/s  ratio %.3f%n", e.getKey(),
                                tag, r[0], r[1], r[2]);
                        out.add(cli == null ? BenchResult.plain(n + ".compress." + tag + ".mbps", "MB/s", r[0])
                                : BenchResult.of(n + ".compress." + tag + ".mbps", "MB/s", r[0],
                                        "compress.lz4-cli.compress." + tag, cli[0]));
                        out.add(cli == null ? BenchResult.plain(n + ".decompress." + tag + ".mbps", "MB/s", r[1])
                                : BenchResult.of(n + ".decompress." + tag + ".mbps", "MB/s", r[1],
                                        "compress.lz4-cli.decompress." + tag, cli[1]));
                        out.add(BenchResult.plain(n + ".ratio." + tag, "x", r[2]));
                    }
                }
            }
            out.addAll(ggaPath(arena, runNanos, reps));
        } finally {
            try (var s = Files.list(dir)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
        return out;
    }

    /** The GGA container path per 4 KiB block: LZ4 stream compress and decompress, and deflate for comparison. */
    private static List<BenchResult> ggaPath(Arena arena, long runNanos, int reps) {
        List<BenchResult> out = new ArrayList<>();
        byte[] block = Arrays.copyOf(data("text"), 4096);
        MemorySegment src = arena.allocate(4096, 64);
        MemorySegment.copy(block, 0, src, ValueLayout.JAVA_BYTE, 0, 4096);
        MemorySegment comp = arena.allocate(8192, 64);
        MemorySegment back = arena.allocate(4096, 64);
        Lz4StreamCodec s = new Lz4StreamCodec(Lz4Codec.create());
        int cl = s.compress(src, 0, 4096, comp, 0, 8192);
        double c = 1e9 / opsPerSec(() -> s.compress(src, 0, 4096, comp, 0, 8192), runNanos, reps);
        double d = 1e9 / opsPerSec(() -> s.decompress(false, true, comp, 0, cl, back, 0, 4096), runNanos, reps);
        System.err.printf(Locale.ROOT, "  GGA lz4 stream (%s) 4k text: compress %.2f us, decompress %.2f us%n",
                s.codec().name(), c / 1000, d / 1000);
        out.add(BenchResult.plain("compress.gga.lz4stream.compress.text.4k.us", "us", c / 1000));
        out.add(BenchResult.plain("compress.gga.lz4stream.decompress.text.4k.us", "us", d / 1000));
        try (DeflateCodec z = new DeflateCodec(1)) {
            int zl = z.compress(src, 0, 4096, comp, 0, 8192);
            double zc = 1e9 / opsPerSec(() -> z.compress(src, 0, 4096, comp, 0, 8192), runNanos, reps);
            double zd = 1e9 / opsPerSec(() -> z.decompress(comp, 0, zl, back, 0, 4096), runNanos, reps);
            out.add(BenchResult.plain("compress.deflate1.compress.text.4k.us", "us", zc / 1000));
            out.add(BenchResult.plain("compress.deflate1.decompress.text.4k.us", "us", zd / 1000));
            out.add(BenchResult.plain("compress.deflate1.ratio.text.4k", "x", 4096.0 / zl));
            System.err.printf(Locale.ROOT,
                    "  deflate level 1 4k text: compress %.2f us, decompress %.2f us, ratio %.3f%n", zc / 1000,
                            zd / 1000,
                    4096.0 / zl);
        }
        return out;
    }

    /** {compress MB/s, decompress MB/s, ratio} over the 1 MiB input cut into {@code bs}-byte blocks. */
    private static double[] measure(Lz4Codec codec, MemorySegment src, int bs, Arena arena, long runNanos, int reps) {
        int blocks = TOTAL / bs;
        int bound = Lz4Codec.maxCompressedLength(bs);
        MemorySegment comp = arena.allocate((long) blocks * bound, 64);
        MemorySegment back = arena.allocate(TOTAL, 64);
        int[] sizes = new int[blocks];
        long total = 0;
        for (int i = 0; i < blocks; i++) {
            sizes[i] = codec.compress(src, (long) i * bs, bs, comp, (long) i * bound, bound);
            total += sizes[i];
        }
        for (int i = 0; i < blocks; i++) {
            int n = codec.decompress(comp, (long) i * bound, sizes[i], back, (long) i * bs, bs);
            if (n != bs) {
                throw new IllegalStateException(codec.name() + ": round trip failed on block " + i);
            }
        }
        if (!Arrays.equals(src.toArray(ValueLayout.JAVA_BYTE), back.toArray(ValueLayout.JAVA_BYTE))) {
            throw new IllegalStateException(codec.name() + ": round trip mismatch");
        }
        Runnable c = () -> {
            for (int i = 0; i < blocks; i++) {
                codec.compress(src, (long) i * bs, bs, comp, (long) i * bound, bound);
            }
        };
        Runnable d = () -> {
            for (int i = 0; i < blocks; i++) {
                codec.decompress(comp, (long) i * bound, sizes[i], back, (long) i * bs, bs);
            }
        };
        double cm = opsPerSec(c, runNanos, reps) * TOTAL / 1e6;
        double dm = opsPerSec(d, runNanos, reps) * TOTAL / 1e6;
        return new double[] {cm, dm, (double) TOTAL / total};
    }

    /** Median ops/s over {@code reps} runs of about {@code runNanos}, after a warm-up run of the same length. */
    static double opsPerSec(Runnable op, long runNanos, int reps) {
        warmUp(op);
        double[] r = new double[reps];
        for (int i = 0; i < reps; i++) {
            r[i] = timed(op, runNanos);
        }
        Arrays.sort(r);
        return r[reps / 2];
    }

    private static double timed(Runnable op, long runNanos) {
        long ops = 0;
        long t0 = System.nanoTime();
        long t;
        do {
            op.run();
            ops++;
            t = System.nanoTime();
        } while (t - t0 < runNanos);
        return ops * 1e9 / (t - t0);
    }

    private static final Pattern CLI = Pattern.compile("->\\s*(\\d+)\\s*\\(\\s*([\\d.]+)\\s*\\)\\s*,"
            + "\\s*([\\d.]+)\\s*MB/s\\s*,\\s*([\\d.]+)\\s*MB/s");

    /** {compress, decompress, ratio} from {@code lz4 -b1 -B<bs>}, or null when the CLI is absent. */
    private static double[] cliBench(Path file, int bs, boolean quick) {
        try {
            Process p = new ProcessBuilder("lz4", "-b1", "-i" + (quick ? 1 : 3), "-B" + bs, file.toString())
                    .redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                return null;
            }
            Matcher m = CLI.matcher(text);
            double[] last = null;
            while (m.find()) {
                last = new double[] {Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)),
                        Double.parseDouble(m.group(2))};
            }
            return last;
        } catch (IOException | InterruptedException e) {
            System.err.println("bench compress: lz4 CLI not usable (" + e.getMessage()
                    + "); scripts/ensure-packages.sh lz4");
            return null;
        }
    }

    private static final String[] WORDS = ("the quick brown fox jumps over lazy dog storage block target initiator "
            + "offload erasure coding parity recover compress decompress stream frame header checksum data path "
            + "engine progress context task buffer memory map inventory").split(" ");

    /** 1 MiB of text-like (words, numbers, line breaks) or random bytes, seeded. */
    static byte[] data(String kind) {
        Random r = new Random(42);
        if (kind.equals("random")) {
            byte[] b = new byte[TOTAL];
            r.nextBytes(b);
            return b;
        }
        StringBuilder sb = new StringBuilder(TOTAL + 64);
        while (sb.length() < TOTAL) {
            sb.append(WORDS[r.nextInt(WORDS.length)]).append(r.nextInt(10) == 0 ? ".\n" : " ");
            if (r.nextInt(20) == 0) {
                sb.append(r.nextInt(100000));
            }
        }
        return Arrays.copyOf(sb.toString().getBytes(StandardCharsets.US_ASCII), TOTAL);
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
