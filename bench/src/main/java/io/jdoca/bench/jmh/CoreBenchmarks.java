package io.jdoca.bench.jmh;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.BufPool;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.dma.Dma;
import io.jdoca.dma.DmaTaskMemcpy;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH micro-benchmarks of the Core hot paths: a task cycle (alloc → submit → progress → callback →
 * free), buffer get/return from an inventory and a pool, and an empty progress call. Run with
 * {@code ./jdoca bench jmh [JMH options, e.g. CoreBenchmarks -prof gc]}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-XX:+UseSerialGC"})
public class CoreBenchmarks {
    private Arena arena;
    private ProgressEngine pe;
    private ProgressEngine idlePe;
    private Dma dma;
    private Buf src;
    private Buf dst;
    private BufInventory inv;
    private BufPool pool;
    private MemoryMap map;
    private long completions;

    @Setup(Level.Trial)
    public void setUp() {
        Dev dev = Devices.open("sw0");
        arena = Arena.ofShared();
        MemorySegment seg = arena.allocate(1 << 20, 4096);
        map = MemoryMap.create();
        map.setMemrange(seg);
        map.addDev(dev);
        map.setPermissions(AccessFlags.LOCAL_READ_WRITE);
        map.start();
        inv = BufInventory.create(16);
        inv.start();
        src = inv.getByData(map, map.baseAddress(), 64);
        dst = inv.getByAddr(map, map.baseAddress() + 4096, 64);
        pool = BufPool.create(64, 4096, map);
        pool.start();
        pe = ProgressEngine.create();
        dma = Dma.create(dev);
        dma.taskMemcpySetConf((t, a, b) -> completions++, (t, a, b) -> completions--, 16);
        pe.connectCtx(dma);
        dma.start();
        idlePe = ProgressEngine.create();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        dma.stop();
        arena.close();
    }

    @Benchmark
    public long dmaTaskCycle64B() {
        dst.resetDataLen();
        DmaTaskMemcpy t = dma.taskMemcpyAllocInit(src, dst, 0);
        t.submit();
        pe.progress();
        t.free();
        return completions;
    }

    @Benchmark
    public int inventoryGetAndReturn() {
        Buf b = inv.getByAddr(map, map.baseAddress() + 8192, 512);
        return b.decRefcount();
    }

    @Benchmark
    public int poolAllocAndReturn() {
        return pool.alloc().decRefcount();
    }

    @Benchmark
    public boolean emptyProgress() {
        return idlePe.progress();
    }
}
