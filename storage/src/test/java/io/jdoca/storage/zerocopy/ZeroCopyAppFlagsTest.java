package io.jdoca.storage.zerocopy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** zero-copy's DOCA flags: examples/zero-copy.json parses, the command line wins. No sockets. */
class ZeroCopyAppFlagsTest {
    static final Path EXAMPLE = Path.of(System.getProperty("user.dir")).resolve(
            "../examples/zero-copy.json").normalize();

    @Test
    void theExampleFlagFileParsesAndTheCommandLineWins() {
        ZeroCopyApp app = new ZeroCopyApp();
        new CommandLine(app).parseArgs("--cpu", "0", "--cpu", "1", "--json", EXAMPLE.toString());
        assertThat(app.device).isEqualTo("sw0");
        assertThat(app.comch.representor).isEqualTo("hpf0");
        assertThat(app.flags.cpus).containsExactly(0, 1);
        assertThat(app.storageServer).isEqualTo("127.0.0.1:12345");
        assertThat(app.comch.channelName).isEqualTo("zero_copy_pipeline");
        assertThat(app.comch.listenAddress).isEqualTo("127.0.0.1");
        assertThat(app.comch.controlTimeoutSeconds).isEqualTo(5);
        assertThat(app.flags.argp.sdkLogLevel()).isNull();
    }

    @Test
    void usageShowsDocasGeneralFlags() {
        assertThat(new CommandLine(new ZeroCopyApp()).getUsageMessage())
                .contains("-j, --json=<path>", "--sdk-log-level=<10..70>", "-v, --version");
    }

    /** Issue 31 item 5: {@code -g/--gid-index} reaches the relay's configuration (default -1: the device's). */
    @Test
    void gidIndexReachesTheConfig() {
        ZeroCopyApp app = new ZeroCopyApp();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString(), "-g", "3");
        assertThat(app.config().gidIndex()).isEqualTo(3);
        app = new ZeroCopyApp();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString());
        assertThat(app.config().gidIndex()).isEqualTo(-1);
        assertThat(new CommandLine(new ZeroCopyApp()).getUsageMessage()).contains("-g, --gid-index=N");
    }

    /** A GID index below -1 is one line naming the flag and exit 1, before the relay opens anything. */
    @Test
    @org.junit.jupiter.api.Timeout(60)
    void aBadGidIndexIsOneLineAndExitOne() {
        io.jdoca.testkit.CapturedStderr run = io.jdoca.testkit.CapturedStderr.run(() ->
                new CommandLine(new ZeroCopyApp()).execute("-j", EXAMPLE.toString(), "--gid-index", "-2"));
        assertThat(run.exitCode()).as(run.text()).isEqualTo(1);
        assertThat(run.text()).isEqualTo(
                "zero-copy: --gid-index: -2 is not a GID index (0..255, or -1 for the device's default)");
    }
}
