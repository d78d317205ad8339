package io.jdoca.gga.sbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** sbc-generator's DOCA flags: examples/sbc-generator.json parses, the command line wins. */
class SbcGeneratorAppFlagsTest {
    static final Path EXAMPLE = Path.of(System.getProperty("user.dir")).resolve("../examples/sbc-generator.json")
            .normalize();

    @Test
    void theExampleFlagFileParsesAndTheCommandLineWins() {
        SbcGeneratorApp app = new SbcGeneratorApp();
        new CommandLine(app).parseArgs("--original-input-data", "other.bin", "-j", EXAMPLE.toString());
        assertThat(app.device).isEqualTo("sw0");
        assertThat(app.input).isEqualTo(Path.of("other.bin"));
        assertThat(app.data1).isEqualTo(Path.of("data_1.sbc"));
        assertThat(app.data2).isEqualTo(Path.of("data_2.sbc"));
        assertThat(app.dataP).isEqualTo(Path.of("data_p.sbc"));
        assertThat(app.blockSize).isEqualTo(4096);
        assertThat(app.matrixType).isEqualTo("vandermonde");
    }

    @Test
    void usageShowsDocasGeneralFlags() {
        assertThat(new CommandLine(new SbcGeneratorApp()).getUsageMessage())
                .contains("-j, --json=<path>", "--sdk-log-level=<10..70>", "-v, --version");
    }
}
