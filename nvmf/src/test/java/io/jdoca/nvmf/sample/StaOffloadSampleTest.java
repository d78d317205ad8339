package io.jdoca.nvmf.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.testkit.JavaProcess;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The sample serves a host: Connect, enable, Identify, an I/O queue, write then read back. */
class StaOffloadSampleTest {
    @Test
    void sampleServesAHost() throws Exception {
        int port = JavaProcess.freePort();
        int[] rc = {-1};
        Thread t = new Thread(() -> rc[0] = new CommandLine(new StaOffloadSample()).execute("--port",
                String.valueOf(port),
                "--seconds", "120", "--size-mb", "8"));
        t.start();
        NvmeTcpHost adm = null;
        for (int i = 0; i < 100 && adm == null; i++) {
            try {
                adm = new NvmeTcpHost("127.0.0.1", port, false, false, 8, 8192);
            } catch (java.io.IOException e) {
                Thread.sleep(50);
            }
        }
        try (NvmeTcpHost a = adm; NvmeTcpHost io = new NvmeTcpHost("127.0.0.1", port, true, true, 8, 131072)) {
            a.initialize();
            assertEquals(0, a.connect(0, 31, "nqn.2024-01.io.jdoca:sample", "nqn.h", 0xffff, 0)[0]);
            a.propertySet(0x14, 1);
            assertEquals(1, a.propertyGet(0x1c, false)[1] & 1);
            byte[] id = new byte[4096];
            assertEquals(0, a.adminRead(NvmeOpcode.ADMIN_IDENTIFY, 1, 0, 0, id));
            assertEquals(2048, ByteBuffer.wrap(id).order(ByteOrder.LITTLE_ENDIAN).getLong(0));
            io.initialize();
            assertEquals(0, io.connect(1, 31, "nqn.2024-01.io.jdoca:sample", "nqn.h", 1, 0)[0]);
            MemorySegment d = Arena.ofAuto().allocate(4096);
            d.fill((byte) 0x3c);
            int[] st = {-1, -1};
            byte[] got = new byte[1];
            io.setListener(new NvmeTcpHost.Listener() {
                @Override
                public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
                    got[0] = seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, off + 100);
                }

                @Override
                public void onCompletion(int cid, int status, int dw0) {
                    st[cid] = status;
                }
            });
            io.write(0, 1, 5, 1, d, 0, 4096, 8192);
            while (st[0] < 0) {
                io.poll();
            }
            io.read(1, 1, 5, 1, 4096);
            while (st[1] < 0) {
                io.poll();
            }
            assertEquals(0, st[0]);
            assertEquals(0, st[1]);
            assertEquals(0x3c, got[0]);
        }
        t.interrupt(); // the sample's loop ends on interruption and stops in the seed's order
        t.join(20_000);
        assertEquals(0, rc[0]);
    }
}
