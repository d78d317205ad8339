package io.jdoca.storage.targetrdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** target-rdma's DOCA flags: examples/target-rdma.json parses, the command line wins. No sockets. */
class TargetRdmaAppFlagsTest {
    static final Path EXAMPLE = Path.of(System.getProperty("user.dir")).resolve(
            "../examples/target-rdma.json").normalize();

    @Test
    void theExampleFlagFileParsesAndTheCommandLineWins() {
        TargetRdmaApp app = new TargetRdmaApp();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString(), "--listen-port", "7001", "--sdk-log-level", "30");
        assertThat(app.device).isEqualTo("sw0");
        assertThat(app.flags.cpus).containsExactly(0);
        assertThat(app.listenPort).isEqualTo(7001);
        assertThat(app.blockSize).isEqualTo(4096);
        assertThat(app.blockCount).isEqualTo(1024);
        assertThat(app.listenAddress).isEqualTo("127.0.0.1");
        assertThat(app.durability).isEqualTo("session");
        assertThat(app.flags.logLevel).isEqualTo(40);
        assertThat(app.flags.argp.json()).isEqualTo(EXAMPLE);
        assertThat(app.flags.argp.sdkLogLevel()).isEqualTo(30);
    }

    /** Issue 16 item 7: a CPU this process cannot run on is one line (fails on main: --cpu was only a label). */
    @Test
    void anOutOfRangeCpuIsOneLine() {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream old = System.err;
        System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        int rc;
        try {
            rc = new CommandLine(new TargetRdmaApp()).execute("-d", "sw0", "--cpu", "4000", "--listen-port", "0");
        } finally {
            System.setErr(old);
        }
        String out = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(rc).as(out).isEqualTo(1);
        var lines = out.lines().filter(l -> !l.isBlank() && !l.startsWith("SLF4J")).toList();
        assertThat(lines).as(out).hasSize(1);
        assertThat(lines.getFirst()).startsWith(
                "target-rdma: --cpu: CPU 4000 is out of range (this process may run on ");
    }

    static java.util.List<String> runWithStderr(String... args) {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        java.io.PrintStream old = System.err;
        System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        int rc;
        try {
            rc = new CommandLine(new TargetRdmaApp()).execute(args);
        } finally {
            System.setErr(old);
        }
        String out = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(rc).as(out).isEqualTo(1);
        return out.lines().filter(l -> !l.isBlank() && !l.startsWith("SLF4J")).toList();
    }

    /**
     * Issue 16: bad --metrics-port/--metrics-address values, and a port already taken, are one line
     * naming the flag and exit 1 before the target listens (fails on main: no such flags, picocli's
     * usage dump and exit 2).
     */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void badMetricsFlagsAreOneLine() throws Exception {
        assertThat(runWithStderr("-d", "sw0", "--cpu", "0", "--listen-port", "0", "--metrics-port", "70000"))
                .containsExactly("target-rdma: --metrics-port: 70000 is out of range 0..65535");
        assertThat(runWithStderr("-d", "sw0", "--cpu", "0", "--listen-port", "0", "--metrics-port", "0",
                "--metrics-address", "metrics.example")).containsExactly(
                "target-rdma: --metrics-address: 'metrics.example' is not an IP address (give an IPv4 or IPv6"
                + " literal, or localhost)");
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            var lines = runWithStderr("-d", "sw0", "--cpu", "0", "--listen-port", "0", "--metrics-port",
                    Integer.toString(taken.getLocalPort()));
            assertThat(lines).hasSize(1);
            assertThat(lines.getFirst()).startsWith("target-rdma: --metrics-port " + taken.getLocalPort()
                    + ": cannot listen on 127.0.0.1: ");
        }
    }

    @Test
    void usageShowsDocasGeneralFlags() {
        assertThat(new CommandLine(new TargetRdmaApp()).getUsageMessage())
                .contains("-j, --json=<path>", "--sdk-log-level=<10..70>", "-v, --version", "-l, --log-level");
    }

    @Test
    void peerTimeoutSetsTheSilenceTimeoutAndRejectsOutOfRangeValues() {
        long saved = io.jdoca.core.PeerLiveness.timeoutMillis();
        try {
            new CommandLine(new TargetRdmaApp()).parseArgs("-d", "sw0", "--cpu", "0", "--listen-port", "0",
                    "--peer-timeout-ms", "45000");
            assertThat(io.jdoca.core.PeerLiveness.timeoutMillis()).isEqualTo(45000);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new CommandLine(new TargetRdmaApp())
                    .parseArgs("-d", "sw0", "--cpu", "0", "--listen-port", "0", "--peer-timeout-ms", "0"))
                    .isInstanceOf(CommandLine.ParameterException.class)
                    .hasMessageContaining("--peer-timeout-ms: 0 is outside");
            assertThat(new CommandLine(new TargetRdmaApp()).getUsageMessage()).contains("--peer-timeout-ms=MS");
        } finally {
            io.jdoca.core.PeerLiveness.setTimeoutMillis(saved);
        }
    }

    /**
     * Issue 31 item 5: {@code -g/--gid-index} (DOCA's RDMA samples' flag) reaches the service's
     * configuration; without it the device's default (-1).
     */
    @Test
    void gidIndexReachesTheConfig() {
        TargetRdmaApp app = new TargetRdmaApp();
        new CommandLine(app).parseArgs("-d", "sw0", "--cpu", "0", "--listen-port", "0", "-g", "2");
        assertThat(app.config().gidIndex()).isEqualTo(2);
        app = new TargetRdmaApp();
        new CommandLine(app).parseArgs("-d", "sw0", "--cpu", "0", "--listen-port", "0", "--gid-index", "0");
        assertThat(app.config().gidIndex()).isZero();
        app = new TargetRdmaApp();
        new CommandLine(app).parseArgs("-d", "sw0", "--cpu", "0", "--listen-port", "0");
        assertThat(app.config().gidIndex()).isEqualTo(-1);
        assertThat(new CommandLine(new TargetRdmaApp()).getUsageMessage()).contains("-g, --gid-index=N");
    }

    /** A GID index below -1 (or above 255) is one line naming the flag and exit 1, before the target listens. */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aBadGidIndexIsOneLine() {
        assertThat(runWithStderr("-d", "sw0", "--cpu", "0", "--listen-port", "0", "-g", "-2")).containsExactly(
                "target-rdma: --gid-index: -2 is not a GID index (0..255, or -1 for the device's default)");
        assertThat(runWithStderr("-d", "sw0", "--cpu", "0", "--listen-port", "0", "--gid-index", "256"))
                .containsExactly("target-rdma: --gid-index: 256 is not a GID index (0..255, or -1 for the device's"
                        + " default)");
    }
}
