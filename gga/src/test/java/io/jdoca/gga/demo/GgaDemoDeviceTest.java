package io.jdoca.gga.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14: {@code ./jdoca demo -d DEV} with a device this host does not have (the host has no RDMA
 * device; {@code -d rxe0} exists only in the Soft-RoCE guest) is one line and exit 2, before any child
 * process starts. No sockets, no processes.
 */
class GgaDemoDeviceTest {
    @Test
    @Timeout(30)
    void anUnknownDeviceIsOneLineAndExitTwo() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int rc = GgaDemo.run(new PrintStream(b, true, StandardCharsets.UTF_8), "nosuchrdma9");
        String text = b.toString(StandardCharsets.UTF_8);
        assertThat(rc).isEqualTo(2);
        assertThat(text).startsWith("demo: no device matches 'nosuchrdma9' (see ./jdoca devices)");
        assertThat(text.lines()).hasSize(1);
    }
}
