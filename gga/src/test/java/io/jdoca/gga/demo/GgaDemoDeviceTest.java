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
 * process starts; so is a bad {@code -g}. No sockets, no processes.
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

    /**
     * Issue 31 item 5: the demos pass {@code -g} on to the apps that get {@code -d}; a value no app would
     * take is one line and exit 2 before any child starts (gga and zero-copy alike).
     */
    @Test
    @Timeout(30)
    void aBadGidIndexIsOneLineAndExitTwo() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int rc = GgaDemo.run(new PrintStream(b, true, StandardCharsets.UTF_8), "sw0", -2);
        assertThat(rc).isEqualTo(2);
        assertThat(b.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "demo: --gid-index: -2 is not a GID index (0..255, or -1 for the device's default)");
        b.reset();
        rc = io.jdoca.storage.demo.ZeroCopyDemo.run(new PrintStream(b, true, StandardCharsets.UTF_8), "sw0", true,
                256);
        assertThat(rc).isEqualTo(2);
        assertThat(b.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "demo: --gid-index: 256 is not a GID index (0..255, or -1 for the device's default)");
        assertThat(io.jdoca.storage.demo.DemoSettings.gidArgs(-1)).isEmpty();
        assertThat(io.jdoca.storage.demo.DemoSettings.gidArgs(2)).containsExactly("-g", "2");
    }
}
