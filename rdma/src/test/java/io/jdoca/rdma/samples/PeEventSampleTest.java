package io.jdoca.rdma.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.rdma.RdmaTransportType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The pe-event sample (doca-core §3.4.5): one epoll over two engines' notification handles and a socket carries
 * every message across and wakes for each source, on the shm and tcp transports.
 */
class PeEventSampleTest {
    @ParameterizedTest
    @EnumSource(value = RdmaTransportType.class, names = {"SHM", "TCP"})
    @Timeout(120)
    void oneEpollDrivesTwoEnginesAndASocket(RdmaTransportType t) {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        int rc = PeEventSample.run("sw0", t, -1, 20, new PrintStream(bo, true, StandardCharsets.UTF_8));
        String out = bo.toString(StandardCharsets.UTF_8);
        assertThat(rc).as(out).isZero();
        assertThat(out).contains("20 of 20 messages from engine a to engine b over " + t + ", every one intact");
        // each source woke the loop at least once
        assertThat(out).containsPattern("woke [1-9][0-9]* times for engine a, [1-9][0-9]* for engine b, "
                + "[1-9][0-9]* for the socket");
    }
}
