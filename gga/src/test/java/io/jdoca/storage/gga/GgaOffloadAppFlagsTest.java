package io.jdoca.storage.gga;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** gga-offload's DOCA flags: examples/gga-offload.json parses, the command line wins. No sockets. */
class GgaOffloadAppFlagsTest {
    static final Path EXAMPLE = Path.of(System.getProperty("user.dir")).resolve("../examples/gga-offload.json").normalize();

    @Test
    void theExampleFlagFileParsesAndTheCommandLineWins() {
        GgaOffloadApp app = new GgaOffloadApp();
        new CommandLine(app).parseArgs("-j", EXAMPLE.toString(), "--matrix-type", "cauchy", "-l", "50");
        assertThat(app.device).isEqualTo("sw0");
        assertThat(app.representor).isEqualTo("hpf0");
        assertThat(app.cpus).containsExactly(0);
        assertThat(app.data1).isEqualTo("127.0.0.1:7001");
        assertThat(app.data2).isEqualTo("127.0.0.1:7002");
        assertThat(app.dataP).isEqualTo("127.0.0.1:7003");
        assertThat(app.matrixType).isEqualTo("cauchy");
        assertThat(app.channelName).isEqualTo("doca_storage_comch");
        assertThat(app.controlTimeoutSeconds).isEqualTo(5);
        assertThat(app.recoverEveryN).isZero();
        assertThat(app.logLevel).isEqualTo(50);
    }

    @Test
    void usageShowsDocasGeneralFlags() {
        assertThat(new CommandLine(new GgaOffloadApp()).getUsageMessage())
                .contains("-j, --json=<path>", "--sdk-log-level=<10..70>", "-v, --version");
    }
}
