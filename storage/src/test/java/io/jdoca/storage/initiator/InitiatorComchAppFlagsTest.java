package io.jdoca.storage.initiator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/** initiator-comch's DOCA flags: examples/initiator-comch.json parses, the command line wins. No sockets. */
class InitiatorComchAppFlagsTest {
    static final Path EXAMPLE = Path.of(System.getProperty("user.dir")).resolve(
            "../examples/initiator-comch.json").normalize();

    @Test
    void theExampleFlagFileParsesAndTheCommandLineWins() {
        InitiatorComchApp app = new InitiatorComchApp();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString(), "--execution-strategy", "read_throughput_test",
                "--blocks-per-io", "2");
        assertThat(app.device).isEqualTo("sw0");
        assertThat(app.cpus).containsExactly(0);
        assertThat(app.strategy).isEqualTo("read_throughput_test");
        assertThat(app.runLimit).isEqualTo(1_000_000L);
        assertThat(app.transactionCount).isEqualTo(64);
        assertThat(app.blocksPerIo).isEqualTo(2);
        assertThat(app.controlTimeoutSeconds).isEqualTo(5);
        assertThat(app.logLevel).isEqualTo(40);
        assertThat(app.channelName).isEqualTo("zero_copy_pipeline");
        assertThat(app.expectService).isEqualTo("zero-copy");
    }

    @Test
    void usageShowsDocasGeneralFlags() {
        assertThat(new CommandLine(new InitiatorComchApp()).getUsageMessage())
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
                new CommandLine(new InitiatorComchApp()).execute(
                "-j", EXAMPLE.toString(), "--cpu", "99999", "--command-channel-name", "jdoca-cpu-test-"
                + ProcessHandle.current().pid()));
        String text = run.text();
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(text).startsWith("initiator-comch: --cpu: CPU 99999 is out of range (this process may run on ");
        assertThat(text.lines()).hasSize(1);
    }
}
