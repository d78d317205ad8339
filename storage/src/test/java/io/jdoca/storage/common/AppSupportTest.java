package io.jdoca.storage.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * {@code --listen-address} and {@code --metrics-address}: literals only (never a DNS lookup), one clear line naming the
 * flag.
 */
class AppSupportTest {
    @Test
    void listenAddressLiterals() throws Exception {
        assertThat(AppSupport.parseListenAddress("--listen-address",
                null)).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(AppSupport.parseListenAddress("--listen-address", "")).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(AppSupport.parseListenAddress("--listen-address",
                "127.0.0.1")).isEqualTo(InetAddress.getByName("127.0.0.1"));
        assertThat(AppSupport.parseListenAddress("--listen-address", "::1").isLoopbackAddress()).isTrue();
        assertThat(AppSupport.parseListenAddress("--listen-address", "[::1]").isLoopbackAddress()).isTrue();
        assertThat(AppSupport.parseListenAddress("--listen-address", "0.0.0.0").isAnyLocalAddress()).isTrue();
        assertThat(AppSupport.parseListenAddress("--listen-address", "localhost").isLoopbackAddress()).isTrue();
    }

    @Test
    void namesAreRefusedWithTheFlag() {
        for (String bad : new String[] {"foo.example", "127.0.0.256", "::g", "host:80"}) {
            assertThatThrownBy(() -> AppSupport.parseListenAddress("--listen-address", bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--listen-address: '" + bad + "' is not an IP address (give an IPv4 or IPv6 literal, or"
                            + " localhost)");
        }
    }

    /** One parser and one wording for every address flag: --metrics-address as --listen-address, but never empty. */
    @Test
    void metricsAddressSharesTheParserAndItsWording() {
        assertThat(AppSupport.parseIpAddress("--metrics-address", "localhost").isLoopbackAddress()).isTrue();
        for (String bad : new String[] {"", "foo.example", "127.0.0.256"}) {
            assertThatThrownBy(() -> AppSupport.parseIpAddress("--metrics-address", bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--metrics-address: '" + bad
                    + "' is not an IP address (give an IPv4 or IPv6 literal, or"
                            + " localhost)");
        }
    }

    /**
     * Issue 14: a software {@code -d} keeps every engine on that device; on a host without the RDMA
     * device {@code -d} names, the one line is "no device matches". (The verbs case, where Comch, DMA and
     * the GGA engines move to the representor's owner sw0, runs in the Soft-RoCE guest: VmDemoVerbsSystemTest.)
     */
    @Test
    void aSoftwareDeviceRunsEveryEngineAndAnUnknownOneIsOneLine() {
        try (io.jdoca.core.dev.Dev sw = io.jdoca.core.dev.Devices.open("sw0")) {
            assertThat(AppSupport.localDevice(sw, "hpf0")).isSameAs(sw);
            assertThat(AppSupport.localDevice(sw, null)).isSameAs(sw);
            assertThat(AppSupport.rdmaLine(sw)).isEqualTo("RDMA on sw0 (software transport)");
        }
        assertThatThrownBy(() -> io.jdoca.core.dev.Devices.open("nosuchrdma9"))
                .hasMessageStartingWith("no device matches 'nosuchrdma9' (see ./jdoca devices)");
    }
}
