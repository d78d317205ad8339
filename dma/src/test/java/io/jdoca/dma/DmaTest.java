package io.jdoca.dma;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DmaTest {
    private final Dev dev = Devices.open("sw0");
    private Arena arena;
    private ProgressEngine pe;
    private Dma dma;
    private BufInventory inv;
    private final List<DmaTaskMemcpy> done = new ArrayList<>();
    private final List<DmaTaskMemcpy> failed = new ArrayList<>();

    @BeforeEach
    void setUp() {
        arena = Arena.ofShared();
        pe = ProgressEngine.create();
        dma = Dma.create(dev);
        assertThat(dma.taskMemcpySetConf((t, a, b) -> done.add(t), (t, a, b) -> failed.add(t), 16))
                .isEqualTo(DocaError.SUCCESS);
        pe.connectCtx(dma);
        assertThat(dma.start()).isEqualTo(DocaError.SUCCESS);
        inv = BufInventory.create(32);
        inv.start();
    }

    @AfterEach
    void tearDown() {
        arena.close();
    }

    private MemoryMap map(MemorySegment seg, int perms, Dev d) {
        MemoryMap m = MemoryMap.create();
        m.setMemrange(seg);
        m.addDev(d);
        m.setPermissions(perms);
        assertThat(m.start()).isEqualTo(DocaError.SUCCESS);
        return m;
    }

    private MemorySegment pattern(long n) {
        MemorySegment s = arena.allocate(n, 64);
        for (long i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
        }
        return s;
    }

    private void progress() {
        for (int i = 0; i < 100 && dma.numInflightTasks() > 0; i++) {
            pe.progress();
        }
    }

    @Test
    void copiesLocalToLocalAppendingToTheDestination() {
        MemorySegment srcSeg = pattern(4096);
        MemorySegment dstSeg = arena.allocate(8192, 64);
        MemoryMap src = map(srcSeg, AccessFlags.LOCAL_READ_WRITE, dev);
        MemoryMap dst = map(dstSeg, AccessFlags.LOCAL_READ_WRITE, dev);
        Buf s = inv.getByData(src, src.baseAddress(), 4096);
        Buf d = inv.getByAddr(dst, dst.baseAddress(), 8192);
        d.setDataLen(100); // existing data: the copy goes after it
        DmaTaskMemcpy t = dma.taskMemcpyAllocInit(s, d, 5);
        assertThat(t.submit()).isEqualTo(DocaError.SUCCESS);
        progress();
        assertThat(done).containsExactly(t);
        assertThat(d.dataLen()).isEqualTo(4196);
        assertThat(dstSeg.asSlice(100, 4096).mismatch(srcSeg)).isEqualTo(-1);
    }

    @Test
    void gatherAndScatterLists() {
        MemorySegment srcSeg = pattern(3000);
        MemorySegment dstSeg = arena.allocate(3000, 64);
        MemoryMap src = map(srcSeg, AccessFlags.LOCAL_READ_WRITE, dev);
        MemoryMap dst = map(dstSeg, AccessFlags.LOCAL_READ_WRITE, dev);
        long sb = src.baseAddress();
        long db = dst.baseAddress();
        Buf s1 = inv.getByData(src, sb, 1000);
        s1.chainList(inv.getByData(src, sb + 1000, 1500));
        s1.chainList(inv.getByData(src, sb + 2500, 500));
        Buf d1 = inv.getByAddr(dst, db, 700);
        d1.chainList(inv.getByAddr(dst, db + 700, 2000));
        d1.chainList(inv.getByAddr(dst, db + 2700, 300));
        dma.taskMemcpyAllocInit(s1, d1, 0).submit();
        progress();
        assertThat(done).hasSize(1);
        assertThat(d1.listDataLen()).isEqualTo(3000);
        assertThat(dstSeg.mismatch(srcSeg)).isEqualTo(-1);
    }

    @Test
    void destinationTooSmallIsInvalidValue() {
        MemoryMap src = map(pattern(1024), AccessFlags.LOCAL_READ_WRITE, dev);
        MemoryMap dst = map(arena.allocate(1024), AccessFlags.LOCAL_READ_WRITE, dev);
        Buf s = inv.getByData(src, src.baseAddress(), 1024);
        Buf d = inv.getByAddr(dst, dst.baseAddress(), 1023);
        DmaTaskMemcpy t = dma.taskMemcpyAllocInit(s, d, 0);
        assertThat(t.submit()).isEqualTo(DocaError.INVALID_VALUE);
        // trySubmit skips the check; the engine still refuses, through the error callback, writing nothing.
        assertThat(t.trySubmit()).isEqualTo(DocaError.SUCCESS);
        progress();
        assertThat(failed).containsExactly(t);
        assertThat(t.status()).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(d.dataLen()).isZero();
    }

    @Test
    void writingAReadOnlyMapIsNotPermitted() {
        MemoryMap src = map(pattern(64), AccessFlags.LOCAL_READ_WRITE, dev);
        MemorySegment dstSeg = arena.allocate(64);
        MemoryMap dst = map(dstSeg, AccessFlags.LOCAL_READ_ONLY, dev);
        DmaTaskMemcpy t = dma.taskMemcpyAllocInit(inv.getByData(src, src.baseAddress(), 64),
                inv.getByAddr(dst, dst.baseAddress(), 64), 0);
        assertThat(t.submit()).isEqualTo(DocaError.NOT_PERMITTED);
        t.trySubmit();
        progress();
        assertThat(t.status()).isEqualTo(DocaError.NOT_PERMITTED);
        assertThat(dstSeg.get(ValueLayout.JAVA_LONG, 0)).as("untouched").isZero();
    }

    @Test
    void aMapWithoutThisDeviceIsNotPermitted() {
        MemoryMap src = map(pattern(64), AccessFlags.LOCAL_READ_WRITE, Devices.open("sw1"));
        MemoryMap dst = map(arena.allocate(64), AccessFlags.LOCAL_READ_WRITE, dev);
        DmaTaskMemcpy t = dma.taskMemcpyAllocInit(inv.getByData(src, src.baseAddress(), 64),
                inv.getByAddr(dst, dst.baseAddress(), 64), 0);
        assertThat(t.submit()).isEqualTo(DocaError.NOT_PERMITTED);
    }

    @Test
    void importedPciMapsFollowTheExportersPermissions() {
        try (SharedRegion host = SharedMemory.allocate(8192)) {
            MemorySegment hostSeg = host.segment();
            hostSeg.set(ValueLayout.JAVA_LONG, 0, 0x1122334455667788L);
            // The host exports read-only; the "DPU" imports it and may read but not write.
            MemoryMap hostRo = map(hostSeg.asSlice(0, 4096), AccessFlags.PCI_READ_ONLY, dev);
            MemoryMap imported = MemoryMap.createFromExport(hostRo.exportPci(dev), dev);
            MemorySegment localSeg = arena.allocate(4096);
            MemoryMap local = map(localSeg, AccessFlags.LOCAL_READ_WRITE, dev);
            DmaTaskMemcpy read = dma.taskMemcpyAllocInit(inv.getByData(imported, imported.baseAddress(), 4096),
                    inv.getByAddr(local, local.baseAddress(), 4096), 0);
            assertThat(read.submit()).isEqualTo(DocaError.SUCCESS);
            progress();
            assertThat(localSeg.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(0x1122334455667788L);
            DmaTaskMemcpy write = dma.taskMemcpyAllocInit(inv.getByData(local, local.baseAddress(), 8),
                    inv.getByAddr(imported, imported.baseAddress() + 8, 8), 0);
            assertThat(write.submit()).isEqualTo(DocaError.NOT_PERMITTED);

            // Read-write export: the DPU writes straight into host memory.
            MemoryMap hostRw = map(hostSeg.asSlice(4096, 4096), AccessFlags.PCI_READ_WRITE, dev);
            MemoryMap importedRw = MemoryMap.createFromExport(hostRw.exportPci(dev), dev);
            write.setDst(inv.getByAddr(importedRw, importedRw.baseAddress() + 8, 8));
            assertThat(write.submit()).isEqualTo(DocaError.SUCCESS);
            progress();
            assertThat(hostSeg.get(ValueLayout.JAVA_LONG, 4096 + 8)).isEqualTo(0x1122334455667788L);

            // An RDMA export cannot be reached by DMA.
            MemoryMap rdmaOnly = map(hostSeg.asSlice(0, 1024), AccessFlags.RDMA_READ, dev);
            MemoryMap rdmaImport = MemoryMap.createFromExport(rdmaOnly.exportRdma(dev), dev);
            DmaTaskMemcpy viaRdma = dma.taskMemcpyAllocInit(inv.getByData(rdmaImport, rdmaImport.baseAddress(), 8),
                    inv.getByAddr(local, local.baseAddress(), 8), 0);
            assertThat(viaRdma.submit()).isEqualTo(DocaError.NOT_PERMITTED);
        }
    }

    @Test
    void stopFlushesQueuedCopies() {
        MemoryMap src = map(pattern(64), AccessFlags.LOCAL_READ_WRITE, dev);
        MemoryMap dst = map(arena.allocate(64), AccessFlags.LOCAL_READ_WRITE, dev);
        DmaTaskMemcpy t = dma.taskMemcpyAllocInit(inv.getByData(src, src.baseAddress(), 64),
                inv.getByAddr(dst, dst.baseAddress(), 64), 0);
        t.submit();
        assertThat(dma.stop()).isEqualTo(DocaError.IN_PROGRESS);
        pe.progress();
        assertThat(failed).containsExactly(t);
        assertThat(t.status()).isEqualTo(DocaError.SHUTDOWN);
        t.free();
        assertThat(dma.state()).isEqualTo(CtxState.IDLE);
    }

    @Test
    void steadyStateMemcpyCycleAllocatesNothing() {
        Dma d2 = Dma.create(dev);
        long[] n = new long[1];
        d2.taskMemcpySetConf((t, a, b) -> n[0]++, (t, a, b) -> n[0] -= 1_000_000, 4);
        ProgressEngine pe2 = ProgressEngine.create();
        pe2.connectCtx(d2);
        d2.start();
        MemoryMap src = map(pattern(64), AccessFlags.LOCAL_READ_WRITE, dev);
        MemoryMap dst = map(arena.allocate(64), AccessFlags.LOCAL_READ_WRITE, dev);
        Buf s = inv.getByData(src, src.baseAddress(), 64);
        Buf d = inv.getByAddr(dst, dst.baseAddress(), 64);
        Runnable cycle = () -> {
            d.resetDataLen();
            DmaTaskMemcpy t = d2.taskMemcpyAllocInit(s, d, 1);
            t.submit();
            pe2.progress();
            t.free();
        };
        AllocationMeter.Result r = AllocationMeter.steadyState(200_000, 1_000_000, cycle);
        assertThat(n[0]).isEqualTo(r.totalRuns());
        assertThat(r.bytesPerOp()).as("bytes per alloc→submit→progress→callback→free").isLessThan(1.0);
    }

    @Test
    void capabilities() {
        assertThat(Dma.capTaskMemcpyIsSupported(dev.devInfo())).isTrue();
        assertThat(Dma.capTaskMemcpyGetMaxBufListLen(dev.devInfo())).isEqualTo(Dma.MAX_BUF_LIST_LEN);
        assertThat(Dma.capTaskMemcpyGetMaxBufSize(dev.devInfo())).isEqualTo(1L << 31);
    }
}
