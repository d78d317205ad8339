package io.jdoca.bench.rdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * {@link Perftest#parse}: the client outputs of ib_write_bw and ib_read_lat captured in the Soft-RoCE guest
 * (perftest 6.06, rxe0, the exact commands of {@code ./jdoca bench rdma -d rxe0}), malformed
 * outputs (a clear error naming the tool), and arbitrary text (only that error, never another exception).
 */
class PerftestTest {
    private static String resource(String name) throws IOException {
        try (InputStream in = PerftestTest.class.getResourceAsStream("/perftest/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void ibWriteBwAverageBandwidthIsParsed() throws IOException {
        Map<String, Double> t = Perftest.parse("ib_write_bw", resource("ib_write_bw-rxe0.txt"));
        assertThat(t).containsKeys("#bytes", "#iterations", "BW peak[MB/sec]", "BW average[MB/sec]", "MsgRate[Mpps]");
        assertThat(t.get("#bytes")).isEqualTo(65536.0);
        assertThat(Perftest.column("ib_write_bw", t, "BW average[MB/sec]")).isCloseTo(WRITE_BW_AVG, within(1e-9));
    }

    @Test
    void ibReadLatTypicalMeanAndP99AreParsed() throws IOException {
        Map<String, Double> t = Perftest.parse("ib_read_lat", resource("ib_read_lat-rxe0.txt"));
        assertThat(t.get("#bytes")).isEqualTo(2.0);
        assertThat(Perftest.column("ib_read_lat", t, "t_typical[usec]")).isCloseTo(READ_TYPICAL, within(1e-9));
        assertThat(Perftest.column("ib_read_lat", t, "t_avg[usec]")).isCloseTo(READ_AVG, within(1e-9));
        assertThat(Perftest.column("ib_read_lat", t, "99% percentile[usec]")).isCloseTo(READ_P99, within(1e-9));
    }

    @Test
    void perftestsNanIsParsedAndAColumnWithoutAFigureIsAClearError() throws IOException {
        // ib_read_lat under TCG: "Correlation coefficient r^2: 0.875858 < 0.9" (its clock calibration) and t_stdev -nan
        Map<String, Double> t = Perftest.parse("ib_read_lat", resource("ib_read_lat-rxe0-nan.txt"));
        assertThat(t.get("t_stdev[usec]")).isNaN();
        assertThat(Perftest.column("ib_read_lat", t, "t_typical[usec]")).isCloseTo(63.05, within(1e-9));
        assertThat(Perftest.column("ib_read_lat", t, "99% percentile[usec]")).isCloseTo(4492.20, within(1e-9));
        assertThatThrownBy(() -> Perftest.column("ib_read_lat", t,
                "t_stdev[usec]")).isInstanceOf(Perftest.FormatException.class)
                .hasMessage("ib_read_lat: column 't_stdev[usec]' has no figure (NaN)");
    }

    @Test
    void outputWithoutAResultTableIsAClearError() {
        String out = " Unable to perform rdma_client function\n Unable to init the socket connection\n";
        assertThatThrownBy(() -> Perftest.parse("ib_write_bw", out)).isInstanceOf(Perftest.FormatException.class)
                .hasMessage("ib_write_bw: no result table (no '#bytes' header line) in its output: "
                        + "'Unable to perform rdma_client function'");
        assertThatThrownBy(() -> Perftest.parse("ib_read_lat", "")).isInstanceOf(Perftest.FormatException.class)
                .hasMessageContaining("(empty)");
    }

    @Test
    void aTruncatedResultLineIsAClearError() throws IOException {
        String out = resource("ib_read_lat-rxe0.txt");
        String cut = out.substring(0, out.indexOf('\n', out.indexOf("#bytes")) + 1) + " 2       1000          3.5\n";
        assertThatThrownBy(() -> Perftest.parse("ib_read_lat", cut)).isInstanceOf(Perftest.FormatException.class)
                .hasMessageStartingWith("ib_read_lat: result line has 3 fields, its header ");
    }

    @Test
    void aNonNumberInTheResultLineIsAClearError() {
        String out = " #bytes #iterations    t_typical[usec]\n 2       1000          fast\n";
        assertThatThrownBy(() -> Perftest.parse("ib_read_lat", out)).isInstanceOf(Perftest.FormatException.class)
                .hasMessage("ib_read_lat: result column 't_typical[usec]' is not a number: 'fast'");
    }

    @Test
    void aHeaderWithoutResultLineOrWithStrayTextIsAClearError() {
        assertThatThrownBy(() -> Perftest.parse("ib_write_bw", " #bytes #iterations BW average[MB/sec]\n\n"))
                .isInstanceOf(Perftest.FormatException.class).hasMessage("ib_write_bw: result header without a result "
                        + "line");
        assertThatThrownBy(() -> Perftest.parse("ib_write_bw",
                " #bytes #iterations BW average[MB/sec] junk\n 1 2 3 4\n"))
                .isInstanceOf(Perftest.FormatException.class).hasMessageContaining("text that is no column");
    }

    @Test
    void aMissingColumnIsAClearError() {
        Map<String, Double> t = Perftest.parse("ib_read_lat", " #bytes #iterations t_min[usec]\n 2 1000 3.0\n");
        assertThatThrownBy(() -> Perftest.column("ib_read_lat", t, "t_typical[usec]"))
                .isInstanceOf(Perftest.FormatException.class)
                .hasMessage("ib_read_lat: no column 't_typical[usec]' in its result table [#bytes, #iterations, "
                        + "t_min[usec]]");
    }

    @Property(tries = 500)
    void arbitraryOutputIsParsedOrRejectedWithAFormatException(@ForAll String noise, @ForAll boolean withHeader) {
        String out = withHeader ? " #bytes #iterations t_avg[usec]\n" + noise : noise;
        try {
            Map<String, Double> t = Perftest.parse("ib_read_lat", out);
            assertThat(t).isNotEmpty();
        } catch (Perftest.FormatException e) {
            assertThat(e.getMessage()).startsWith("ib_read_lat: ");
        }
    }

    // The figures in the captured outputs (test resources), read off by hand.
    private static final double WRITE_BW_AVG = 9.28;
    private static final double READ_TYPICAL = 102.26;
    private static final double READ_AVG = 206.83;
    private static final double READ_P99 = 4577.37;
}
