package io.jdoca.nvmf.tgt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.io.IOException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes the reservation commands, outside input parsed on {@code sta-main}: random Reservation
 * Register / Report / Acquire / Release with random command dwords, namespace ids and data (0 to 40
 * bytes in the capsule, shorter or longer than the command wants) on an I/O queue. Every command
 * gets exactly one completion, the connection stays up, and the host's own I/O still executes
 * afterwards (a reservation this host holds never blocks it).
 */
class ReservationFuzzTest {
    static final int[] OPCODES = {NvmeOpcode.IO_RESERVATION_REGISTER, NvmeOpcode.IO_RESERVATION_REPORT,
        NvmeOpcode.IO_RESERVATION_ACQUIRE, NvmeOpcode.IO_RESERVATION_RELEASE};
    static final byte[] HOST_ID = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
    static NvmfTarget target;
    static NvmeTcpHost admin;
    static NvmeTcpHost io;

    @BeforeContainer
    static void up() throws IOException {
        target = new NvmfTarget(TargetConfig.parse("""
                { "subsystems": [ { "nqn": "nqn.fuzz.resv", "allow_any_host": true,
                  "namespaces": [ { "backend": "null", "size_mb": 8, "block_size": 512 } ] } ] }"""));
        target.start();
        int port = target.addListener("127.0.0.1", 0);
        admin = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        admin.initialize();
        int[] c = admin.connect(0, 31, "nqn.fuzz.resv", "nqn.fuzz.host", HOST_ID, 0xffff, 0, 0);
        assertEquals(0, c[0]);
        assertEquals(0, admin.propertySet(0x14, 1)[0]);
        io = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        io.initialize();
        assertEquals(0, io.connect(1, 31, "nqn.fuzz.resv", "nqn.fuzz.host", HOST_ID, c[1] & 0xffff, 0, 0)[0]);
    }

    @AfterContainer
    static void down() {
        io.close();
        admin.close();
        target.close();
    }

    @Provide
    Arbitrary<byte[]> data() {
        return Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(40);
    }

    @Property(tries = 300)
    void everyReservationCommandIsAnsweredAndTheQueueLives(@ForAll int op, @ForAll int cdw10, @ForAll int cdw11,
                                                           @ForAll boolean validNsid,
                                                           @ForAll("data") byte[] data) throws IOException {
        int opcode = OPCODES[Math.floorMod(op, OPCODES.length)];
        int nsid = validNsid ? 1 : cdw11 ^ cdw10;
        int status;
        if (opcode == NvmeOpcode.IO_RESERVATION_REPORT) {
            byte[] out = new byte[4096];
            // NUMD bounded by the buffer the host gives (the target cuts to the SGL length).
            status = io.adminRead(opcode, nsid, cdw10 & 0x3ff, cdw11, out);
        } else if (data.length == 0) {
            status = io.adminSimple(opcode, nsid, cdw10, cdw11)[0];
        } else {
            status = io.commandWithData(opcode, nsid, cdw10, cdw11, data)[0];
        }
        assertTrue(status >= 0, "a completion");
        assertEquals(NvmeStatus.SUCCESS, io.adminSimple(NvmeOpcode.IO_WRITE_ZEROES, 1, 0, 0)[0],
                "this host's own write still executes");
        assertEquals(NvmeStatus.SUCCESS, admin.adminSimple(NvmeOpcode.ADMIN_KEEP_ALIVE, 0, 0, 0)[0]);
    }
}
