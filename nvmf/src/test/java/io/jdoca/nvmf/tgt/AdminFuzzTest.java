package io.jdoca.nvmf.tgt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.sta.nvme.NvmeOpcode;
import java.io.IOException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Fuzzes the controller's command dispatch: random admin opcodes and command dwords on an enabled
 * admin queue (I/O and discovery controllers). Every command gets exactly one completion (AERs
 * excluded: they are held by design), the target never closes the connection, and a normal
 * command still works afterwards.
 */
class AdminFuzzTest {
    static NvmfTarget target;
    static int port;
    static NvmeTcpHost io;
    static NvmeTcpHost disc;

    @BeforeContainer
    static void up() throws IOException {
        target = new NvmfTarget(TargetConfig.parse("""
                { "subsystems": [ { "nqn": "nqn.fuzz", "allow_any_host": true,
                  "namespaces": [ { "backend": "null", "size_mb": 8, "block_size": 512 } ] } ] }"""));
        target.start();
        port = target.addListener("127.0.0.1", 0);
        io = open("nqn.fuzz");
        disc = open(NvmfSubsystem.DISCOVERY_NQN);
    }

    static NvmeTcpHost open(String nqn) throws IOException {
        NvmeTcpHost h = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
        h.initialize();
        assertEquals(0, h.connect(0, 31, nqn, "nqn.fuzz.host", 0xffff, 0)[0]);
        assertEquals(0, h.propertySet(0x14, 1)[0]);
        return h;
    }

    @AfterContainer
    static void down() {
        io.close();
        disc.close();
        target.close();
    }

    @Property(tries = 300)
    void everyAdminCommandIsAnswered(@ForAll int opcodeSeed, @ForAll int nsid, @ForAll int cdw10, @ForAll int cdw11,
                                     @ForAll boolean discovery) throws IOException {
        int opcode = opcodeSeed & 0xff;
        if (opcode == NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST || opcode == NvmeOpcode.FABRICS) {
            opcode = NvmeOpcode.ADMIN_IDENTIFY;
        }
        // Keep data transfers bounded: identify/log commands get 4 KiB buffers.
        if (opcode == NvmeOpcode.ADMIN_GET_LOG_PAGE) {
            cdw10 = (cdw10 & 0x0000ffff) | (1023 << 16);
            cdw11 &= 0xffff0000;
        }
        if (opcode == NvmeOpcode.ADMIN_SET_FEATURES && (cdw10 & 0xff) == 0x0f) {
            cdw11 = 0; // no keep-alive timer: the fuzz host sends no Keep Alive
        }
        NvmeTcpHost h = discovery ? disc : io;
        int status;
        if (opcode == NvmeOpcode.ADMIN_IDENTIFY || opcode == NvmeOpcode.ADMIN_GET_LOG_PAGE) {
            status = h.adminRead(opcode, nsid, cdw10, cdw11, new byte[4096]);
        } else {
            status = h.adminSimple(opcode, nsid, cdw10, cdw11)[0];
        }
        assertTrue(status >= 0 && status <= 0xffff);
        assertEquals(0, h.adminSimple(NvmeOpcode.ADMIN_KEEP_ALIVE, 0, 0, 0)[0], "still serving");
    }
}
