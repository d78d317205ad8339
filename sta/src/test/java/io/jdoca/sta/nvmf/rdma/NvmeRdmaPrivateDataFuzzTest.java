package io.jdoca.sta.nvmf.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The connect private data comes from the network before anything is authenticated: random and
 * mutated bytes of any length must give a verdict (accept, or one of the specified reject
 * statuses), never an exception, and an accepted request's fields are in range. A valid request
 * round-trips through the encoder.
 */
class NvmeRdmaPrivateDataFuzzTest {
    private static final Set<Integer> STATUSES = Set.of(0, NvmeRdmaCmReject.STS_INVALID_LEN,
            NvmeRdmaCmReject.STS_INVALID_RECFMT, NvmeRdmaCmReject.STS_INVALID_QID, NvmeRdmaCmReject.STS_INVALID_HSQSIZE,
            NvmeRdmaCmReject.STS_INVALID_HRQSIZE);

    @Provide
    Arbitrary<byte[]> privateData() {
        return Arbitraries.oneOf(Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(96),
                // mostly-valid requests with a few bytes flipped
                Arbitraries.bytes().array(byte[].class).ofSize(6).map(m -> {
                    byte[] b = new byte[32];
                    b[4] = (byte) 128;
                    b[6] = 127;
                    b[2] = 1;
                    for (int i = 0; i + 1 < m.length; i += 2) {
                        b[(m[i] & 0xff) % 32] ^= m[i + 1];
                    }
                    return b;
                }));
    }

    @Property(tries = 2000)
    void anyBytesGetAVerdict(@ForAll("privateData") byte[] b, @ForAll @IntRange(min = 0, max = 100) int claimedExtra,
                             @ForAll @IntRange(min = 2, max = 1024) int maxQueue) {
        MemorySegment s = Arena.ofAuto().allocate(Math.max(1, b.length));
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        // The claimed length may exceed the bytes present (a lying event): still a verdict.
        int claimed = claimedExtra % 3 == 0 ? b.length + claimedExtra : b.length;
        NvmeRdmaCmRequest r = new NvmeRdmaCmRequest().wrap(s, 0, claimed);
        int v = r.validate(maxQueue);
        assertTrue(STATUSES.contains(v), "status " + v);
        if (v == 0) {
            assertTrue(b.length >= NvmeRdmaCmRequest.LEN);
            assertEquals(0, r.recfmt());
            assertTrue(r.recvQueueSize() >= 2 && r.recvQueueSize() <= maxQueue);
            assertTrue(r.hrqsize() >= 1 && r.qid() <= NvmeRdmaCmRequest.MAX_QID);
        }
    }

    @Property(tries = 500)
    void validRequestsRoundTrip(@ForAll @IntRange(min = 0, max = 0xfffe) int qid,
                                @ForAll @IntRange(min = 1, max = 1023) int hsq,
                                @ForAll @IntRange(min = 1, max = 1025) int hrq,
                                @ForAll @IntRange(min = 0, max = 0xffff) int cntlid) {
        MemorySegment s = Arena.ofAuto().allocate(32);
        NvmeRdmaCmRequest.encode(s, 0, qid, hrq, hsq, cntlid);
        NvmeRdmaCmRequest r = new NvmeRdmaCmRequest().wrap(s, 0, 32);
        assertEquals(0, r.validate(1024));
        assertEquals(qid, r.qid());
        assertEquals(hsq + 1, r.recvQueueSize());
        assertEquals(hrq, r.hrqsize());
        assertEquals(cntlid, r.cntlid());
    }
}
