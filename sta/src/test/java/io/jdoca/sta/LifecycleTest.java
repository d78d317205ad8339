package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.sta.backend.FileBackend;
import io.jdoca.sta.backend.MemoryBackend;
import io.jdoca.sta.backend.NullBackend;
import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.NvmfQpairState;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seed's start/stop order, the state machines, limits, subsystems/namespaces and back-ends. */
class LifecycleTest {
    @Test
    void startAndStopOrderIsEnforced() {
        Dev dev = Devices.open("sw0");
        Sta sta = Sta.create(dev);
        ProgressEngine pe = ProgressEngine.create();
        assertEquals(DocaError.SUCCESS, pe.connectCtx(sta));
        assertEquals(DocaError.BAD_STATE, sta.start(), "a network device must be added first");
        DocaException e = assertThrows(DocaException.class, () -> StaIo.create(sta));
        assertEquals(DocaError.BAD_STATE, e.error(), "IO contexts only after the main context runs");
        assertEquals(DocaError.SUCCESS, sta.addDev(dev));
        assertEquals(DocaError.ALREADY_EXIST, sta.addDev(dev));
        assertEquals(DocaError.SUCCESS, sta.setMaxStaIo(2));
        assertEquals(DocaError.SUCCESS, sta.start());
        assertEquals(DocaError.BAD_STATE, sta.addDev(dev));
        assertEquals(DocaError.BAD_STATE, sta.setMaxStaIo(3));
        StaIo io = StaIo.create(sta);
        ProgressEngine pe2 = ProgressEngine.create();
        assertEquals(DocaError.SUCCESS, pe2.connectCtx(io));
        assertEquals(DocaError.SUCCESS, io.start());
        StaIo.create(sta);
        assertEquals(DocaError.FULL, assertThrows(DocaException.class, () -> StaIo.create(sta)).error());
        assertEquals(DocaError.BAD_STATE, sta.stop(), "main context stops after its IO contexts");
        assertEquals(CtxState.RUNNING, sta.state());
        assertEquals(DocaError.SUCCESS, io.stop());
        for (StaIo other : sta.ioContexts()) {
            other.destroy();
        }
        assertEquals(DocaError.SUCCESS, sta.stop());
        assertEquals(CtxState.IDLE, sta.state());
        assertEquals(DocaError.SUCCESS, sta.destroy());
        pe.close();
        pe2.close();
    }

    /**
     * Engine indexes select per-engine counter blocks, so two live engines must never share one.
     * Fails on main: an engine created after another was destroyed took index ios.size(), the
     * index of the survivor.
     */
    @Test
    void aRecreatedEngineTakesAFreeIndex() {
        Dev dev = Devices.open("sw0");
        Sta sta = Sta.create(dev);
        ProgressEngine pe = ProgressEngine.create();
        assertEquals(DocaError.SUCCESS, pe.connectCtx(sta));
        assertEquals(DocaError.SUCCESS, sta.addDev(dev));
        assertEquals(DocaError.SUCCESS, sta.setMaxStaIo(2));
        assertEquals(DocaError.SUCCESS, sta.start());
        StaIo first = StaIo.create(sta);
        StaIo second = StaIo.create(sta);
        assertEquals(0, first.index());
        assertEquals(1, second.index());
        assertEquals(DocaError.SUCCESS, first.destroy());
        StaIo third = StaIo.create(sta);
        assertEquals(0, third.index(), "the freed index, not the survivor's");
        third.destroy();
        second.destroy();
        assertEquals(DocaError.SUCCESS, sta.stop());
        assertEquals(DocaError.SUCCESS, sta.destroy());
        pe.close();
    }

    @Test
    void limitsAndCapabilities() {
        Dev dev = Devices.open("sw0");
        Sta sta = Sta.create(dev);
        assertTrue(Sta.capIsSupported(dev.devInfo()));
        assertTrue(Sta.isLogicalBlockSizeSupported(512));
        assertTrue(Sta.isLogicalBlockSizeSupported(4096));
        assertFalse(Sta.isLogicalBlockSizeSupported(1024));
        assertEquals(128 * 1024, sta.getMaxIoSize());
        assertTrue(sta.getMaxSubsystems() > 0 && sta.getMaxNsPerSubsystem() > 0 && sta.getMaxQps() > 0);
        assertTrue(sta.getMaxIoThreads() > 0 && sta.getMaxIoQueueSize() >= 128 && sta.getMaxBackends() > 0);
        assertEquals(DocaError.INVALID_VALUE, sta.setMaxIoSize(5000));
        assertEquals(DocaError.SUCCESS, sta.setMaxIoSize(65536));
        assertFalse(new StaCapabilityProvider().capabilities(dev.devInfo()).isEmpty());
        assertEquals(DocaError.SUCCESS, sta.destroy());
    }

    @Test
    void qpStateMachine() {
        assertTrue(NvmfQpairState.CONNECTING.canTransitionTo(NvmfQpairState.READY));
        assertTrue(NvmfQpairState.READY.canTransitionTo(NvmfQpairState.DISCONNECTING));
        assertTrue(NvmfQpairState.TERMINATING.canTransitionTo(NvmfQpairState.CLOSED));
        assertFalse(NvmfQpairState.CLOSED.canTransitionTo(NvmfQpairState.READY));
        assertFalse(NvmfQpairState.READY.canTransitionTo(NvmfQpairState.CONNECTING));
        assertFalse(NvmfQpairState.DISCONNECTING.canTransitionTo(NvmfQpairState.READY));
    }

    @Test
    void subsystemsAndNamespaces() {
        try (TestBed bed = new TestBed(1 << 20, 4096)) {
            assertEquals(DocaError.ALREADY_EXIST, assertThrows(DocaException.class, () ->
                    bed.sta.subsystemCreate(TestBed.NQN)).error());
            assertEquals(DocaError.ALREADY_EXIST, assertThrows(DocaException.class, () -> bed.subsys.addNs(1, 4096, 1,
                    bed.backend)).error());
            assertEquals(DocaError.NOT_SUPPORTED, assertThrows(DocaException.class, () -> bed.subsys.addNs(2, 1024, 1,
                    bed.backend)).error());
            assertEquals(DocaError.INVALID_VALUE, assertThrows(DocaException.class, () -> bed.subsys.addNs(0, 4096, 1,
                    bed.backend)).error());
            assertEquals(DocaError.IN_USE, bed.sta.backendDestroy(bed.backend));
            assertEquals(DocaError.IN_USE, bed.sta.subsystemDestroy(bed.subsys));
            StaNamespace ns2 = bed.subsys.addNs(2, 512, 1, bed.sta.backendCreate(new NullBackend("null0", 1 << 20)));
            assertEquals(2048, ns2.sizeBlocks());
            assertEquals(2, bed.subsys.namespaces().size());
            assertEquals(DocaError.SUCCESS, bed.subsys.rmNs(ns2));
            assertEquals(DocaError.NOT_FOUND, bed.subsys.rmNs(ns2));
            assertEquals(1, bed.subsys.namespaces().size());
        }
    }

    @Test
    void backends(@TempDir Path dir) {
        MemorySegment scratch = Arena.ofAuto().allocate(1 << 17, 4096);
        MemorySegment buf = Arena.ofAuto().allocate(8192);
        for (int i = 0; i < 8192; i++) {
            buf.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        Path f = dir.resolve("disk.img");
        FileBackend file = FileBackend.open("f", f, 1 << 20);
        assertEquals(1 << 20, file.sizeBytes());
        assertTrue(Files.exists(f));
        MemoryBackend mem = new MemoryBackend("m", 1 << 20);
        for (StaBackend b : new StaBackend[] {file, mem}) {
            assertEquals(NvmeStatus.SUCCESS, b.write(4096, buf, 0, 8192, scratch));   // aligned (O_DIRECT when allowed)
            assertEquals(NvmeStatus.SUCCESS, b.write(512, buf, 0, 512, scratch));     // unaligned (buffered)
            MemorySegment out = Arena.ofAuto().allocate(8192);
            assertEquals(NvmeStatus.SUCCESS, b.read(4096, out, 0, 8192, scratch));
            assertEquals(-1, MemorySegment.mismatch(buf, 0, 8192, out, 0, 8192), b.kind());
            assertEquals(NvmeStatus.SUCCESS, b.read(512, out, 0, 512, scratch));
            assertEquals(-1, MemorySegment.mismatch(buf, 0, 512, out, 0, 512));
            assertEquals(NvmeStatus.SUCCESS, b.writeZeroes(4096, 4096, scratch));
            assertEquals(NvmeStatus.SUCCESS, b.read(4096, out, 0, 4096, scratch));
            assertEquals(0, out.get(ValueLayout.JAVA_BYTE, 100));
            // Deallocate: DLFEAT promises that deallocated blocks read back as zeroes, through either descriptor.
            assertEquals(NvmeStatus.SUCCESS, b.write(8192, buf, 0, 8192, scratch));
            assertEquals(NvmeStatus.SUCCESS, b.deallocate(8192, 8192, scratch));
            out.fill((byte) 1);
            assertEquals(NvmeStatus.SUCCESS, b.read(8192, out, 0, 8192, scratch));
            assertEquals(-1, MemorySegment.mismatch(out, 0, 8192, Arena.ofAuto().allocate(8192), 0, 8192), b.kind());
            out.fill((byte) 1);
            assertEquals(NvmeStatus.SUCCESS, b.read(8192 + 512, out, 0, 512, scratch));
            assertEquals(0, out.get(ValueLayout.JAVA_BYTE, 511), b.kind());
            assertEquals(NvmeStatus.SUCCESS, b.flush());
        }
        NullBackend nul = new NullBackend("n", 1 << 20);
        MemorySegment out = Arena.ofAuto().allocate(4096);
        out.fill((byte) 1);
        assertEquals(NvmeStatus.SUCCESS, nul.write(0, buf, 0, 4096, scratch));
        assertEquals(NvmeStatus.SUCCESS, nul.read(0, out, 0, 4096, scratch));
        assertEquals(0, out.get(ValueLayout.JAVA_BYTE, 4095));
        file.destroyInternal();
        mem.destroyInternal();
    }
}
