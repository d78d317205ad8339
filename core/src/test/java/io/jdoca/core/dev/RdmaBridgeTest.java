package io.jdoca.core.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * The RDMA bridge's refusals, on any machine: software devices have no rdma-core objects, a PD that is not one of
 * jdoca's devices is refused, bad input is INVALID_VALUE. What it returns on an RDMA device (the PD, the lkey, the
 * rkey of an import, the round trip PD → device) is checked over rxe0 in the Soft-RoCE guest by the verbs conformance
 * suite ({@code VerbsConformanceTest.rdmaBridgeGivesThePdAndTheMemoryKeys}).
 */
class RdmaBridgeTest {
    private static DocaError code(Runnable r) {
        try {
            r.run();
        } catch (DocaException e) {
            return e.error();
        }
        throw new AssertionError("no DocaException");
    }

    @Test
    void aSoftwareDeviceHasNoProtectionDomainNorMemoryKeys() {
        Dev sw = Devices.open("sw0");
        assertThat(code(() -> RdmaBridge.getDevPd(sw))).isEqualTo(DocaError.NOT_SUPPORTED);
        try (Arena a = Arena.ofConfined()) {
            MemoryMap m = MemoryMap.create();
            m.setMemrange(a.allocate(4096));
            m.addDev(sw);
            m.setPermissions(AccessFlags.LOCAL_READ_WRITE);
            assertThat(m.start()).isEqualTo(DocaError.SUCCESS);
            BufInventory inv = BufInventory.create(2);
            inv.start();
            Buf b = inv.getByArgs(m, m.baseAddress(), 64, m.baseAddress(), 0);
            assertThat(code(() -> RdmaBridge.getBufMkey(b, sw))).isEqualTo(DocaError.NOT_SUPPORTED);
            assertThat(code(() -> RdmaBridge.getBufMkey(b, null))).isEqualTo(DocaError.INVALID_VALUE);
            assertThat(code(() -> RdmaBridge.getBufMkey(null, sw))).isEqualTo(DocaError.INVALID_VALUE);
            m.close();
        }
    }

    @Test
    void aForeignOrNullProtectionDomainIsRefusedInOneLine() {
        assertThat(code(() -> RdmaBridge.openDevFromPd(null))).isEqualTo(DocaError.INVALID_VALUE);
        assertThat(code(() -> RdmaBridge.openDevFromPd(MemorySegment.NULL))).isEqualTo(DocaError.INVALID_VALUE);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment notAPd = a.allocate(64);
            assertThatThrownBy(() -> RdmaBridge.openDevFromPd(notAPd)).isInstanceOf(DocaException.class)
                    .hasMessageContaining("not the protection domain of a jdoca device").hasMessageNotContaining("\n");
            assertThat(code(() -> RdmaBridge.getDevPd(null))).isEqualTo(DocaError.INVALID_VALUE);
        }
    }
}
