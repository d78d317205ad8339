package io.jdoca.sta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.sta.backend.rbd.Librbd;
import io.jdoca.sta.backend.rbd.RadosCluster;
import io.jdoca.sta.backend.rbd.RbdBackend;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.testkit.AllocationMeter;
import io.jdoca.testkit.CephTestCluster;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NVMe/TCP I/O through the IO engine to an RBD namespace on a one-node Ceph cluster: the engine
 * drives the back-end through its {@code RbdChannel}, data round-trips, and steady-state I/O
 * allocates nothing. Skipped without Ceph.
 */
class RbdIoPathTest {
    static final int BS = 4096;

    @Test
    void nvmfIoThroughRbdChannel(@TempDir Path dir) throws Exception {
        assumeTrue(Librbd.available(), () -> "skipped: " + Librbd.unavailableReason());
        try (CephTestCluster ceph = CephTestCluster.start(dir);
             RadosCluster rados = RadosCluster.connect(RadosCluster.Options.ofConfig(ceph.conf().toString(),
                     ceph.adminKeyring().toString(), 20));
             TestBed bed = new TestBed(1 << 20, BS)) {
            ceph.rbd("create", "--size", "64M", "rbd/ns2", "--image-feature", "layering");
            RbdBackend rbd = bed.sta.backendCreate(RbdBackend.open("rbd0", rados, "rbd", "ns2"));
            rbd.addQueue();
            StaNamespace ns2 = bed.subsys.addNs(2, BS, 1, rbd);
            TestClient c = IoPathTest.connected(bed, true, true);
            MemorySegment data = IoPathTest.pattern(4 * BS, 5);
            // R2T write of 4 blocks, then read them back
            c.io(NvmeOpcode.IO_WRITE, 10, 2, 8, 4, 4 * BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            c.h2cData(10, DataPdu.ttag(c.rx, 0), 0, data, 0, 4 * BS, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertThat(c.cqeStatus()).isZero();
            c.io(NvmeOpcode.IO_READ, 11, 2, 8, 4, 4 * BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
            assertThat(c.dataLength()).isEqualTo(4 * BS);
            assertThat(MemorySegment.mismatch(data, 0, 4 * BS, c.rx, c.dataOffset(), c.dataOffset() + 4 * BS))
                    .isEqualTo(-1);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertThat(c.cqeStatus()).isZero();
            assertThat(bed.io.pollGroup().backendChannels().channel(rbd).getClass().getSimpleName())
                    .isEqualTo("RbdChannel");
            long[] lba = {0};
            Runnable op = () -> {
                long slba = (lba[0]++ * 7) & 16383;
                if ((lba[0] & 1) == 0) {
                    c.io(NvmeOpcode.IO_READ, 1, 2, slba, 1, BS, null, 0);
                    c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                } else {
                    c.io(NvmeOpcode.IO_WRITE, 2, 2, slba, 1, BS, data, BS);
                }
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                if (c.cqeStatus() != 0) {
                    throw new AssertionError("I/O failed: status " + c.cqeStatus());
                }
            };
            AllocationMeter.Result r = AllocationMeter.steadyState(3_000, 1_000, op);
            System.out.printf("NVMe/TCP to RBD: %.3f bytes per I/O (%s)%n", r.bytesPerOp(), r);
            assertThat(r.bytesPerOp()).as("bytes per I/O: %s", r).isLessThan(1.0);
            assertThat(bed.io.stats().get("io_errors")).isZero();
            assertThat(ns2.inflight()).isZero();
            bed.subsys.rmNs(ns2);
            bed.sta.backendDestroy(rbd);
        }
    }
}
