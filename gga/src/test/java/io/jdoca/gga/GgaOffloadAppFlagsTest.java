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
}
