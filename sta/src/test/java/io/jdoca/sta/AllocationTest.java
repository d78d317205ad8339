package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.sta.backend.FileBackend;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Steady-state allocation of the offloaded data path: 4 KiB reads, in-capsule writes and R2T
 * writes (with digests) through the engine, host and target on this thread. Must be zero bytes.
 */
class AllocationTest {
    static final int BS = 4096;

    @Test
    void offloadedIoAllocatesNothing() {
        try (TestBed bed = new TestBed(64 << 20, BS)) {
            TestClient c = IoPathTest.connected(bed, true, true);
            MemorySegment data = IoPathTest.pattern(BS, 1);
            long[] lba = {0};
            Runnable op = () -> {
                long slba = (lba[0]++ * 7) & 16383;
                switch ((int) (lba[0] % 3)) {
                    case 0 -> {
                        c.read(1, slba, 1, BS);
                        c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                        c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                    }
                    case 1 -> {
                        c.io(NvmeOpcode.IO_WRITE, 2, 1, slba, 1, BS, data, BS);
                        c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                    }
                    default -> {
                        c.io(NvmeOpcode.IO_WRITE, 3, 1, slba, 1, BS, null, 0);
                        c.expect(NvmeTcpPdu.TYPE_R2T);
                        c.h2cData(3, DataPdu.ttag(c.rx, 0), 0, data, 0, BS, true);
                        c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                    }
                }
                if (c.cqeStatus() != 0) {
                    throw new AssertionError("I/O failed");
                }
            };
            AllocationMeter.Result r = AllocationMeter.steadyState(30_000, 120_000, op);
            assertTrue(r.bytesPerOp() < 1.0, "bytes/op " + r.bytesPerOp() + " (" + r.bytes() + " bytes over " + r.ops()
                    + " I/Os)");
            assertEquals(0, bed.io.stats().get("io_errors"));
        }
    }

    /**
     * The same mix on a file back-end, which the engine drives through io_uring (submission and
     * completion rings, engine slot buffers): still zero bytes per I/O.
     */
    @Test
    void fileBackendIoThroughIoUringAllocatesNothing(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        try (TestBed bed = new TestBed(1 << 20, BS)) {
            FileBackend file = bed.sta.backendCreate(
                    FileBackend.open("file0", dir.resolve("ns2.img"), 64L << 20));
            file.addQueue();
            StaNamespace ns2 = bed.subsys.addNs(2, BS, 1, file);
            TestClient c = IoPathTest.connected(bed, true, true);
            MemorySegment data = IoPathTest.pattern(BS, 1);
            long[] lba = {0};
            Runnable op = () -> {
                long slba = (lba[0]++ * 7) & 16383;
                switch ((int) (lba[0] % 3)) {
                    case 0 -> {
                        c.io(NvmeOpcode.IO_READ, 1, 2, slba, 1, BS, null, 0);
                        c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                        c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                    }
                    case 1 -> {
                        c.io(NvmeOpcode.IO_WRITE, 2, 2, slba, 1, BS, data, BS);
                        c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                    }
                    default -> {
                        c.io(NvmeOpcode.IO_WRITE, 3, 2, slba, 1, BS, null, 0);
                        c.expect(NvmeTcpPdu.TYPE_R2T);
                        c.h2cData(3, DataPdu.ttag(c.rx, 0), 0, data, 0, BS, true);
                        c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                    }
                }
                if (c.cqeStatus() != 0) {
                    throw new AssertionError("I/O failed");
                }
            };
            AllocationMeter.Result r = AllocationMeter.steadyState(5_000, 20_000, op);
            assertEquals("IoUringChannel",
                    bed.io.pollGroup().backendChannels().channel(file).getClass().getSimpleName(),
                    "the file back-end ran on io_uring");
            assertTrue(r.bytesPerOp() < 1.0, "bytes/op " + r.bytesPerOp() + " (" + r.bytes() + " bytes over " + r.ops()
                    + " I/Os)");
            assertEquals(0, bed.io.stats().get("io_errors"));
            assertEquals(0, ns2.inflight());
            bed.subsys.rmNs(ns2);
            bed.sta.backendDestroy(file);
        }
    }
}
