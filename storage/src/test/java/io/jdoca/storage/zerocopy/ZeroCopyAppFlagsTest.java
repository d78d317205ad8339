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
}
