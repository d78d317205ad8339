package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeCompletion;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.tcp.DataPdu;
import io.jdoca.sta.nvmf.tcp.IcReqPdu;
import io.jdoca.sta.nvmf.tcp.IcRespPdu;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.sta.nvmf.tcp.PduDigest;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.zip.CRC32C;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** Round trips of the PDU and NVMe flyweights, and the digest against CRC32C. */
class CodecPropertyTest {
    final MemorySegment seg = Arena.ofAuto().allocate(8192);

    @Property
    void dataPduRoundTrip(@ForAll @IntRange(min = 0, max = 0xffff) int cid,
                          @ForAll @IntRange(min = 0, max = 0xffff) int ttag,
                          @ForAll @IntRange(min = 0) int off, @ForAll @IntRange(min = 0) int len, @ForAll boolean r2t) {
        int type = r2t ? NvmeTcpPdu.TYPE_R2T : NvmeTcpPdu.TYPE_C2H_DATA;
        DataPdu.encode(seg, 16, type, 5, 28, 1000, cid, ttag, off, len);
        assertEquals(type, NvmeTcpPdu.type(seg, 16));
        assertEquals(5, NvmeTcpPdu.flags(seg, 16));
        assertEquals(24, NvmeTcpPdu.hlen(seg, 16));
        assertEquals(28, NvmeTcpPdu.pdo(seg, 16));
        assertEquals(1000, NvmeTcpPdu.plen(seg, 16));
        assertEquals(cid, DataPdu.cccid(seg, 16));
        assertEquals(ttag, DataPdu.ttag(seg, 16));
        assertEquals(off, DataPdu.datao(seg, 16));
        assertEquals(len, DataPdu.datal(seg, 16));
    }

    @Property
    void completionRoundTrip(@ForAll int dw0, @ForAll int dw1, @ForAll @IntRange(max = 0xffff) int sqhd,
                             @ForAll @IntRange(max = 0xffff) int cid, @ForAll @IntRange(max = 7) int sct,
                             @ForAll @IntRange(max = 255) int sc, @ForAll boolean dnr) {
        int status = NvmeStatus.of(sct, sc, dnr);
        NvmeCompletion.encode(seg, 3, dw0, dw1, sqhd, 1, cid, status);
        assertEquals(dw0, NvmeCompletion.dw0(seg, 3));
        assertEquals(dw1, NvmeCompletion.dw1(seg, 3));
        assertEquals(sqhd, NvmeCompletion.sqhd(seg, 3));
        assertEquals(cid, NvmeCompletion.cid(seg, 3));
        assertEquals(sct, NvmeStatus.sct(NvmeCompletion.status(seg, 3)));
        assertEquals(sc, NvmeStatus.sc(NvmeCompletion.status(seg, 3)));
        assertEquals(dnr, NvmeStatus.dnr(NvmeCompletion.status(seg, 3)));
        assertEquals(0, NvmeCompletion.status(seg, 3) & 1, "phase tag clear");
    }

    @Property
    void commandRange(@ForAll long slba, @ForAll @IntRange(min = 1, max = 65536) int nlb, @ForAll int nsid) {
        NvmeCommand.encode(seg, 0, 2, 7, nsid);
        NvmeCommand.putRange(seg, 0, slba, nlb);
        NvmeCommand c = new NvmeCommand().wrap(seg, 0);
        assertEquals(slba, c.slba());
        assertEquals(nlb, c.nlb());
        assertEquals(nsid, c.nsid());
        assertEquals(7, c.cid());
    }

    @Property
    void icRoundTrip(@ForAll boolean hd, @ForAll boolean dd, @ForAll @IntRange(min = 4096) int maxh2c) {
        IcReqPdu.encode(seg, 0, hd, dd, 0, 0);
        IcReqPdu r = new IcReqPdu().wrap(seg, 0);
        assertEquals(hd, r.headerDigest());
        assertEquals(dd, r.dataDigest());
        IcRespPdu.encode(seg, 128, hd, dd, maxh2c);
        assertEquals((hd ? 1 : 0) | (dd ? 2 : 0), IcRespPdu.dgst(seg, 128));
        assertEquals(maxh2c, IcRespPdu.maxH2cData(seg, 128));
    }

    @Property
    void digestMatchesCrc32c(@ForAll byte[] data) {
        int n = Math.min(data.length, 4000);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, seg, 100, n);
        CRC32C c = new CRC32C();
        c.update(data, 0, n);
        PduDigest d = new PduDigest(seg);
        assertEquals((int) c.getValue(), d.compute(100, n));
        d.put(100, n);
        assertEquals(true, d.check(100, n));
    }
}
