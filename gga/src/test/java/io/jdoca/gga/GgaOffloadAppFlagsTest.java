package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** gga-offload's DOCA flags: examples/gga-offload.json parses, the command line wins. No sockets. */
class GgaOffloadAppFlagsTest {
    static final Path EXAMPLE = Path.of(System.getProperty("user.dir")).resolve(
            "../examples/gga-offload.json").normalize();

    @Test
    void theExampleFlagFileParsesAndTheCommandLineWins() {
        GgaOffloadApp app = new GgaOffloadApp();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString(), "--matrix-type", "cauchy", "-l", "50");
        assertThat(app.device).isEqualTo("sw0");
        assertThat(app.comch.representor).isEqualTo("hpf0");
        assertThat(app.flags.cpus).containsExactly(0);
        assertThat(app.data1).isEqualTo("127.0.0.1:7001");
        assertThat(app.data2).isEqualTo("127.0.0.1:7002");
        assertThat(app.dataP).isEqualTo("127.0.0.1:7003");
        assertThat(app.matrixType).isEqualTo("cauchy");
        assertThat(app.comch.channelName).isEqualTo("gga_pipeline");
        assertThat(app.comch.listenAddress).isEqualTo("127.0.0.1");
        assertThat(app.comch.controlTimeoutSeconds).isEqualTo(5);
        assertThat(app.recoverEveryN).isZero();
        assertThat(app.flags.logLevel).isEqualTo(50);
    }

    @Test
    void usageShowsDocasGeneralFlags() {
        assertThat(new CommandLine(new GgaOffloadApp()).getUsageMessage())
                .contains("-j, --json=<path>", "--sdk-log-level=<10..70>", "-v, --version");
    }

    /**
     * Issue 16: {@code --cpu} pins the workers, so a CPU this process may not run on is one clear line
     * and exit 1 before anything is created (fails on main: the CPU was not checked and the app went on
     * to open its device and channel).
     */
    @Test
    @Timeout(30)
    void anOutOfRangeCpuIsOneLineAndExitOne() {
        io.jdoca.testkit.CapturedStderr run = io.jdoca.testkit.CapturedStderr.run(() ->
                new CommandLine(new GgaOffloadApp()).execute(
                "-j", EXAMPLE.toString(), "--cpu", "99999", "--command-channel-name", "jdoca-cpu-test-"
                + ProcessHandle.current().pid()));
        String text = run.text();
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(text).startsWith("gga-offload: --cpu: CPU 99999 is out of range (this process may run on ");
        assertThat(text.lines()).hasSize(1);
    }

    /** Issue 31 item 5: {@code -g/--gid-index} reaches the service's configuration (default -1: the device's). */
    @Test
    void gidIndexReachesTheConfig() {
        GgaOffloadApp app = new GgaOffloadApp();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString(), "--gid-index", "1");
        assertThat(app.config().gidIndex()).isEqualTo(1);
        app = new GgaOffloadApp();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString());
        assertThat(app.config().gidIndex()).isEqualTo(-1);
        assertThat(new CommandLine(new GgaOffloadApp()).getUsageMessage()).contains("-g, --gid-index=N");
    }

    /** A GID index below -1 is one line naming the flag and exit 1, before the service opens anything. */
    @Test
    @Timeout(30)
    void aBadGidIndexIsOneLineAndExitOne() {
        io.jdoca.testkit.CapturedStderr run = io.jdoca.testkit.CapturedStderr.run(() ->
                new CommandLine(new GgaOffloadApp()).execute("-j", EXAMPLE.toString(), "-g", "-2"));
        assertThat(run.exitCode()).as(run.text()).isEqualTo(1);
        assertThat(run.text()).isEqualTo(
                "gga-offload: --gid-index: -2 is not a GID index (0..255, or -1 for the device's default)");
    }

    /**
     * gga-offload's RDMA contexts (io_data and io_control of each target) are made with the worker's GID
     * index ({@link GgaWorkerContexts#createRdma}); -1 leaves the device's default.
     */
    @Test
    void theWorkersRdmaContextsGetTheGidIndex() {
        try (io.jdoca.core.dev.Dev sw = io.jdoca.core.dev.Devices.open("sw0")) {
            for (int gid : new int[] {4, -1}) {
                GgaWorker.Config cfg = new GgaWorker.Config(0, sw, sw, null, 4, 0, null, null, 0, null,
                        io.jdoca.ec.EcMatrixType.VANDERMONDE, 0, null, java.net.InetAddress.getLoopbackAddress(), gid);
                assertThat(GgaWorkerContexts.createRdma(cfg).gidIndex()).isEqualTo(gid);
            }
        }
    }
}
