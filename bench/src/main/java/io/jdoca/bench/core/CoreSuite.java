package io.jdoca.bench.core;

import io.jdoca.bench.BenchResult;
import io.jdoca.bench.BenchSuite;
import io.jdoca.bench.Measure;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.dma.Dma;
import io.jdoca.dma.DmaTaskMemcpy;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./jdoca bench core}: the cost of the task machinery and the DMA engine against a plain
 * {@code MemorySegment.copy} in the same run.
 * <ul>
 *   <li>{@code core.task_cycle.ns_per_op}: alloc → submit → progress → callback → free of a 64-byte DMA memcpy</li>
 * <li>{@code core.task_cycle.alloc_bytes_per_op}: bytes the thread allocated per cycle over ≥ 1M cycles after warm-up
 * (must be 0)</li>
 *   <li>{@code core.dma_memcpy_64k.gbps}: 64 KiB DMA tasks, baseline {@code MemorySegment.copy} of 64 KiB</li>
 * </ul>
 */
public final class CoreSuite implements BenchSuite {
    private long completions;

    @Override
    public String description() {
        return "task cycle cost and allocation, DMA memcpy bandwidth vs MemorySegment.copy";
    }

    @Override
    public List<BenchResult> run(boolean quick) {
        List<BenchResult> out = new ArrayList<>();
        long window = quick ? 300_000_000L : 2_000_000_000L;
        int runs = quick ? 1 : 5;
        Dev dev = Devices.open("sw0");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment srcSeg = arena.allocate(1 << 20, 4096);
            MemorySegment dstSeg = arena.allocate(1 << 20, 4096);
            for (long i = 0; i < srcSeg.byteSize(); i++) {
                srcSeg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            MemoryMap src = map(srcSeg, dev);
            MemoryMap dst = map(dstSeg, dev);
            BufInventory inv = BufInventory.create(8);
            inv.start();
            ProgressEngine pe = ProgressEngine.create();
            Dma dma = Dma.create(dev);
            dma.taskMemcpySetConf((t, a, b) -> completions++, (t, a, b) -> completions -= 1 << 40, 16);
            pe.connectCtx(dma);
            check(dma.start());

            // --- task cycle, 64 bytes
            Buf s64 = inv.getByData(src, src.baseAddress(), 64);
            Buf d64 = inv.getByAddr(dst, dst.baseAddress(), 64);
            Measure.Op cycle = i -> {
                d64.resetDataLen();
                DmaTaskMemcpy t = dma.taskMemcpyAllocInit(s64, d64, i);
                t.submit();
                pe.progress();
                t.free();
            };
            Measure.progress("task cycle: warm-up");
            for (long i = 0; i < 500_000; i++) {
                cycle.run(i);
            }
            long cycles = quick ? 1_000_000 : 5_000_000;
            Measure.allocatedBytes();
            long a0 = Measure.allocatedBytes();
            long t0 = System.nanoTime();
            for (long i = 0; i < cycles; i++) {
                cycle.run(i);
            }
            long ns = System.nanoTime() - t0;
            long allocated = Measure.allocatedBytes() - a0;
            double nsPerOp = (double) ns / cycles;
            Measure.progress(String.format("task cycle: %.1f ns/op, %d bytes allocated over %d cycles", nsPerOp,
                    allocated, cycles));
            double copy64 = Measure.medianOpsPerSecond(runs, window / 2, 1024,
                    i -> MemorySegment.copy(srcSeg, 0, dstSeg, 0, 64));
            out.add(BenchResult.of("core.task_cycle.ns_per_op", "ns", nsPerOp, "MemorySegment.copy 64B ns",
                    1e9 / copy64));
            out.add(BenchResult.plain("core.task_cycle.alloc_bytes_per_op", "bytes", (double) allocated / cycles));
            out.add(BenchResult.plain("core.task_cycle.cycles_measured", "count", cycles));

            // --- 64 KiB bandwidth
            int size = 64 * 1024;
            Buf s64k = inv.getByData(src, src.baseAddress(), size);
            Buf d64k = inv.getByAddr(dst, dst.baseAddress(), size);
            Measure.Op dmaOp = i -> {
                d64k.resetDataLen();
                DmaTaskMemcpy t = dma.taskMemcpyAllocInit(s64k, d64k, i);
                t.submit();
                pe.progress();
                t.free();
            };
            Measure.Op copyOp = i -> MemorySegment.copy(srcSeg, 0, dstSeg, 0, size);
            Measure.progress("64 KiB: warm-up");
            Measure.opsPerSecond(window / 4, 64, dmaOp);
            Measure.opsPerSecond(window / 4, 64, copyOp);
            // Interleave the two so drift affects both alike.
            double[] dmaR = new double[runs];
            double[] cpyR = new double[runs];
            for (int r = 0; r < runs; r++) {
                cpyR[r] = Measure.opsPerSecond(window / 2, 64, copyOp);
                dmaR[r] = Measure.opsPerSecond(window / 2, 64, dmaOp);
            }
            java.util.Arrays.sort(dmaR);
            java.util.Arrays.sort(cpyR);
            double dmaGbps = dmaR[runs / 2] * size / 1e9;
            double cpyGbps = cpyR[runs / 2] * size / 1e9;
            Measure.progress(String.format("64 KiB: DMA %.2f GB/s, memcpy %.2f GB/s", dmaGbps, cpyGbps));
            out.add(BenchResult.of("core.dma_memcpy_64k.gbps", "GB/s", dmaGbps, "MemorySegment.copy 64KiB", cpyGbps));

            s64.decRefcount();
            d64.decRefcount();
            s64k.decRefcount();
            d64k.decRefcount();
            dma.stop();
            if (completions < 0) {
                throw new IllegalStateException("a DMA task failed during the benchmark");
            }
        }
        return out;
    }

    private static MemoryMap map(MemorySegment seg, Dev dev) {
        MemoryMap m = MemoryMap.create();
        check(m.setMemrange(seg));
        check(m.addDev(dev));
        check(m.setPermissions(AccessFlags.LOCAL_READ_WRITE));
        check(m.start());
        return m;
    }

    private static void check(DocaError e) {
        if (e != DocaError.SUCCESS) {
            throw new io.jdoca.core.DocaException(e, "bench set-up");
        }
    }
}
