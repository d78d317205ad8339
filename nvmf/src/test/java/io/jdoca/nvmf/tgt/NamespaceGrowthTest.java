package io.jdoca.nvmf.tgt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.sta.backend.NullBackend;
import io.jdoca.sta.nvmf.NvmfNamespace;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A namespace that grows with its back-end, without sockets: Identify Namespace tells the new
 * NSZE/NCAP/NUSE, Identify Controller announces the Namespace Attribute Changed notice (OAES bit 8),
 * and a controller queues the notice (type 02h, information 00h, log page 04h) once until the host
 * reads the Changed Namespace List, which lists the namespace once and is empty after the read.
 */
class NamespaceGrowthTest {
    private static final long MIB = 1 << 20;

    private static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void identifyTellsTheGrownSize() {
        NullBackend be = new NullBackend("n0", 8 * MIB);
        NvmfNamespace ns = new NvmfNamespace(1, 4096, be, 1) { };
        assertThat(le(IdentifyData.namespace(ns, new byte[16])).getLong(0)).isEqualTo(2048);
        assertThatThrownBy(() -> ns.grow(4096)).as("not beyond the back-end")
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(be.canGrow()).isTrue();
        be.grow(16 * MIB);
        ns.grow(4096);
        ByteBuffer id = le(IdentifyData.namespace(ns, new byte[16]));
        assertThat(id.getLong(0)).as("NSZE").isEqualTo(4096);
        assertThat(id.getLong(8)).as("NCAP").isEqualTo(4096);
        assertThat(id.getLong(16)).as("NUSE").isEqualTo(4096);
        assertThat(ns.sizeBlocks()).isEqualTo(4096);
        assertThatThrownBy(() -> ns.grow(2048)).as("never shrinks").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> be.grow(8 * MIB)).isInstanceOf(IllegalArgumentException.class);
        byte[] ctrl = IdentifyData.controller(new IdentifyData.ControllerParams(1, "s", "m", "nqn.a",
                IdentifyData.CNTRLTYPE_IO, 5, 128, 1, 8192, 1, true, false));
        assertThat(le(ctrl).getInt(92) & (1 << 8)).as("OAES: namespace attribute notices").isNotZero();
    }

    @Test
    void theNoticeIsQueuedOnceUntilTheHostReadsTheChangedList() {
        NvmfController c = new NvmfController(1, null, "nqn.host", new byte[16], null, 0, 4, "127.0.0.1:4420");
        assertThat(c.namespaceChanged(1)).as("not enabled (AEC bit 8 clear)").isFalse();
        assertThat(c.nextEvent()).isNull();
        assertThat(c.takeChangedNs()).containsExactly(1);
        c.setAec(1 << 8);
        assertThat(c.namespaceChanged(1)).isTrue();
        assertThat(c.nextEvent()).as("notice, namespace attribute changed, log page 04h")
                .isEqualTo((0x04 << 16) | 0x02);
        assertThat(c.namespaceChanged(1)).as("masked until the log is read").isFalse();
        assertThat(c.namespaceChanged(3)).isFalse();
        assertThat(c.changedNs()).as("read with RAE: kept").containsExactly(1, 3);
        assertThat(c.namespaceChanged(1)).as("still masked after a read with RAE").isFalse();
        List<Integer> changed = c.takeChangedNs();
        assertThat(changed).containsExactly(1, 3);
        ByteBuffer log = le(IdentifyData.changedNsList(changed));
        assertThat(log.getInt(0)).isEqualTo(1);
        assertThat(log.getInt(4)).isEqualTo(3);
        assertThat(log.getInt(8)).isZero();
        assertThat(le(IdentifyData.changedNsList(c.takeChangedNs())).getInt(0)).as("read clears it").isZero();
        assertThat(c.namespaceChanged(1)).as("the next change is notified again").isTrue();
    }
}
