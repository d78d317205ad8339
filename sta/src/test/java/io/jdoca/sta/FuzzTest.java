package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes the PDU parser and the command dispatch: random bytes, and valid capsules with random
 * mutations, after a valid ICReq (and after a Connect). Properties: no exception escapes the
 * engine, every PDU is answered or the connection is closed (no hang: bounded pumping), and a
 * healthy connection on the same engine keeps working.
 */
class FuzzTest {
    static TestBed bed;

    @BeforeContainer
    static void up() {
        bed = new TestBed(1 << 20, 4096);
    }

    @AfterContainer
    static void down() {
        bed.close();
    }

    @Provide
    Arbitrary<byte[]> garbage() {
        return Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(600);
    }

    @Property(tries = 200)
    void randomBytesAfterIcReq(@ForAll("garbage") byte[] junk) {
        PipeChannel[] p = PipeChannel.pair(1 << 16);
        StaQp qp = bed.io.qpConnect(p[0]);
        TestClient c = new TestClient(bed, p[1], 1 << 18);
        c.icReq(false, false);
        c.expect(NvmeTcpPdu.TYPE_IC_RESP);
        c.raw(junk);
        bed.pump();
        drain(c);
        c.close();
        bed.pump();
        assertEquals(NvmfQpairState.CLOSED, qp.state());
        healthy();
    }

    @Property(tries = 200)
    void mutatedCapsules(@ForAll("garbage") byte[] mutations, @ForAll boolean connected, @ForAll boolean digests) {
        PipeChannel[] p = PipeChannel.pair(1 << 16);
        StaQp qp = bed.io.qpConnect(p[0]);
        TestClient c = new TestClient(bed, p[1], 1 << 18);
        if (connected) {
            c.connectIoQueue(digests, digests);
        } else {
            c.icReq(digests, digests);
            c.expect(NvmeTcpPdu.TYPE_IC_RESP);
        }
        // A valid capsule (rotating opcodes), then random byte flips in header and SQE.
        int[] ops = {NvmeOpcode.IO_READ, NvmeOpcode.IO_WRITE, NvmeOpcode.IO_FLUSH, NvmeOpcode.IO_WRITE_ZEROES,
                NvmeOpcode.IO_DATASET_MANAGEMENT, NvmeOpcode.IO_COMPARE, NvmeOpcode.FABRICS, 0x06, 0x7e};
        int op = ops[(mutations[0] & 0xff) % ops.length];
        MemorySegment data = IoPathTest.pattern(512, mutations.length);
        int base = c.txLen;
        c.io(op, 1, 1, mutations.length, 1, 4096, null, 0);
        c.txLen = 0; // rebuild in place, mutate, resend
        c.io(op, 1, 1, mutations.length % 300, 1 + (mutations[0] & 7), 4096, (mutations[0] & 1) == 0 ? data : null,
                (mutations[0] & 1) == 0 ? 512 : 0);
        drain(c);
        int len = 72 + (digests ? 4 : 0);
        for (int i = 1; i + 1 < mutations.length; i += 2) {
            int at = base + (mutations[i] & 0xff) % len;
            c.tx.set(ValueLayout.JAVA_BYTE, at, mutations[i + 1]);
        }
        c.txLen = base + len;
        NvmeTcpPdu.putHeader(c.tx, base, NvmeTcpPdu.TYPE_CAPSULE_CMD, NvmeTcpPdu.flags(c.tx, base), 72, 0, len);
        if (qp.state() != NvmfQpairState.CLOSED) {
            try {
                c.send();
            } catch (RuntimeException e) {
                // the target may have closed the connection already
            }
        }
        bed.pump();
        drain(c);
        c.close();
        bed.pump();
        healthy();
    }

    /** Reads whatever the target answered; bounded. */
    private static void drain(TestClient c) {
        for (int i = 0; i < 50 && c.next() >= 0; i++) {
            assertTrue(NvmeTcpPdu.type(c.rx, 0) <= NvmeTcpPdu.TYPE_R2T);
        }
    }

    private static void healthy() {
        PipeChannel[] p = PipeChannel.pair(1 << 16);
        bed.io.qpConnect(p[0]);
        TestClient ok = new TestClient(bed, p[1], 1 << 18);
        ok.connectIoQueue(false, false);
        ok.read(99, 0, 1, 4096);
        ok.expect(NvmeTcpPdu.TYPE_C2H_DATA);
        ok.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
        assertEquals(0, ok.cqeStatus());
        ok.close();
        bed.pump();
    }
}
