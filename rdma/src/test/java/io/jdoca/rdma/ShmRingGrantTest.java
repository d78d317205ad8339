package io.jdoca.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.rdma.wire.RdmaConnectionBlob;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 item 1, shm transport: a connection blob names its ring by region id and carries the
 * ring's capability; a blob with another capability (or a path) cannot attach to the ring.
 */
class ShmRingGrantTest {

    @Test
    void aConnectionBlobWithAWrongRingCapabilityIsRefused() {
        try (Side a = new Side(RdmaTransportType.SHM); Side b = new Side(RdmaTransportType.SHM)) {
            a.rdma.start();
            b.rdma.start();
            RdmaExport xa = a.rdma.export();
            RdmaExport xb = b.rdma.export();
            RdmaConnectionBlob peer = RdmaConnectionBlob.decode(xb.blob());
            assertThat(peer.shmRegion()).matches("[0-9]+-[0-9]+");
            assertThat(peer.ringCap0() | peer.ringCap1()).isNotZero();
            byte[] forged = new RdmaConnectionBlob(peer.transport(), peer.pid(), peer.permissions(), peer.nonce(),
                    peer.hostId(), peer.tcpPort(), peer.host(), peer.shmRegion(), peer.ringCap0() + 1,
                            peer.ringCap1()).encode();
            assertThat(a.rdma.connect(forged, xa.connection())).isEqualTo(DocaError.NOT_PERMITTED);
            RdmaExport xa2 = a.rdma.export();
            byte[] byPath = new RdmaConnectionBlob(peer.transport(), peer.pid(), peer.permissions(), peer.nonce(),
                    peer.hostId(), peer.tcpPort(), peer.host(), "/etc/passwd", peer.ringCap0(),
                            peer.ringCap1()).encode();
            assertThat(a.rdma.connect(byPath, xa2.connection())).isIn(DocaError.INVALID_VALUE, DocaError.NOT_FOUND);
        }
    }
}
