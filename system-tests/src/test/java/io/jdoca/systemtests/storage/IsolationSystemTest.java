package io.jdoca.systemtests.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 29 items 4 and 5 across processes: the storage apps listen on 127.0.0.1 unless told
 * otherwise (checked in {@code /proc/net/tcp} while a session runs, RDMA listeners included); a second
 * service on a taken Comch channel exits at start naming the holder's pid; an initiator told which
 * service to expect refuses another one before sending it anything. Fails on the code before: the
 * target and the relay listened on 0.0.0.0; the second service failed after a warning without naming
 * anyone; there was no --expect-service and an initiator ran against whatever served the channel.
 */
class IsolationSystemTest {
    private static final Duration T = Duration.ofSeconds(120);
    private static final Pattern PORT = Pattern.compile("listening on TCP port (\\d+)\\R");

    private final List<JavaProcess> procs = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        for (JavaProcess p : procs) {
            p.close();
        }
    }

    private JavaProcess start(String name, List<String> args) throws IOException {
        JavaProcess p = JavaProcess.start(name, "io.jdoca.cli.Main", args);
        procs.add(p);
        return p;
    }

    /** A target with jdoca's defaults (no --listen-address) on a free port; returns its port. */
    private int target(String name) throws IOException {
        JavaProcess t = start(name, List.of("target-rdma", "-d", "sw0", "--cpu", "0", "--listen-port", "0",
                "--block-count", "256"));
        Matcher m = t.awaitMatch(PORT, T);
        return Integer.parseInt(m.group(1));
    }

    @Test
    void defaultListenersAreOnLoopbackOnly() throws Exception {
        int port = target("target-rdma");
        JavaProcess target = procs.getFirst();
        assertThat(target.output()).contains("target-rdma: control listener on 127.0.0.1 (this host only");
        String channel = "iso-" + UUID.randomUUID();
        JavaProcess relay = start("zero-copy", List.of("zero-copy", "-d", "sw0", "-r", "hpf0", "--cpu", "0",
                "--storage-server", "127.0.0.1:" + port, "--command-channel-name", channel));
        relay.awaitOutput("serving comch channel", T);
        JavaProcess ini = start("initiator-comch", List.of("initiator-comch", "-d", "sw0", "--cpu", "0",
                "--command-channel-name", channel, "--control-timeout", "20", "--execution-strategy",
                "read_throughput_test",
                "--run-limit-operation-count", "100000000", "--transaction-count", "8"));
        // Once the session's RDMA contexts exist, their listeners are open too (control + io_control + io_data).
        io.jdoca.testkit.Await.until(T, () -> Listeners.of(target.pid()).size() >= 3
                && Listeners.of(relay.pid()).size() >= 2,
                "the session's RDMA listeners\n" + target.output());
        List<String> t = Listeners.of(target.pid());
        List<String> r = Listeners.of(relay.pid());
        ini.terminate();
        ini.awaitExit(T);
        System.out.println("target-rdma listens on " + t + "; zero-copy on " + r);
        assertThat(t).as("target-rdma: control + io_control + io_data").hasSizeGreaterThanOrEqualTo(3)
                .contains("127.0.0.1:" + port).allMatch(a -> a.startsWith("127.0.0.1:"));
        assertThat(r).as("zero-copy: io_control + io_data").hasSizeGreaterThanOrEqualTo(2)
                .allMatch(a -> a.startsWith("127.0.0.1:"));
    }

    @Test
    void aSecondServiceOnATakenChannelExitsNamingTheHolderAndAnInitiatorRefusesAServiceItDidNotExpect()
            throws IOException {
        int port = target("target-rdma");
        String channel = "iso-" + UUID.randomUUID();
        JavaProcess first = start("zero-copy A", List.of("zero-copy", "-d", "sw0", "-r", "hpf0", "--cpu", "0",
                "--storage-server", "127.0.0.1:" + port, "--command-channel-name", channel));
        first.awaitOutput("serving comch channel", T);

        // A second pipeline's gateway on the same name: its own (unreachable) targets are never dialled.
        JavaProcess second = start("gga-offload B", List.of("gga-offload", "-d", "sw0", "-r", "hpf0", "--cpu", "0",
                "--data-1-storage", "127.0.0.1:1", "--data-2-storage", "127.0.0.1:2", "--data-p-storage", "127.0.0.1:3",
                "--command-channel-name", channel, "--dirty-log", "none"));
        int rc = second.awaitExit(T);
        System.out.println("second service: exit " + rc + ": " + second.output().lines()
                .filter(l -> l.startsWith("gga-offload: comch")).findFirst().orElse("?"));
        assertThat(rc).as(second.output()).isNotZero();
        assertThat(second.output()).contains("gga-offload: comch channel '" + channel
                + "' is already served by zero-copy (pid "
                + first.pid() + "); give this pipeline its own --command-channel-name");

        // An initiator that expects the gateway (by name, then by another pid) refuses the relay.
        for (String expected : new String[] {"gga-offload", Long.toString(first.pid() + 100_000)}) {
            JavaProcess ini = start("initiator " + expected, List.of("initiator-comch", "-d", "sw0", "--cpu", "0",
                    "--command-channel-name", channel, "--control-timeout", "20", "--execution-strategy",
                    "read_write_data_validity_test", "--expect-service", expected));
            assertThat(ini.awaitExit(T)).as(ini.output()).isEqualTo(1);
            assertThat(ini.output()).contains("initiator-comch: connected to zero-copy (pid " + first.pid()
                    + "): storage 127.0.0.1:" + port + ", 256 blocks of 4096 bytes on comch channel '" + channel + "'")
                    .contains("is served by zero-copy (pid " + first.pid() + "), not by the expected service '"
                    + expected
                            + "' (--expect-service); refusing to run (nothing was sent to it)")
                    .doesNotContain("Test passed");
        }
        assertThat(first.output()).as("the relay was never asked anything").doesNotContain("session with");

        // The expected one runs, and both ends name each other.
        JavaProcess ok = start("initiator ok", List.of("initiator-comch", "-d", "sw0", "--cpu", "0",
                "--command-channel-name", channel, "--control-timeout", "20", "--execution-strategy",
                "read_write_data_validity_test", "--expect-service", Long.toString(first.pid())));
        assertThat(ok.awaitExit(T)).as(ok.output()).isZero();
        assertThat(ok.output()).contains("Test passed");
        first.awaitOutput("zero-copy: session with initiator-comch (pid " + ok.pid()
                + "): read_write_data_validity_test,"
                + " 1 cores", T);
    }
}
