package io.jdoca.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.rdma.wire.RdmaConnectionBlob;
import io.jdoca.rdma.wire.VerbsQpInfo;
import java.net.InetAddress;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Issue 29 item 3: which addresses a peer's connection blob may make this process reach. No sockets. */
class RdmaPeerAddressesTest {
    private static final InetAddress LO = InetAddress.ofLiteral("127.0.0.1");
    private static final InetAddress REMOTE = InetAddress.ofLiteral("192.0.2.10");

    private static RdmaConnectionBlob tcp(String host) {
        return new RdmaConnectionBlob(2, 1, 0, 1, UUID.randomUUID(), 4000, host, "", 0, 0);
    }

    private static RdmaConnectionBlob verbs(byte[] gid) {
        return new RdmaConnectionBlob(3, 1, 0, 1, UUID.randomUUID(), 0, "", "", 0, 0,
                new VerbsQpInfo(1, 1, gid, 0, 1, 3, 2, 0, 0));
    }

    @Test
    void hostNamesAreRefusedEvenWithoutAList() {
        assertThat(RdmaPeerAddresses.refusal(tcp("localhost"), false, null)).contains("'localhost', not an IP address");
        assertThat(RdmaPeerAddresses.refusal(tcp("storage.example\n"), false, null)).contains("'storage.example?'");
        assertThat(RdmaPeerAddresses.refusal(tcp("10.1.2.3"), false, null)).isNull();
        assertThat(RdmaPeerAddresses.refusal(tcp("::1"), false, null)).isNull();
    }

    @Test
    void onlyTheListedAddressItselfIsDialled() {
        assertThat(RdmaPeerAddresses.refusal(tcp("127.0.0.1"), false, List.of(LO))).isNull();
        assertThat(RdmaPeerAddresses.refusal(tcp("127.0.0.2"), false, List.of(LO))).contains("127.0.0.2:4000")
                .contains("not the control peer's address (127.0.0.1)");
        assertThat(RdmaPeerAddresses.refusal(tcp("192.0.2.10"), false, List.of(REMOTE))).isNull();
        assertThat(RdmaPeerAddresses.refusal(tcp("192.0.2.11"), false, List.of(REMOTE))).isNotNull();
        assertThat(RdmaPeerAddresses.refusal(tcp("192.0.2.11"), false, List.of(REMOTE,
                InetAddress.ofLiteral("192.0.2.11"))))
                .isNull();
    }

    @Test
    void aSameHostClaimIsDialledOnLoopbackOnlyForALocalControlPeer() {
        assertThat(RdmaPeerAddresses.refusal(tcp("192.0.2.99"), true, List.of(LO))).isNull();
        assertThat(RdmaPeerAddresses.refusal(tcp("192.0.2.10"), true, List.of(REMOTE))).contains("boot id");
    }

    @Test
    void verbsGidsAreCheckedLikeAddresses() {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = (byte) 192;
        mapped[14] = 2;
        mapped[15] = 10;
        assertThat(RdmaPeerAddresses.refusal(verbs(mapped), false, List.of(REMOTE))).isNull();
        mapped[15] = 11;
        assertThat(RdmaPeerAddresses.refusal(verbs(mapped), false, List.of(REMOTE))).contains("GID 192.0.2.11");
        byte[] linkLocal = new byte[16];
        linkLocal[0] = (byte) 0xfe;
        linkLocal[1] = (byte) 0x80;
        linkLocal[15] = 1;
        assertThat(RdmaPeerAddresses.refusal(verbs(linkLocal), false, List.of(REMOTE))).isNull();
    }
}
