package io.jdoca.nvmf.perf;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.rdma.KeyedSgl;
import io.jdoca.sta.nvmf.rdma.NvmeRdmaCmRequest;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The NVMe/RDMA host's wire encoding without a device: the rdma_cm private data it connects with
 * (read back by the target's own parser), Read/Write and Fabrics Connect SQEs with keyed SGL data
 * blocks (NVMe Base 2.0 figure 121, read back by the target's {@link KeyedSgl}), and no allocation
 * per I/O encoding.
 */
class NvmeRdmaHostTest {
    private final MemorySegment s = Arena.ofAuto().allocate(4096, 8);

    @Test
    @Timeout(60)
    void privateDataIsWhatTheTargetAccepts() {
        NvmeRdmaHost.encodePrivateData(s, 0, 0, 31, 0xffff); // admin queue: AQ depth 32
        NvmeRdmaCmRequest r = new NvmeRdmaCmRequest().wrap(s, 0, NvmeRdmaCmRequest.LEN);
        assertThat(r.validate(128)).isZero();
        assertThat(r.recfmt()).isZero();
        assertThat(r.qid()).isZero();
        assertThat(r.hsqsize()).isEqualTo(31);   // 0's based: the Connect SQSIZE
        assertThat(r.hrqsize()).isEqualTo(32);   // 1's based: completions the host takes
        assertThat(r.cntlid()).isEqualTo(0xffff);

        NvmeRdmaHost.encodePrivateData(s, 64, 1, 32, 7); // nvme-perf -q 32: SQSIZE max(qd, 31)
        r.wrap(s, 64, NvmeRdmaCmRequest.LEN);
        assertThat(r.validate(128)).isZero();
        assertThat(r.qid()).isEqualTo(1);
        assertThat(r.recvQueueSize()).isEqualTo(33);
        assertThat(r.cntlid()).isEqualTo(7);
    }

    @Test
    @Timeout(60)
    void readCarriesAKeyedSglToTheDataSlot() {
        NvmeRdmaHost.encodeIo(s, 128, NvmeOpcode.IO_READ, 31, 1, 0x1234_5678_9aL, 8, 0x7f00_0000_1000L, 32768,
                0xabcdef01);
        assertThat(s.get(NvmeTcpPdu.U8, 128 + NvmeCommand.OFF_OPCODE)).isEqualTo((byte) NvmeOpcode.IO_READ);
        assertThat(s.get(NvmeTcpPdu.U8, 128 + NvmeCommand.OFF_FLAGS) & 0xc0).isEqualTo(0x40); // PSDT: SGL
        assertThat(s.get(NvmeTcpPdu.LE16, 128 + NvmeCommand.OFF_CID)).isEqualTo((short) 31);
        assertThat(s.get(NvmeTcpPdu.LE32, 128 + NvmeCommand.OFF_NSID)).isEqualTo(1);
        assertThat(s.get(NvmeTcpPdu.LE64, 128 + NvmeCommand.OFF_CDW10)).isEqualTo(0x1234_5678_9aL);
        assertThat(s.get(NvmeTcpPdu.LE32, 128 + NvmeCommand.OFF_CDW12) & 0xffff).isEqualTo(7); // NLB 0's based
        assertThat(KeyedSgl.keyed(s, 128)).isTrue();
        assertThat(KeyedSgl.subtype(s, 128)).isEqualTo(KeyedSgl.SUBTYPE_ADDRESS); // no SEND with Invalidate asked
        assertThat(KeyedSgl.address(s, 128)).isEqualTo(0x7f00_0000_1000L);
        assertThat(KeyedSgl.keyedLength(s, 128)).isEqualTo(32768);
        assertThat(KeyedSgl.key(s, 128)).isEqualTo(0xabcdef01);
    }

    @Test
    @Timeout(60)
    void connectDataIsAKeyedKilobyte() {
        NvmeRdmaHost.encodeConnect(s, 0, 0x7000, 1, 32, 0, FabricsConnectCommand.CATTR_DISABLE_SQ_FLOW, 0x10000L, 0x55);
        assertThat(s.get(NvmeTcpPdu.U8, NvmeCommand.OFF_OPCODE) & 0xff).isEqualTo(NvmeOpcode.FABRICS);
        assertThat(s.get(NvmeTcpPdu.U8, 4) & 0xff).isEqualTo(NvmeOpcode.FCTYPE_CONNECT);
        assertThat(s.get(NvmeTcpPdu.U8, NvmeCommand.OFF_FLAGS) & 0xc0).isEqualTo(0x40);
        assertThat(FabricsConnectCommand.qid(s, 0)).isEqualTo(1);
        assertThat(FabricsConnectCommand.sqsize(s, 0)).isEqualTo(32);
        assertThat(FabricsConnectCommand.cattr(s, 0)).isEqualTo(FabricsConnectCommand.CATTR_DISABLE_SQ_FLOW);
        assertThat(KeyedSgl.keyed(s, 0)).isTrue();
        assertThat(KeyedSgl.keyedLength(s, 0)).isEqualTo(FabricsConnectCommand.DATA_LEN);
        assertThat(KeyedSgl.address(s, 0)).isEqualTo(0x10000L);
        assertThat(KeyedSgl.key(s, 0)).isEqualTo(0x55);
    }

    /** A command without data carries a zero-length keyed descriptor (nvmet-rdma refuses an all-zero one). */
    @Test
    @Timeout(60)
    void noDataMeansAZeroLengthKeyedDescriptor() {
        s.fill((byte) 0x5a);
        NvmeRdmaHost.encodeNullSgl(s, 0);
        assertThat(KeyedSgl.keyed(s, 0)).isTrue();
        assertThat(KeyedSgl.subtype(s, 0)).isEqualTo(KeyedSgl.SUBTYPE_ADDRESS);
        assertThat(KeyedSgl.keyedLength(s, 0)).isZero();
        assertThat(KeyedSgl.address(s, 0)).isZero();
        assertThat(KeyedSgl.key(s, 0)).isZero();
    }

    /** Any I/O the host encodes reads back unchanged through the target's parsers. */
    @Property(tries = 300)
    void ioRoundTrips(@ForAll @IntRange(min = 0, max = 65535) int cid, @ForAll int nsid,
            @ForAll @LongRange(min = 0) long slba,
                      @ForAll @IntRange(min = 1, max = 65536) int nlb, @ForAll long addr,
                      @ForAll @IntRange(min = 0, max = KeyedSgl.MAX_KEYED_LENGTH) int len, @ForAll int rkey,
                              @ForAll boolean read) {
        NvmeRdmaHost.encodeIo(s, 64, read ? NvmeOpcode.IO_READ : NvmeOpcode.IO_WRITE, cid, nsid, slba, nlb, addr, len,
                rkey);
        assertThat(s.get(NvmeTcpPdu.U8, 64) & 0xff).isEqualTo(read ? NvmeOpcode.IO_READ : NvmeOpcode.IO_WRITE);
        assertThat(s.get(NvmeTcpPdu.LE16, 64 + NvmeCommand.OFF_CID) & 0xffff).isEqualTo(cid);
        assertThat(s.get(NvmeTcpPdu.LE32, 64 + NvmeCommand.OFF_NSID)).isEqualTo(nsid);
        assertThat(s.get(NvmeTcpPdu.LE64, 64 + NvmeCommand.OFF_CDW10)).isEqualTo(slba);
        assertThat((s.get(NvmeTcpPdu.LE32, 64 + NvmeCommand.OFF_CDW12) & 0xffff) + 1).isEqualTo(nlb);
        assertThat(KeyedSgl.keyed(s, 64)).isTrue();
        assertThat(KeyedSgl.address(s, 64)).isEqualTo(addr);
        assertThat(KeyedSgl.keyedLength(s, 64)).isEqualTo(len);
        assertThat(KeyedSgl.key(s, 64)).isEqualTo(rkey);
    }

    @Test
    @Timeout(60)
    void encodingAnIoAllocatesNothing() {
        long[] lba = {0};
        AllocationMeter.Result r = AllocationMeter.steadyState(20_000, 100_000, () ->
                NvmeRdmaHost.encodeIo(s, 0, NvmeOpcode.IO_READ, 3, 1, lba[0]++, 1, 0x1000L, 4096, 9));
        assertThat(r.bytes()).as("bytes allocated by %d encodings", r.ops()).isZero();
    }
}
