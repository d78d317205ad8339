package io.jdoca.sta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.sta.backend.rbd.Librbd;
import io.jdoca.sta.backend.rbd.RadosCluster;
import io.jdoca.sta.backend.rbd.RbdBackend;
import io.jdoca.sta.backend.rbd.RbdChannel;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.testkit.AllocationMeter;
import io.jdoca.testkit.CephTestCluster;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NVMe/TCP I/O through the IO engine to an RBD namespace on a one-node Ceph cluster: the engine
 * drives the back-end through its {@code RbdChannel}, data round-trips, Write Zeroes and Dataset
 * Management go to the channel too ({@code rbd_aio_write_zeroes} / {@code rbd_aio_discard}), and
 * steady-state I/O allocates nothing. Skipped without Ceph.
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

    /**
     * Write Zeroes and a Dataset Management deallocate of several ranges through the engine onto RBD:
     * each range is one operation on the engine's {@code RbdChannel} (no synchronous librbd call on
     * the engine), the command completes when the last does, the blocks read back as zeroes and the
     * others keep their data; 0 B allocated per command in steady state.
     */
    @Test
    void writeZeroesAndDeallocateGoThroughTheChannel(@TempDir Path dir) throws Exception {
        assumeTrue(Librbd.available(), () -> "skipped: " + Librbd.unavailableReason());
        try (CephTestCluster ceph = CephTestCluster.start(dir);
             RadosCluster rados = RadosCluster.connect(RadosCluster.Options.ofConfig(ceph.conf().toString(),
                     ceph.adminKeyring().toString(), 20));
             TestBed bed = new TestBed(1 << 20, BS);
             Arena arena = Arena.ofConfined()) {
            ceph.rbd("create", "--size", "192M", "rbd/wz", "--image-feature", "layering");
            ceph.rbd("bench", "--io-type", "write", "--io-size", "4M", "--io-total", "184M", "rbd/wz");
            RbdBackend rbd = bed.sta.backendCreate(RbdBackend.open("rbd0", rados, "rbd", "wz"));
            rbd.addQueue();
            StaNamespace ns2 = bed.subsys.addNs(2, BS, 1, rbd);
            TestClient c = IoPathTest.connected(bed, true, true);
            MemorySegment data = IoPathTest.pattern(16 * BS, 3);
            c.io(NvmeOpcode.IO_WRITE, 10, 2, 0, 16, 16 * BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_R2T);
            c.h2cData(10, DataPdu.ttag(c.rx, 0), 0, data, 0, 16 * BS, true);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertThat(c.cqeStatus()).isZero();
            c.io(NvmeOpcode.IO_WRITE_ZEROES, 11, 2, 1, 1, 0, null, 0);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertThat(c.cqeStatus()).as("Write Zeroes").isZero();
            // DSM, AD, three ranges {attrs, NLB, SLBA}: 2 blocks at 4, 1 at 9, 3 at 12
            MemorySegment ranges = arena.allocate(48);
            long[][] rs = {{4, 2}, {9, 1}, {12, 3}};
            for (int i = 0; i < rs.length; i++) {
                ranges.set(NvmeTcpPdu.LE32, 16L * i + 4, (int) rs[i][1]);
                ranges.set(NvmeTcpPdu.LE64, 16L * i + 8, rs[i][0]);
            }
            dsm(c, 12, ranges, 3);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertThat(c.cqeStatus()).as("Dataset Management").isZero();
            RbdChannel ch = (RbdChannel) bed.io.pollGroup().backendChannels().channel(rbd);
            assertThat(ch.rangeOps()).as("one channel operation per range").isEqualTo(4);
            c.io(NvmeOpcode.IO_READ, 13, 2, 0, 16, 16 * BS, null, 0);
            c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
            MemorySegment back = arena.allocate(16 * BS);
            MemorySegment.copy(c.rx, c.dataOffset(), back, 0, 16 * BS);
            c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
            for (int blk = 0; blk < 16; blk++) {
                boolean zero = blk == 1 || blk == 4 || blk == 5 || blk == 9 || blk >= 12 && blk <= 14;
                MemorySegment b = back.asSlice((long) blk * BS, BS);
                assertThat(b.mismatch(zero ? arena.allocate(BS) : data.asSlice((long) blk * BS, BS)))
                        .as("block %d %s", blk, zero ? "zeroed" : "kept").isEqualTo(-1);
            }
            readOvertakesWriteZeroes(c, ceph);
            long[] n = {0};
            ranges.set(NvmeTcpPdu.LE32, 4, 1);
            Runnable op = () -> {
                long slba = 64 + ((n[0]++ * 7) & 8191);
                if ((n[0] & 1) == 0) {
                    c.io(NvmeOpcode.IO_WRITE_ZEROES, 1, 2, slba, 1, 0, null, 0);
                } else {
                    ranges.set(NvmeTcpPdu.LE64, 8, slba);
                    dsm(c, 2, ranges, 1);
                }
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                if (c.cqeStatus() != 0) {
                    throw new AssertionError("command failed: status " + c.cqeStatus());
                }
            };
            AllocationMeter.Result r = AllocationMeter.steadyState(1_000, 500, op);
            System.out.printf("NVMe/TCP Write Zeroes / DSM to RBD: %.3f bytes per command (%s)%n", r.bytesPerOp(), r);
            assertThat(r.bytesPerOp()).as("bytes per command: %s", r).isLessThan(1.0);
            assertThat(bed.io.stats().get("io_errors")).isZero();
            assertThat(ns2.inflight()).isZero();
            bed.subsys.rmNs(ns2);
            bed.sta.backendDestroy(rbd);
        }
    }

    /**
     * The engine does not wait for a Write Zeroes: with the OSD frozen (SIGSTOP) a 24 MiB Write Zeroes
     * on the RBD namespace cannot finish, and a 4 KiB read of the memory namespace sent right behind it
     * on the same queue must still be answered; then the OSD runs again and the Write Zeroes succeeds.
     * On the synchronous path the engine sat inside librbd until the OSD answered, so the read could
     * not be answered first (the client's wait ends at its deadline and the test fails). No timing.
     */
    private static void readOvertakesWriteZeroes(TestClient c, CephTestCluster ceph) throws Exception {
        String osd = ceph.pid("osd.0");
        signal("-STOP", osd);
        try {
            c.io(NvmeOpcode.IO_WRITE_ZEROES, 20, 2, (64L << 20) / BS, (24 << 20) / BS, 0, null, 0);
            c.io(NvmeOpcode.IO_READ, 21, 1, 3, 1, BS, null, 0);
            do {
                assertThat(c.next()).as("an answer while the OSD is stopped").isZero();
            } while (c.type() != NvmeTcpPdu.TYPE_CAPSULE_RESP);
            assertThat(c.cqeCid()).as("the read is answered while the Write Zeroes waits for the OSD")
                    .isEqualTo(21);
            assertThat(c.cqeStatus()).isZero();
        } finally {
            signal("-CONT", osd);
        }
        do {
            assertThat(c.next()).as("the Write Zeroes' answer").isZero();
        } while (c.type() != NvmeTcpPdu.TYPE_CAPSULE_RESP);
        assertThat(c.cqeCid()).isEqualTo(20);
        assertThat(c.cqeStatus()).as("Write Zeroes once the OSD runs again").isZero();
    }

    private static void signal(String sig, String pid) throws Exception {
        Process p = new ProcessBuilder("kill", sig, pid).redirectErrorStream(true).start();
        assertThat(p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("kill %s %s", sig, pid).isZero();
    }

    /** Dataset Management, deallocate, of the first {@code nr} ranges of {@code ranges}, in the capsule. */
    private static void dsm(TestClient c, int cid, MemorySegment ranges, int nr) {
        long sqe = c.beginCapsule();
        NvmeCommand.encode(c.tx, sqe, NvmeOpcode.IO_DATASET_MANAGEMENT, cid, 2);
        NvmeCommand.putCdw(c.tx, sqe, 40, nr - 1);  // NR, 0's based
        NvmeCommand.putCdw(c.tx, sqe, 44, 0x4);     // AD
        NvmeCommand.putSgl(c.tx, sqe, NvmeCommand.SGL_DATA_BLOCK_OFFSET, 0, 16L * nr);
        c.endCapsule(ranges, 0, 16 * nr);
    }
}
