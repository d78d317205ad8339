package io.jdoca.cli;

import io.jdoca.argp.HelpVersionFlags;
import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.dma.Dma;
import io.jdoca.dma.DmaTaskMemcpy;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca dma-copy}: the DMA sample. A "host" region in shared memory is exported for PCI,
 * imported as the DPU would, and copied into DPU-local memory by DMA tasks through a progress
 * engine (the DOCA DMA-copy flow); the data is verified and the rate printed.
 */
@Command(name = "dma-copy",
        description = "DMA sample: export host memory (PCI), import it, copy it with DMA tasks through a progress "
                + "engine, verify.")
public final class DmaCopyCommand implements Callable<Integer> {
    /** -h/--help and -v/--version (the one version line of every app). */
    @Mixin
    HelpVersionFlags helpVersion;

    @Option(names = {"-d", "--device"}, defaultValue = "sw0", description = "device (default: ${DEFAULT-VALUE})")
    String device;

    @Option(names = "--size", defaultValue = "64M",
            description = "bytes to copy (K/M/G suffixes; default: ${DEFAULT-VALUE})")
    String size;

    @Option(names = "--chunk", defaultValue = "64K", description = "bytes per DMA task (default: ${DEFAULT-VALUE})")
    String chunk;

    @Option(names = "--tasks", defaultValue = "32", description = "tasks in flight (default: ${DEFAULT-VALUE})")
    int tasks;

    @Option(names = {"-l", "--log-level"}, defaultValue = "50",
            description = "DOCA log level 10..70 (default: ${DEFAULT-VALUE})")
    int logLevel;

    @Override
    public Integer call() {
        DocaLogLevel.apply(logLevel);
        return run(System.out, parseSize(size), parseSize(chunk), tasks, device);
    }

    static long parseSize(String s) {
        String t = s.trim().toUpperCase(Locale.ROOT);
        long mul = 1;
        if (t.endsWith("K")) {
            mul = 1 << 10;
        } else if (t.endsWith("M")) {
            mul = 1 << 20;
        } else if (t.endsWith("G")) {
            mul = 1L << 30;
        }
        if (mul > 1) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = Long.parseLong(t) * mul;
            if (v <= 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new DocaException(DocaError.INVALID_VALUE, "not a size: '" + s + "' (use e.g. 4096, 64K, 16M, 1G)");
        }
    }

    /** Runs the copy; returns 0 when the copied bytes verify. */
    public static int run(PrintStream out, long total, long chunk, int inflight, String device) {
        if (chunk > total || total % chunk != 0) {
            throw new DocaException(DocaError.INVALID_VALUE, "--size must be a multiple of --chunk");
        }
        Dev dev = Devices.open(device);
        try (SharedRegion host = SharedMemory.allocate(total); SharedRegion dpuMem = SharedMemory.allocate(total)) {
            MemorySegment h = host.segment();
            for (long i = 0; i < total; i += 8) {
                h.set(ValueLayout.JAVA_LONG_UNALIGNED, i, i * 0x9E3779B97F4A7C15L);
            }
            // Touch the destination first: the rate should measure copying, not first-touch page faults.
            dpuMem.segment().fill((byte) 0);
            MemoryMap hostMap = MemoryMap.create();
            DocaException.check(hostMap.setMemrange(h), "host memrange");
            DocaException.check(hostMap.addDev(dev), "host add dev");
            DocaException.check(hostMap.setPermissions(AccessFlags.PCI_READ_ONLY), "host permissions");
            DocaException.check(hostMap.start(), "host mmap start");
            byte[] blob = hostMap.exportPci(dev);
            out.printf("host: exported %d bytes for PCI (%d-byte descriptor)%n", total, blob.length);

            MemoryMap remote = MemoryMap.createFromExport(blob, dev);
            MemoryMap local = MemoryMap.create();
            DocaException.check(local.setMemrange(dpuMem.segment()), "local memrange");
            DocaException.check(local.addDev(dev), "local add dev");
            DocaException.check(local.setPermissions(AccessFlags.LOCAL_READ_WRITE), "local permissions");
            DocaException.check(local.start(), "local mmap start");

            int n = (int) Math.min(inflight, total / chunk);
            BufInventory inv = BufInventory.create(2 * n);
            inv.start();
            ProgressEngine pe = ProgressEngine.create();
            Dma dma = Dma.create(dev);
            long[] next = {0};
            long[] done = {0};
            DocaError[] firstError = {null};
            dma.taskMemcpySetConf((t, ud, cud) -> {
                done[0] += t.dst().dataLen();
                rearm(t, inv, remote, local, next, total, chunk);
            }, (t, ud, cud) -> {
                if (firstError[0] == null) {
                    firstError[0] = t.status();
                }
                t.src().decRefcount();
                t.dst().decRefcount();
                t.free();
            }, n);
            DocaException.check(pe.connectCtx(dma), "connect DMA context");
            DocaException.check(dma.start(), "start DMA context");
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                DmaTaskMemcpy t = dma.taskMemcpyAllocInit(null, null, i);
                t.setSrc(inv.getByData(remote, remote.baseAddress(), chunk));
                t.setDst(inv.getByAddr(local, local.baseAddress(), chunk));
                rearmBufs(t, inv, remote, local, next[0], chunk);
                next[0] += chunk;
                DocaException.check(t.submit(), "submit");
            }
            boolean ok = pe.progressUntil(() -> done[0] >= total || firstError[0] != null, IdleStrategy.backoff(),
                    60_000_000_000L);
            long ns = System.nanoTime() - t0;
            if (firstError[0] != null) {
                out.println("dma-copy: a task failed: " + firstError[0].docaName());
                return 1;
            }
            if (!ok) {
                out.println("dma-copy: timed out");
                return 1;
            }
            long mismatch = h.mismatch(dpuMem.segment());
            out.printf(Locale.ROOT, "dma: copied %d bytes in %d-byte tasks (%d in flight) in %.3f ms: %.2f GB/s; "
                    + "verify %s%n",
                    total, chunk, n, ns / 1e6, total / (double) ns, mismatch == -1 ? "OK" : "FAILED at byte "
                            + mismatch);
            pe.progressUntil(() -> dma.numInflightTasks() == 0, IdleStrategy.backoff(), 1_000_000_000L);
            dma.stop();
            local.close();
            remote.close();
            hostMap.close();
            return mismatch == -1 ? 0 : 1;
        }
    }

    private static void rearm(DmaTaskMemcpy t, BufInventory inv, MemoryMap remote, MemoryMap local, long[] next,
            long total,
            long chunk) {
        if (next[0] >= total) {
            t.src().decRefcount();
            t.dst().decRefcount();
            t.free();
            return;
        }
        rearmBufs(t, inv, remote, local, next[0], chunk);
        next[0] += chunk;
        t.submit();
    }

    private static void rearmBufs(DmaTaskMemcpy t, BufInventory inv, MemoryMap remote, MemoryMap local, long off,
            long chunk) {
        inv.reuseByData(t.src(), remote.baseAddress() + off, chunk);
        inv.reuseByAddr(t.dst(), local.baseAddress() + off, chunk);
    }
}
