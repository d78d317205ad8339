package io.jdoca.verbs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.verbs.RdmaCm;
import io.jdoca.verbs.VerbsDevices;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Host-side checks of the rping sample; the wire itself is checked against rdma-core's rping in the VM test. */
class RpingTest {

    @Test
    void pingPrefixIsRpingsFormatWithoutAllocating() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(64);
            for (int ping : new int[] {0, 7, 10, 99, 12345, Integer.MAX_VALUE}) {
                int n = RpingText.formatPrefix(buf, ping, 64);
                String expected = String.format("rdma-ping-%d: ", ping);
                assertThat(n).isEqualTo(expected.length());
                assertThat(new String(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII))
                        .isEqualTo(expected);
                assertThat(buf.get(ValueLayout.JAVA_BYTE, n)).isZero();
            }
        }
    }

    /**
     * rping.c: {@code RPING_MIN_BUFSIZE = sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT)} = sizeof("INT_MAX") 8 +
     * sizeof("rdma-ping-%d: ") 15 = 23, and {@code snprintf(start_buf, size, ...)} cuts a longer prefix to size - 1
     * characters and a NUL, returning the full length.
     */
    @Test
    void sizesFrom23AreRpingsAndCutThePrefixAsSnprintf() {
        assertThat(Rping.Options.MIN_SIZE).isEqualTo("INT_MAX".length() + 1 + "rdma-ping-%d: ".length() + 1);
        assertThat(Rping.Options.MAX_SIZE).isEqualTo(65535);
        try (Arena a = Arena.ofConfined()) {
            for (int size : new int[] {23, 24, 25, 26}) {
                MemorySegment buf = a.allocate(size);
                buf.fill((byte) 'x');
                int n = RpingText.formatPrefix(buf, 123456789, size);
                String full = "rdma-ping-123456789: ";
                assertThat(n).isEqualTo(full.length());
                int kept = Math.min(full.length(), size - 1);
                assertThat(new String(buf.asSlice(0, kept).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII))
                        .isEqualTo(full.substring(0, kept));
                assertThat(buf.get(ValueLayout.JAVA_BYTE, kept)).isZero();
                assertThat(RpingText.strlen(buf)).isEqualTo(kept);
            }
        }
    }

    @Test
    void allocationBlocksReportTheLeastBlockAfterWarmUp() {
        RpingAllocation b = new RpingAllocation();
        assertThat(b.summary()).contains("too few pings");
        Object[] keep = new Object[4 * RpingAllocation.BLOCK];
        for (int i = 0; i < 4 * RpingAllocation.BLOCK; i++) {
            keep[i] = new byte[1024]; // every ping allocates: no block may report zero
            b.ping();
        }
        assertThat(keep[0]).isNotNull();
        assertThat(b.summary()).startsWith("allocation: ").doesNotStartWith("allocation: 0 bytes")
                .contains("last 1 blocks:").doesNotContain("last 1 blocks: 0;");
    }

    @Test
    void withoutAnRdmaDeviceTheSampleFailsWithOneLine() throws Exception {
        // On a machine with a device the CM would try to connect; this test is about the device-less path.
        org.junit.jupiter.api.Assumptions.assumeTrue(VerbsDevices.list().devices().isEmpty(),
                "this machine has an RDMA device: the device-less path is not reachable here");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // a closed loopback port: nothing may be reached; without a device rdma_cm fails before any packet
        Inet4Address lo = (Inet4Address) InetAddress.getByName("127.0.0.1");
        int rc = Rping.run(new Rping.Options(false, lo, 1, 1, 64, false, true, false, 5000, false),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isEqualTo(1);
        String e = err.toString(StandardCharsets.UTF_8).strip();
        assertThat(e).startsWith("rdma-rping: ").doesNotContain("\n").doesNotContain("Exception");
        if (!RdmaCm.isAvailable()) {
            assertThat(e).contains(RdmaCm.unavailableReason());
        }
    }
}
