package io.jdoca.systemtests.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.storage.wire.ControlCodec;
import io.jdoca.storage.wire.ControlFrameDecoder;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * target-rdma and zero-copy as services (issue 12 item 4): they outlive their clients. Fails on
 * main: target-rdma exited 1 within 2 s of any client closing (even a bare connect-and-close), and
 * closed a second concurrent client without a word.
 */
class TargetServiceSystemTest {
    private static final Duration T = Duration.ofSeconds(90);

    private final List<JavaProcess> procs = new ArrayList<>();
    private int port;

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

    private JavaProcess target() throws IOException {
        port = JavaProcess.freePort();
        JavaProcess t = start("target-rdma", List.of("target-rdma", "-d", "sw0", "--cpu", "0", "--listen-address",
                "127.0.0.1",
                "--listen-port", String.valueOf(port), "--block-count", "64"));
        t.awaitOutput("listening on TCP port", T);
        return t;
    }

    private JavaProcess relay(String channel, boolean once) throws IOException {
        List<String> a = new ArrayList<>(List.of("zero-copy", "-d", "sw0", "-r", "hpf0", "--cpu", "0",
                "--storage-server",
                "127.0.0.1:" + port, "--command-channel-name", channel));
        if (once) {
            a.add("--once");
        }
        JavaProcess r = start("zero-copy", a);
        r.awaitOutput("serving comch channel", T);
        return r;
    }

    private String initiatorRun(String channel) throws IOException {
        JavaProcess ini = start("initiator-comch", List.of("initiator-comch", "-d", "sw0", "--cpu", "0",
                "--command-channel-name",
                channel, "--control-timeout", "20", "--execution-strategy", "read_write_data_validity_test",
                "--transaction-count", "8"));
        int rc = ini.awaitExit(T);
        assertThat(rc).as("initiator:\n%s", ini.output()).isZero();
        assertThat(ini.output()).contains("Test passed");
        return ini.output();
    }

    @Test
    void targetServesTwoRunsThroughARelayRestartWithABareConnectInBetween() throws IOException {
        JavaProcess target = target();
        String ch1 = "svc-" + UUID.randomUUID();
        JavaProcess relay1 = relay(ch1, true);
        initiatorRun(ch1);
        assertThat(relay1.awaitExit(T)).as("relay --once:\n%s", relay1.output()).isZero();

        new Socket("127.0.0.1", port).close(); // a bare connect-and-close
        String ch2 = "svc-" + UUID.randomUUID();
        JavaProcess relay2 = relay(ch2, true);
        initiatorRun(ch2);
        assertThat(relay2.awaitExit(T)).as("relay --once:\n%s", relay2.output()).isZero();

        assertThat(target.process().isAlive()).as("target:\n%s", target.output()).isTrue();
        target.terminate(); // only an explicit shutdown ends the service
        target.awaitExit(T);
        String out = target.output();
        assertThat(out).contains("target-rdma: aborted by user");
        assertThat(out.split("session ended; waiting for the next storage service", -1)).hasSize(3);
        assertThat(out).doesNotContain("disconnected before shutdown");
    }

    @Test
    void aRelayServesTwoInitiatorsInARow() throws IOException {
        JavaProcess target = target();
        String ch = "svc-" + UUID.randomUUID();
        JavaProcess relay = relay(ch, false);
        initiatorRun(ch);
        initiatorRun(ch);
        assertThat(relay.process().isAlive()).as("relay:\n%s", relay.output()).isTrue();
        assertThat(relay.output().split("zero-copy: session ended; waiting for the next initiator", -1)).hasSize(3);
        relay.terminate();
        relay.awaitExit(T);
        assertThat(relay.output()).contains("zero-copy: aborted by user");
        assertThat(target.process().isAlive()).isTrue();
    }

    @Test
    void aSecondConcurrentClientGetsABusyError() throws IOException {
        JavaProcess target = target();
        try (Socket first = new Socket("127.0.0.1", port); Socket second = new Socket("127.0.0.1", port)) {
            first.setSoTimeout(20_000);
            second.setSoTimeout(20_000);
            first.getOutputStream().write(ControlCodec.encode(
                    ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 1, 1)));
            assertThat(read(first.getInputStream()).type()).isEqualTo(ControlMessageType.QUERY_STORAGE_RESPONSE);
            second.getOutputStream().write(ControlCodec.encode(
                    ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 42, 7)));
            ControlMessage busy = read(second.getInputStream());
            assertThat(busy.type()).isEqualTo(ControlMessageType.ERROR_RESPONSE);
            assertThat(busy.messageId()).isEqualTo(42);
            assertThat(busy.correlationId()).isEqualTo(7);
            assertThat(busy.asError().error()).isEqualTo(DocaError.IN_USE);
            assertThat(busy.asError().message()).contains("busy");
            assertThat(second.getInputStream().read()).as("then closed").isEqualTo(-1);
            // the first client is still served
            first.getOutputStream().write(ControlCodec.encode(
                    ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 2, 1)));
            ControlMessage again = read(first.getInputStream());
            assertThat(again.asError().error()).isEqualTo(DocaError.UNEXPECTED); // its session moved on to WAIT_INIT
        }
        target.awaitOutput("busy: refusing a second client", T);
        assertThat(target.process().isAlive()).isTrue();
    }

    private static ControlMessage read(InputStream in) throws IOException {
        ControlFrameDecoder d = new ControlFrameDecoder();
        byte[] buf = new byte[512];
        while (true) {
            ControlMessage m = d.next();
            if (m != null) {
                return m;
            }
            int n = in.read(buf);
            assertThat(n).as("connection closed before a whole frame").isPositive();
            d.feed(buf, 0, n);
        }
    }
}
