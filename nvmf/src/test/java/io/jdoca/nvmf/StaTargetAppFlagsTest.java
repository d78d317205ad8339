package io.jdoca.nvmf;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** sta-target keeps -j as its own configuration file and gains DOCA's -v and --sdk-log-level. No sockets. */
class StaTargetAppFlagsTest {
    static final Path EXAMPLE = Path.of(System.getProperty("user.dir"))
            .resolve("../examples/sta-target.json").normalize();

    @Test
    void minusJIsStillTheTargetConfigurationAndSdkLogLevelParses() {
        StaTargetApp app = new StaTargetApp();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString(), "--sdk-log-level", "60");
        assertThat(app.json).isEqualTo(EXAMPLE);
        assertThat(app.doca.sdkLogLevel()).isEqualTo(60);
        assertThat(app.logLevel).isEqualTo(50);
    }

    @Test
    void usageShowsDocasGeneralFlags() {
        assertThat(new CommandLine(new StaTargetApp()).getUsageMessage())
                .contains("-j, --json=<json>", "--sdk-log-level=<10..70>", "-v, --version", "-h, --help");
    }
}
