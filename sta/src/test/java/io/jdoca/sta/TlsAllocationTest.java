package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.sta.nvmf.NvmfQpairState;
import io.jdoca.sta.nvmf.tcp.NvmeTcpPdu;
import io.jdoca.testkit.AllocationMeter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What NVMe/TCP over TLS allocates per I/O in steady state (issue 33): 4 KiB reads through a TLS queue pair on
 * loopback sockets, host and engine on this thread; the engine's share is what is allocated inside
 * {@link TestBed#pump}. After the handshake the records are jdoca's ({@code TlsRecords}, {@code AesGcm}) on buffers
 * made once: nothing per I/O, as the plaintext path ({@link AllocationTest}). Both figures are printed; the engine's
 * must stay under 16 B/IO (any allocation per record is far more).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsAllocationTest {
    static final int BS = 4096;

    /**
     * The host's TLS connection for {@link TestClient}, whose reads count pump rounds: a read that finds nothing
     * pumps the engine until bytes come or 10 s pass (decryption on both sides takes longer than a few rounds).
     */
    static java.nio.channels.ByteChannel waiting(TestBed bed, io.jdoca.sta.nvmf.tls.TlsChannel tls) {
        return new java.nio.channels.ByteChannel() {
            @Override
            public int read(java.nio.ByteBuffer dst) throws java.io.IOException {
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                int n = tls.read(dst);
                while (n == 0 && System.nanoTime() < end) {
                    bed.pump();
                    n = tls.read(dst);
                }
                return n;
            }

            @Override
            public int write(java.nio.ByteBuffer src) throws java.io.IOException {
                return tls.write(src);
            }

            @Override
            public boolean isOpen() {
                return tls.isOpen();
            }

            @Override
            public void close() throws java.io.IOException {
                tls.close();
            }
        };
    }

    @Test
    void tlsRecordLayerCostPerIoIsMeasured() throws Exception {
        TlsFuzzTest.up();
        try {
            TestBed bed = TlsFuzzTest.bed;
            TlsFuzzTest.Conn conn = TlsFuzzTest.open();
            TestClient c = new TestClient(bed, waiting(bed, conn.host()));
            c.connectIoQueue(false, false);
            Runnable op = () -> {
                c.read(1, 0, 1, BS);
                c.expect(NvmeTcpPdu.TYPE_C2H_DATA);
                c.expect(NvmeTcpPdu.TYPE_CAPSULE_RESP);
                if (c.cqeStatus() != 0) {
                    throw new AssertionError("I/O failed");
                }
            };
            for (int i = 0; i < 20_000; i++) {
                op.run();
            }
            int n = 20_000;
            bed.pumpBytes = 0;
            bed.meterPump = true;
            long before = AllocationMeter.allocatedBytes();
            for (int i = 0; i < n; i++) {
                op.run();
            }
            long total = AllocationMeter.allocatedBytes() - before;
            bed.meterPump = false;
            double engine = (double) bed.pumpBytes / n;
            System.out.printf("TLS 4 KiB read: engine (target) %.0f B/IO, host + engine %.0f B/IO%n", engine,
                    (double) total / n);
            assertTrue(engine < 16, "engine B/IO " + engine);
            assertEquals(0, bed.io.stats().get("io_errors"));
            c.close();
            TlsFuzzTest.pumpUntil(() -> conn.qp().state() == NvmfQpairState.CLOSED);
        } finally {
            TlsFuzzTest.down();
        }
    }
}
