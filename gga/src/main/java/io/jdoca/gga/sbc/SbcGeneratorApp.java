package io.jdoca.gga.sbc;

import io.jdoca.argp.DocaArgpFlags;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.storage.common.AppSupport;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca sbc-generator}: DOCA's {@code doca_storage_gga_offload_sbc_generator} (reference
 * §3): turns a plain file into the three {@code .sbc} files the GGA targets load.
 */
@Command(name = "sbc-generator",
        description = "Generates the data_1, data_2 and data_p .sbc files of a GGA offload set-up from a plain file.")
public final class SbcGeneratorApp implements Callable<Integer> {
    /** DOCA's general flags: -h, -v, --sdk-log-level, -j/--json. */
    @Mixin
    DocaArgpFlags argp;

    @Option(names = {"-d", "--device"}, defaultValue = "sw0",
            description = "Device identifier (default ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--original-input-data", required = true, description = "The plain input file.")
    Path input;

    @Option(names = "--data-1", required = true, description = "Output .sbc for the data_1 target.")
    Path data1;

    @Option(names = "--data-2", required = true, description = "Output .sbc for the data_2 target.")
    Path data2;

    @Option(names = "--data-p", required = true, description = "Output .sbc for the data_p (parity) target.")
    Path dataP;

    @Option(names = "--block-size", defaultValue = "4096",
            description = "Initiator block size B (multiple of 64; B/2 must be too, for doca_ec; default "
                    + "${DEFAULT-VALUE}).")
    int blockSize;

    @Option(names = "--matrix-type", defaultValue = "vandermonde",
            description = "cauchy | vandermonde (default ${DEFAULT-VALUE}).")
    String matrixType;

    @Option(names = {"-l", "--log-level"}, defaultValue = "40",
            description = "DOCA log level 10..70 (default ${DEFAULT-VALUE}).")
    int logLevel;

    @Override
    public Integer call() {
        return AppSupport.runApp("sbc-generator", logLevel, argp, () -> {
            try (Dev dev = Devices.open(device)) {
                SbcGenerator.Result r = SbcGenerator.generate(dev, input, data1, data2, dataP, blockSize,
                        EcMatrixType.parse(matrixType));
                System.out.printf(Locale.ROOT, "sbc-generator: %d blocks of %d bytes (%d input bytes, LZ4 ratio %.2f)"
                        + " -> 3 files of %d x %d bytes%n", r.blockCount(), r.blockSize(), r.inputBytes(), r.ratio(),
                        r.blockCount(), r.blockSize() / 2);
            }
            return 0;
        });
    }
}
