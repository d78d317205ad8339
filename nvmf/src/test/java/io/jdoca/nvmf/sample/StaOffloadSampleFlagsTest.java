package io.jdoca.nvmf.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** sta-offload-sample's DOCA flags: examples/sta-offload-sample.json parses, the command line wins. No sockets. */
class StaOffloadSampleFlagsTest {
    static final Path EXAMPLE = Path.of(System.getProperty("user.dir"))
            .resolve("../examples/sta-offload-sample.json").normalize();

    @Test
    void theExampleFlagFileParsesAndTheCommandLineWins() {
        StaOffloadSample app = new StaOffloadSample();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString(), "--port", "4421");
        assertThat(app.sfDev).isEqualTo("sw0");
        assertThat(app.libLevel).isEqualTo(40);
        assertThat(app.appLevel).isEqualTo(50);
        assertThat(app.port).isEqualTo(4421);
        assertThat(app.nqn).isEqualTo("nqn.2024-01.io.jdoca:sample");
        assertThat(app.sizeMb).isEqualTo(64);
    }

    @Test
    void usageShowsDocasGeneralFlags() {
        assertThat(new CommandLine(new StaOffloadSample()).getUsageMessage())
                .contains("-j, --json=<path>", "--sdk-log-level=<10..70>", "-v, --version");
    }
}
