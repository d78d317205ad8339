package io.jdoca.systemtests.sta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two sta-target processes serving one subsystem NQN and one namespace share its reservation
 * through the namespace's ptpl_file (issue 32): each reservation command runs under the file's
 * cross-process lock on the file's latest state, and each target reads the file again within a
 * keep-alive period (500 ms) after the other changed it. A reservation acquired through target A
 * is enforced by target B's engines; host 2 registers and preempts through B, and A then refuses
 * host 1's writes. Loopback only (profile {@code system}).
 */
class SharedReservationSystemTest {
    static final String NQN = "nqn.2024-01.io.jdoca:shared-resv";
    static final Duration T = Duration.ofSeconds(120);
    static final byte[] ID1 = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    static final byte[] ID2 = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    static final int WRITE_EXCLUSIVE = 1;

    @TempDir
    Path dir;

    private JavaProcess target(String name, int port, int minCntlid, int maxCntlid, Path ptpl) throws IOException {
        Path cfg = dir.resolve(name + ".json");
        Files.writeString(cfg, """
                { "io_threads": 1, "rpc_socket": "%s",
                  "subsystems": [ { "nqn": "%s", "allow_any_host": true, "min_cntlid": %d, "max_cntlid": %d,
                    "listeners": [ { "address": "127.0.0.1", "port": %d } ],
                    "namespaces": [ { "nsid": 1, "backend": "file", "path": "%s", "size_mb": 8,
                                      "block_size": 4096, "ptpl_file": "%s" } ] } ] }
                """.formatted(dir.resolve(name + ".sock"), NQN, minCntlid, maxCntlid, port, dir.resolve("ns1.img"),
                ptpl));
        JavaProcess t = JavaProcess.start(name, "io.jdoca.cli.Main", List.of("sta-target", "-j", cfg.toString()));
        t.awaitOutput("STA TARGET READY", T);
        return t;
    }

    /** An enabled admin queue and an I/O queue of one host: {admin, io}. */
    private static NvmeTcpHost[] host(int port, String nqn, byte[] id) throws IOException {
        NvmeTcpHost a = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        a.initialize();
        int[] c = a.connect(0, 31, NQN, nqn, id, 0xffff, 0, 0);
        assertEquals(0, c[0]);
        assertEquals(0, a.propertySet(0x14, 1 | (6 << 16) | (4 << 20))[0]);
        NvmeTcpHost io = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        io.initialize();
        assertEquals(0, io.connect(1, 31, NQN, nqn, id, c[1] & 0xffff, 0, 0)[0]);
        return new NvmeTcpHost[] {a, io};
    }

    private static byte[] keys(long a, long b) {
        return ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(a).putLong(b).array();
    }

    private static int register(NvmeTcpHost io, long nrkey, int cptpl) throws IOException {
        return io.commandWithData(NvmeOpcode.IO_RESERVATION_REGISTER, 1, cptpl << 30, 0, keys(0, nrkey))[0];
    }

    private static int acquire(NvmeTcpHost io, int action, long crkey, long prkey) throws IOException {
        return io.commandWithData(NvmeOpcode.IO_RESERVATION_ACQUIRE, 1, (WRITE_EXCLUSIVE << 8) | action, 0,
                keys(crkey, prkey))[0];
    }

    private static int write(NvmeTcpHost io) throws IOException {
        return io.adminSimple(NvmeOpcode.IO_WRITE_ZEROES, 1, 0, 0)[0];
    }

    /** Polls a host's write until it answers {@code want} or 10 s passed; returns the last status. */
    private static int awaitWrite(NvmeTcpHost io, int want) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int st;
        do {
            st = write(io);
        } while (st != want && System.nanoTime() < deadline);
        return st;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aReservationTakenThroughOneTargetIsEnforcedByTheOther() throws Exception {
        Path ptpl = dir.resolve("ns1.ptpl");
        int pa = JavaProcess.freePort();
        int pb = JavaProcess.freePort();
        try (JavaProcess a = target("sta-target-a", pa, 1, 99, ptpl);
             JavaProcess b = target("sta-target-b", pb, 100, 199, ptpl)) {
            NvmeTcpHost[] h1 = host(pa, "nqn.2014-08.org.nvmexpress:uuid:shared-host-1", ID1);
            NvmeTcpHost[] h2 = host(pb, "nqn.2014-08.org.nvmexpress:uuid:shared-host-2", ID2);
            try {
                assertThat(write(h2[1])).as("no reservation yet").isZero();
                assertThat(register(h1[1], 0x1111, 3)).as("register through A, PTPL on").isZero();
                assertThat(acquire(h1[1], 0, 0x1111, 0)).isZero();
                assertThat(awaitWrite(h2[1], NvmeStatus.RESERVATION_CONFLICT))
                        .as("target B enforces the reservation taken through A").isEqualTo(
                                NvmeStatus.RESERVATION_CONFLICT);
                assertThat(register(h2[1], 0x2222, 0)).as("register through B").isZero();
                assertThat(acquire(h2[1], 1, 0x2222, 0x1111))
                        .as("preempt through B, which reads host 1's registration from the file").isZero();
                assertThat(awaitWrite(h1[1], NvmeStatus.RESERVATION_CONFLICT)).as("target A sees host 1 preempted")
                        .isEqualTo(NvmeStatus.RESERVATION_CONFLICT);
                assertThat(write(h2[1])).as("the new holder writes through B").isZero();
            } finally {
                for (NvmeTcpHost h : new NvmeTcpHost[] {h1[0], h1[1], h2[0], h2[1]}) {
                    h.close();
                }
            }
            assertThat(a.output()).contains("reservation read again from");
            assertThat(b.output()).contains("reservation read again from");
        }
    }
}
