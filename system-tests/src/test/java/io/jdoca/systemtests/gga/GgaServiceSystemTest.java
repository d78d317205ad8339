package io.jdoca.systemtests.gga;

import static io.jdoca.systemtests.gga.GgaPipeline.stat;
import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.storage.common.ComchControlChannel;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * gga-offload as a service (issue 12 items 4 and 5): it outlives an initiator that queries and
 * leaves, and a target lost in the middle of a write run is resynced from the survivors when it
 * comes back, before it serves a read (no write hole). Targets and the service run without
 * {@code --once}; every process is ended by the test.
 */
class GgaServiceSystemTest {
    private static final Duration T = GgaPipeline.T;
    private static final int HALF = 2048;

    @TempDir
    Path dir;

    private final List<JavaProcess> procs = new ArrayList<>();
    private final String channel = "gga-svc-" + UUID.randomUUID();
    private final int[] ports = new int[3];

    @AfterEach
    void cleanUp() {
        for (JavaProcess p : procs) {
            p.close();
        }
    }

    private JavaProcess target(int i, int blocks) throws IOException {
        JavaProcess t = JavaProcess.start("target-" + i, "io.jdoca.cli.Main", List.of("target-rdma", "-d", "sw0",
                "--cpu", "0",
                "--listen-address", "127.0.0.1", "--listen-port", String.valueOf(ports[i]), "--block-size",
                String.valueOf(HALF), "--block-count", String.valueOf(blocks), "--backing-file",
                dir.resolve("t" + i + ".img").toString()));
        procs.add(t);
        t.awaitOutput("listening on TCP port", T);
        return t;
    }

    private JavaProcess service(String... extra) throws IOException {
        List<String> a = new ArrayList<>(List.of("--dirty-log", dir.resolve("gga.dirty").toString()));
        a.addAll(List.of(extra));
        return serviceWith(a);
    }

    private JavaProcess serviceWith(List<String> extra) throws IOException {
        List<String> a = new ArrayList<>(List.of("gga-offload", "-d", "sw0", "-r", "hpf0",
                "--cpu", "0", "--data-1-storage", "127.0.0.1:" + ports[0], "--data-2-storage", "127.0.0.1:" + ports[1],
                "--data-p-storage", "127.0.0.1:" + ports[2], "--command-channel-name", channel, "--control-timeout",
                "20",
                "--trigger-recovery-read-every-n", "0", "-l", "50"));
        a.addAll(extra);
        JavaProcess s = JavaProcess.start("gga-offload", "io.jdoca.cli.Main", a);
        procs.add(s);
        s.awaitOutput("serving comch channel", T);
        return s;
    }

    private JavaProcess initiator(List<String> extra) throws IOException {
        List<String> a = new ArrayList<>(List.of("initiator-comch", "-d", "sw0", "--cpu", "0", "--command-channel-name",
                channel, "--control-timeout", "20"));
        a.addAll(extra);
        JavaProcess i = JavaProcess.start("initiator-comch", "io.jdoca.cli.Main", a);
        procs.add(i);
        return i;
    }

    private void startTargets(int blocks) throws IOException {
        for (int i = 0; i < 3; i++) {
            ports[i] = JavaProcess.freePort();
        }
        for (int i = 0; i < 3; i++) {
            target(i, blocks);
        }
    }

    /**
     * Fails on main: gga-offload printed "the initiator disconnected before shutdown", shut the targets down and exited
     * 1.
     */
    @Test
    void survivesAnInitiatorThatQueriesAndLeavesThenServesAFullRun() throws IOException {
        startTargets(192);
        JavaProcess svc = service();
        try (Dev dev = Devices.open("sw0"); ComchControlChannel c = ComchControlChannel.client(dev, channel,
                20_000_000_000L)) {
            ControlMessage r = c.request(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 0, 0),
                    20_000_000_000L);
            assertThat(r.asStorageInfo().blockSize()).isEqualTo(2 * HALF);
        }
        svc.awaitOutput("the initiator disconnected before shutdown (in state WAIT_INIT); its session is released", T);
        JavaProcess ini = initiator(List.of("--execution-strategy", "read_write_data_validity_test",
                "--transaction-count", "16"));
        assertThat(ini.awaitExit(T)).as("initiator:\n%s\nservice:\n%s", ini.output(), svc.output()).isZero();
        assertThat(ini.output()).contains("Test passed");
        assertThat(svc.process().isAlive()).as("the service outlives its initiators").isTrue();
        for (JavaProcess p : procs.subList(0, 3)) {
            assertThat(p.process().isAlive()).as("targets outlive the service's sessions").isTrue();
        }
        svc.terminate();
        svc.awaitExit(T);
        assertThat(svc.output()).contains("gga-offload: aborted by user");
    }

    static java.util.Map<String, Double> scrape(java.net.http.HttpClient c, int port) {
        try {
            var r = c.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port
                    + "/metrics"))
                    .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            return io.jdoca.testkit.PrometheusTextParser.parse(r.body());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Issue 16: gga-offload's Prometheus endpoint ({@code --metrics-port}) scraped during a write
     * run: operations and writes move between scrapes, the initiator shows connected, no errors,
     * and the text obeys the exposition format. Fails on main: no --metrics-port (usage, exit 2).
     */
    @Test
    void metricsMoveDuringAWriteRun() throws IOException {
        startTargets(192);
        int mport = JavaProcess.freePort();
        JavaProcess svc = service("--metrics-port", String.valueOf(mport));
        String ops = "jdoca_storage_requests_total{app=gga-offload, worker=0}";
        String writes = "jdoca_storage_ops_total{app=gga-offload, op=write, worker=0}";
        try (var http = java.net.http.HttpClient.newHttpClient()) {
            assertThat(scrape(http, mport)).containsEntry("jdoca_storage_connected_clients{app=gga-offload}", 0.0);
            JavaProcess ini = initiator(List.of("--execution-strategy", "write_throughput_test",
                    "--run-limit-operation-count", "100000000", "--transaction-count", "16"));
            double[] first = new double[1];
            io.jdoca.testkit.Await.until(T, () -> {
                var m = scrape(http, mport);
                first[0] = m.getOrDefault(writes, 0.0);
                return first[0] > 0 && m.get("jdoca_storage_connected_clients{app=gga-offload}") == 1.0;
            }, "writes and a connected initiator to show\n" + svc.output());
            io.jdoca.testkit.Await.until(T, () -> scrape(http, mport).get(writes) > first[0],
                    "the write counter to move");
            ini.terminate();
            ini.awaitExit(T);
            var after = scrape(http, mport);
            assertThat(after.get(ops)).isGreaterThanOrEqualTo(after.get(writes)).isGreaterThan(first[0]);
            assertThat(after).containsEntry("jdoca_storage_errors_total{app=gga-offload, kind=io, worker=0}", 0.0);
            assertThat(after).containsEntry("jdoca_storage_sessions_total{app=gga-offload}", 1.0);
            assertThat(after.get("jdoca_storage_request_latency_seconds_count{app=gga-offload, "
                    + "worker=0}")).isPositive();
        }
        assertThat(svc.process().isAlive()).isTrue();
    }

    /** Compressible content, different in every block: project text cut at random points. */
    private static byte[] content(int len) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (var files = Files.walk(JavaProcess.repoRoot().resolve("core/src/main/java"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                sb.append(Files.readString(f));
                if (sb.length() > 400_000) {
                    break;
                }
            }
        }
        byte[] src = sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Random r = new Random(12);
        byte[] out = new byte[len];
        int i = 0;
        while (i < len) {
            int from = r.nextInt(src.length - 4096);
            int n = Math.min(len - i, 100 + r.nextInt(3996));
            System.arraycopy(src, from, out, i, n);
            i += n;
        }
        return out;
    }

    /**
     * Issue 12 item 5, the write hole: data_1 is SIGKILLed in the middle of a write run; the run
     * still passes (writes land on data_2 and data_p and are logged dirty for data_1); data_1 is
     * restarted on its backing file and the next session resyncs it before serving; a read-only run
     * with recovery reads off then validates every block: 0 failures, 0 wrong bytes. Fails on main:
     * writes after the kill were refused, and the restarted target's stale halves failed normal reads.
     */
    @Test
    void aTargetKilledMidWriteRunIsResyncedBeforeItServesReads() throws IOException {
        int blocks = 4096;
        startTargets(blocks);
        Path plain = dir.resolve("plain.bin");
        Files.write(plain, content(2 * HALF * blocks));
        JavaProcess svc = service();
        JavaProcess w = initiator(List.of("--execution-strategy", "read_write_data_validity_test",
                "--storage-plain-content",
                plain.toString(), "--transaction-count", "8"));
        svc.awaitOutput("data path started", T);
        // Mid-run: let some of the writes land on all three targets first.
        GgaPipeline.sleepMillis(400);
        assertThat(w.process().isAlive()).as("the write run must still be going when the target dies").isTrue();
        procs.get(0).kill();
        assertThat(w.awaitExit(T)).as("write run:\n%s\nservice:\n%s", w.output(), svc.output()).isZero();
        assertThat(w.output()).contains("Test passed");
        svc.awaitOutput("session ended; waiting for the next initiator", T);
        assertThat(svc.output()).contains("DEGRADED: target data_1");
        assertThat((long) stat(svc.output(), "| Failed IOs:")).isZero();

        target(0, blocks); // same port, same backing file: stale where it missed writes
        JavaProcess r = initiator(List.of("--execution-strategy", "read_only_data_validity_test",
                "--storage-plain-content",
                plain.toString(), "--transaction-count", "8"));
        assertThat(r.awaitExit(T)).as("read run:\n%s\nservice:\n%s", r.output(), svc.output()).isZero();
        assertThat(r.output()).contains("Test passed: " + blocks + " transactions validated");
        String out = svc.output();
        assertThat(out).contains("target data_1").contains("will be resynced from the survivors")
                .containsPattern("target data_1 resynced: [1-9][0-9]* stripes rebuilt");
        out.lines().filter(l -> l.contains("resynced:") || l.contains("is back:")).forEach(System.out::println);
        // The second session's table: reads were plain (recovery off, all targets UP) and none failed.
        String second = out.substring(out.lastIndexOf("| GGA offload stats"));
        assertThat((long) stat(second, "| Failed IOs:")).isZero();
        assertThat((long) stat(second, "| Total recovery count:")).isZero();
        assertThat(second).contains("Service state: healthy");
        svc.terminate();
        svc.awaitExit(T);
    }

    /**
     * Issue 29 item 6: the dirty-stripe log is a write-ahead file. data_1 is SIGKILLed in the middle of
     * a write run (the run passes; the stripes it missed are logged, and flushed, before their writes are
     * acknowledged); then the gateway is SIGKILLed while data_1 is still down, and every target is
     * SIGKILLed too. All four are restarted (targets on their backing files and ports, the gateway on
     * the same --dirty-log): the new gateway replays the log, resyncs data_1 before it serves a read,
     * and a read-only run with recovery reads off validates every block: 0 wrong bytes. Fails on the
     * code before: the log was in the killed gateway's memory, the new one thought data_1 in sync, and
     * normal reads combined its stale halves with new ones.
     */
    @Test
    void aGatewayKilledWhileATargetIsDownReplaysItsDirtyLogAfterEverythingRestarts() throws IOException {
        int blocks = 4096;
        startTargets(blocks);
        Path plain = dir.resolve("plain.bin");
        Files.write(plain, content(2 * HALF * blocks));
        Path log = dir.resolve("gga.dirty");
        JavaProcess svc = service();
        JavaProcess w = initiator(List.of("--execution-strategy", "read_write_data_validity_test",
                "--storage-plain-content",
                plain.toString(), "--transaction-count", "8"));
        svc.awaitOutput("data path started", T);
        GgaPipeline.sleepMillis(400); // mid-run: some writes land on all three targets first
        assertThat(w.process().isAlive()).as("the write run must still be going when the target dies").isTrue();
        procs.get(0).kill();
        assertThat(w.awaitExit(T)).as("write run:\n%s\nservice:\n%s", w.output(), svc.output()).isZero();
        svc.awaitOutput("session ended; waiting for the next initiator", T);
        assertThat(svc.output()).contains("DEGRADED: target data_1").contains("dirty-stripe log "
                + log.toAbsolutePath());
        svc.kill(); // the gateway dies while data_1 is down
        for (int i = 1; i < 3; i++) {
            procs.get(i).kill();
        }
        assertThat(log).as("the write-ahead log outlives the gateway").exists();

        for (int i = 0; i < 3; i++) {
            target(i, blocks); // same ports, same backing files
        }
        JavaProcess svc2 = service();
        java.util.regex.Matcher replay = svc2.awaitMatch(java.util.regex.Pattern.compile(
                "the dirty-stripe log says target data_1 \\([^)]*\\) missed (\\d+) stripe writes"), T);
        long missed = Long.parseLong(replay.group(1));
        assertThat(missed).isPositive();
        JavaProcess r = initiator(List.of("--execution-strategy", "read_only_data_validity_test",
                "--storage-plain-content",
                plain.toString(), "--transaction-count", "8"));
        assertThat(r.awaitExit(T)).as("read run:\n%s\nservice:\n%s", r.output(), svc2.output()).isZero();
        assertThat(r.output()).contains("Test passed: " + blocks + " transactions validated");
        String out = svc2.output();
        assertThat(out).contains("target data_1 resynced: " + missed + " stripes rebuilt");
        out.lines().filter(l -> l.contains("dirty-stripe log says")
                || l.contains("resynced:")).forEach(System.out::println);
        String table = out.substring(out.lastIndexOf("| GGA offload stats"));
        assertThat((long) stat(table, "| Failed IOs:")).isZero();
        assertThat((long) stat(table, "| Total recovery count:")).isZero();
        svc2.terminate(); // SIGTERM: the service releases everything, then the JVM exits 143
        svc2.awaitExit(T);
        assertThat(svc2.output()).contains("gga-offload: aborted by user");
        assertThat(log).as("a clean log is removed at exit").doesNotExist();
    }

    /** Waits until {@code p} prints {@code text} after the first {@code from} characters of its output. */
    private static void awaitAfter(JavaProcess p, int from, String text) {
        io.jdoca.testkit.Await.until(T, () -> p.output().indexOf(text, from) >= 0,
                "'" + text + "' from " + p + "\n" + p.output().substring(Math.min(from, p.output().length())));
    }

    /**
     * Issue 29 item 6: a target killed and restarted in the middle of a session is resynced in that
     * session. Session 1 writes project text everywhere; session 2 overwrites every block with zeros
     * again and again (a write throughput run) while data_1 is SIGKILLed, restarted on its backing file
     * and port, reconnected and resynced mid-session (data path paused meanwhile); session 3 reads every
     * block with recovery reads off and finds zeros: no stale half of session 1 survived on data_1, and
     * nothing was left to resync at session 3's start. Fails on the code before: a returning target was
     * noticed only at the next session's query.
     */
    @Test
    void aTargetKilledAndRestartedMidSessionIsResyncedInThatSession() throws IOException {
        int blocks = 4096;
        startTargets(blocks);
        Path plain = dir.resolve("plain.bin");
        Files.write(plain, content(2 * HALF * blocks));
        JavaProcess svc = service();
        JavaProcess first = initiator(List.of("--execution-strategy", "read_write_data_validity_test",
                "--storage-plain-content", plain.toString(), "--transaction-count", "8"));
        assertThat(first.awaitExit(T)).as("session 1:\n%s", first.output()).isZero();
        svc.awaitOutput("session ended; waiting for the next initiator", T);

        int mark = svc.output().length();
        JavaProcess writer = initiator(List.of("--execution-strategy", "write_throughput_test",
                "--run-limit-operation-count", "100000000", "--transaction-count", "8"));
        awaitAfter(svc, mark, "data path started");
        GgaPipeline.sleepMillis(300); // some zero writes land everywhere first
        procs.get(0).kill();
        awaitAfter(svc, mark, "DEGRADED: target data_1");
        GgaPipeline.sleepMillis(500); // writes continue on the survivors, logged dirty for data_1
        target(0, blocks); // same port, same backing file: stale where it missed writes
        awaitAfter(svc, mark, "target data_1 resynced:");
        awaitAfter(svc, mark, "rejoined the session");
        assertThat(writer.process().isAlive()).as("the rejoin happened inside session 2").isTrue();
        GgaPipeline.sleepMillis(500); // writes go to all three again
        writer.terminate();
        writer.awaitExit(T);
        svc.awaitOutput("session ended; waiting for the next initiator", T);
        String second = svc.output().substring(mark);
        second.lines().filter(l -> l.contains("back mid-session") || l.contains("resynced:") || l.contains("rejoined"))
                .forEach(System.out::println);
        assertThat(second).contains("target data_1 (127.0.0.1:" + ports[0] + ") is back mid-session");

        int mark3 = svc.output().length();
        Path zeros = dir.resolve("zeros.bin");
        Files.write(zeros, new byte[2 * HALF * blocks]);
        JavaProcess r = initiator(List.of("--execution-strategy", "read_only_data_validity_test",
                "--storage-plain-content",
                zeros.toString(), "--transaction-count", "8"));
        assertThat(r.awaitExit(T)).as("read run:\n%s\nservice:\n%s", r.output(), svc.output()).isZero();
        assertThat(r.output()).contains("Test passed: " + blocks + " transactions validated");
        String third = svc.output().substring(mark3);
        assertThat(third).as("nothing left to resync at session 3").doesNotContain("will be resynced").doesNotContain(
                "is back");
        String table = third.substring(third.lastIndexOf("| GGA offload stats"));
        assertThat((long) stat(table, "| Failed IOs:")).isZero();
        assertThat((long) stat(table, "| Total recovery count:")).isZero();
        svc.terminate();
        svc.awaitExit(T);
    }
}
