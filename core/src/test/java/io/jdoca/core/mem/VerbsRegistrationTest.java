package io.jdoca.core.mem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaException;
import io.jdoca.verbs.VerbsConstants;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Core's memory registration on RDMA devices, the parts that run without one: DOCA permissions →
 * {@code IBV_ACCESS_*}, and the rkey in the RDMA export blob. The registration itself ({@code ibv_reg_mr} at
 * start, {@code ibv_dereg_mr} at stop) runs in the Soft-RoCE guest (VerbsConformanceTest: every map of the suite).
 */
class VerbsRegistrationTest {
    @Test
    void docaPermissionsMapToIbvAccessFlags() {
        assertThat(VerbsRegistration.ibvAccess(AccessFlags.LOCAL_READ_ONLY)).isZero();
        assertThat(VerbsRegistration.ibvAccess(AccessFlags.LOCAL_READ_WRITE))
                .isEqualTo(VerbsConstants.IBV_ACCESS_LOCAL_WRITE);
        assertThat(VerbsRegistration.ibvAccess(AccessFlags.RDMA_READ)).isEqualTo(VerbsConstants.IBV_ACCESS_REMOTE_READ);
        // verbs requires LOCAL_WRITE with REMOTE_WRITE / REMOTE_ATOMIC (ibv_reg_mr: EINVAL otherwise)
        assertThat(VerbsRegistration.ibvAccess(AccessFlags.RDMA_WRITE))
                .isEqualTo(VerbsConstants.IBV_ACCESS_REMOTE_WRITE | VerbsConstants.IBV_ACCESS_LOCAL_WRITE);
        assertThat(VerbsRegistration.ibvAccess(AccessFlags.RDMA_ATOMIC))
                .isEqualTo(VerbsConstants.IBV_ACCESS_REMOTE_ATOMIC | VerbsConstants.IBV_ACCESS_LOCAL_WRITE);
        assertThat(VerbsRegistration.ibvAccess(AccessFlags.ALL)).isEqualTo(VerbsConstants.IBV_ACCESS_LOCAL_WRITE
                | VerbsConstants.IBV_ACCESS_REMOTE_READ | VerbsConstants.IBV_ACCESS_REMOTE_WRITE
                | VerbsConstants.IBV_ACCESS_REMOTE_ATOMIC);
        assertThat(VerbsRegistration.ibvAccess(AccessFlags.ANY_PCI)).as("PCI flags have no verbs meaning").isZero();
    }

    @Test
    void rdmaExportCarriesTheRkeyAndOnlyWithTheVerbsFlag() {
        UUID host = UUID.randomUUID();
        MmapExport e = new MmapExport(MmapExport.Kind.RDMA, false, AccessFlags.ANY_RDMA, 1, 2, 0x1000, 4096, 0, host,
                0, 0,
                5, 6, true, 0xABCD1234);
        MmapExport d = MmapExport.decode(e.encode());
        assertThat(d).isEqualTo(e);
        assertThat(d.verbs()).isTrue();
        assertThat(d.rkey()).isEqualTo(0xABCD1234);
        MmapExport plain = new MmapExport(MmapExport.Kind.RDMA, false, AccessFlags.ANY_RDMA, 1, 2, 0x1000, 4096, 0,
                host, 0,
                0, 5, 6);
        byte[] b = plain.encode();
        assertThat(MmapExport.decode(b).verbs()).isFalse();
        b[68] = 1; // an rkey without the verbs flag: the reserved field is set
        assertThatThrownBy(() ->
                MmapExport.decode(b)).isInstanceOf(DocaException.class).hasMessageContaining("reserved");
        b[68] = 0;
        b[7] = 4; // unknown flag
        assertThatThrownBy(() -> MmapExport.decode(b)).isInstanceOf(DocaException.class).hasMessageContaining("flags");
    }

    @Test
    void anImportedVerbsExportGivesTheRemoteKeyAndALocalMapHasNone() {
        io.jdoca.core.dev.Dev dev = io.jdoca.core.dev.Devices.open("sw0");
        MmapExport e = new MmapExport(MmapExport.Kind.RDMA, false, AccessFlags.ANY_RDMA, 1, 2, 0x1000, 4096, 0,
                UUID.randomUUID(), 0, 0, 5, 6, true, 77);
        try (MemoryMap m = MemoryMap.createFromExport(e.encode(), dev)) {
            assertThat(m.verbsRemoteKey()).isEqualTo(77);
            assertThat(m.verbsLkey(dev.devInfo())).isEqualTo(-1);
        }
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined(); MemoryMap local = MemoryMap.create()) {
            local.setMemrange(a.allocate(4096));
            local.addDev(dev);
            local.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ);
            local.start();
            assertThat(local.isVerbsRegistered()).as("a software device registers nothing").isFalse();
            assertThat(MmapExport.decode(local.exportRdma(dev)).verbs()).isFalse();
        }
    }
}
