package io.jdoca.rdma.samples;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.dev.Devices;
import io.jdoca.rdma.RdmaTransportType;
import java.net.InetAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link RdmaSamplesTest}'s pairs on the verbs transport over an RDMA device ({@code rxe0} in the Soft-RoCE guest,
 * run there by {@code VerbsConformanceVmTest} through {@code VerbsConformanceMain}); skipped without one. The
 * read pair, and one more, through rdma_cm on the device's IPv4 address.
 */
class RdmaSamplesVerbsTest {
    static String device() {
        for (DevInfo i : Devices.list()) {
            if (i.isVerbs()) {
                return i.name();
            }
        }
        return null;
    }

    @ParameterizedTest(name = "{0} on verbs")
    @EnumSource(RdmaSamplesTest.Pair.class)
    @Timeout(300)
    void everyPairCompletesAndVerifiesOnVerbs(RdmaSamplesTest.Pair p, @TempDir Path dir) throws Exception {
        String dev = device();
        assumeTrue(dev != null, "SKIPPED: no RDMA device; the verbs sample pairs run in the Soft-RoCE guest");
        // The read responder's context grants only RDMA_READ, so its QP refuses the requester's goodbye write;
        // with descriptor files it learns of the end from the requester's pid (gone when that process exits),
        // which two threads of this JVM cannot show: this pair connects through rdma_cm (DISCONNECTED) instead.
        InetAddress cm = p == RdmaSamplesTest.Pair.READ ? io.jdoca.rdma.VerbsCmAddress.of(dev) : null;
        RdmaSamplesTest.verify(p, RdmaTransportType.VERBS,
                RdmaSamplesTest.run(p, dev, RdmaTransportType.VERBS, dir, cm, 120_000));
    }

    @Test
    @Timeout(300)
    void aPairConnectsThroughRdmaCm(@TempDir Path dir) throws Exception {
        String dev = device();
        assumeTrue(dev != null, "SKIPPED: no RDMA device");
        InetAddress a = io.jdoca.rdma.VerbsCmAddress.of(dev);
        RdmaSamplesTest.verify(RdmaSamplesTest.Pair.SEND_RECEIVE, RdmaTransportType.VERBS,
                RdmaSamplesTest.run(RdmaSamplesTest.Pair.SEND_RECEIVE, dev, RdmaTransportType.VERBS, dir, a, 120_000));
    }
}
