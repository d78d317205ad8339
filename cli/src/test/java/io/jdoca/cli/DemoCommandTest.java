package io.jdoca.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code ./jdoca demo}'s flag combinations that cannot run are refused before any child starts: one line on
 * stderr and exit 2 ({@code --quick} is for zero-copy, {@code -d} and {@code -g} for gga and zero-copy, an unknown
 * mode).
 * No process, socket or device is used.
 */
class DemoCommandTest {
    private static String[] run(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        int rc;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            rc = new CommandLine(new DemoCommand()).execute(args);
        } finally {
            System.setErr(old);
        }
        return new String[] {String.valueOf(rc), err.toString(StandardCharsets.UTF_8).strip()};
    }

    @Test
    void quickIsForZeroCopyOnly() {
        String[] r = run("--quick");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1]).isEqualTo("demo: --quick is for --mode zero-copy");
    }

    @Test
    void aDeviceIsForTheStoragePipelinesNotTheDmaSample() {
        String[] r = run("--mode", "dma", "-d", "rxe0");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1]).isEqualTo("demo: -d rxe0 is for --mode gga and zero-copy (the DMA sample runs on sw0)");
    }

    @Test
    void anUnknownModeIsOneLine() {
        String[] r = run("--mode", "nope");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1]).isEqualTo("demo: unknown --mode 'nope' (gga, zero-copy, dma)");
    }

    @Test
    void aGidIndexIsForTheStoragePipelinesNotTheDmaSample() {
        String[] r = run("--mode", "dma", "-g", "1");
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1]).isEqualTo("demo: -g is for --mode gga and zero-copy (the DMA sample has no RDMA)");
    }
}
