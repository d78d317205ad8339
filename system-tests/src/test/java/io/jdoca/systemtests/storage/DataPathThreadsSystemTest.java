package io.jdoca.systemtests.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.Await;
import io.jdoca.testkit.JavaProcess;
import io.jdoca.testkit.PrometheusTextParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 17, acceptance 2: while a target-rdma and a zero-copy relay serve a running initiator (three processes, as the
 * other storage system tests), every live platform thread of the target, the relay and the initiator ({@code jcmd <pid>
 * Thread.print}) is one of: the JVM's own threads, the control thread ({@code main}), control-path helpers that never
 * touch a request (the RDMA connection listener {@code jdoca-rdma-accept}, the metrics endpoint's threads), or an agent
 * on the core runner named by the scheme of docs/ARCHITECTURE.md: {@code <app>-worker-<index>}, one per {@code --cpu},
 * and, when it runs on a thread of its own ({@code -Djdoca.rdma.tcp.threading=dedicated}), the RDMA tcp transport's
 * agent {@code jdoca-rdma-tcp-<n>} (one per RDMA context with TCP connections; by default the engines run it and it
 * adds no thread). Anything else — e.g. a per-connection I/O thread ({@code jdoca-rdma-io-N}, as the tcp transport had
 * before issue 17), a keepalive thread ({@code jdoca-rdma-keepalive}), or any new unnamed thread — is a stray data-path
 * thread and fails the test. On one host the storage apps' RDMA connections choose the shm transport; the tcp variant
 * forces TCP with {@code -Djdoca.rdma.transport=tcp} on every process.
 *
 * <p>The same for a running {@code sta-target} (the NVMe-oF target) that an {@code nvme-perf}
 * host drives over NVMe/TCP on 127.0.0.1: its data-path threads are only its IO engine agents
 * {@code sta-io-<i>} (one per {@code io_threads}); besides the JVM's it has only its management
 * agent {@code sta-main} (main context, commands, the keep-alive deadline) and control-path
 * threads that never run a command's I/O: {@code main}, the blocking acceptor of each TCP listener
 * {@code sta-listen-<port>}, the rdma_cm event thread {@code sta-rdma-cm} (RDMA listeners only),
 * the JSON-RPC server {@code sta-rpc} with one {@code sta-rpc-client} per connection, and the
 * metrics endpoint's threads. No keep-alive thread, no own engine loop thread.
 */
class DataPathThreadsSystemTest {
    private static final Duration T = Duration.ofSeconds(90);

    /** The JVM's own threads (HotSpot names; they never run jdoca code). */
    private static final Pattern JVM = Pattern.compile("Reference Handler|Finalizer|Signal Dispatcher|Service Thread"
            + "|Monitor Deflation Thread|C[12] CompilerThread\\d+|Notification Thread|Common-Cleaner|Attach Listener"
            + "|GC Thread#\\d+|VM Thread|VM Periodic Task Thread|G1 .+|Sweeper thread|DestroyJavaVM|process reaper");
    /**
     * The JDK's virtual-thread scheduler: its carrier threads ({@code ForkJoinPool-<n>-worker-<m>}), {@code
     * VirtualThread-unblocker}, and the pollers that park virtual threads blocked in socket I/O ({@code MasterPoller},
     * {@code Read-Poller}, {@code Write-Poller}). They appear over tcp, where the RDMA connection set-up (the dial and
     * the hello hand-shake of {@code RdmaConnections}) runs on virtual threads; no data path code runs on virtual
     * threads.
     */
    private static final String VIRTUAL_THREAD_SCHEDULER = "ForkJoinPool-\\d+-worker-\\d+|VirtualThread-unblocker"
            + "|MasterPoller|Read-Poller|Write-Poller";
    /**
     * The metrics endpoint (core's MetricsHttpServer): its scrape threads {@code <app>-metrics-<n>}, the JDK
     * HttpServer's own {@code HTTP-Dispatcher}, {@code idle-timeout-task} and {@code req-rsp-timeout-task}
     * (the read and write deadlines), and the Prometheus client's {@code prometheus-metrics-scheduler-<n>};
     * a scrape makes opaque reads of the workers' counters.
     */
    private static final String METRICS =
            "[a-z-]+-metrics(-\\d+)?|HTTP-Dispatcher|idle-timeout-task|req-rsp-timeout-task"
            + "|prometheus-metrics-scheduler-\\d+";
    /** Control path: the app's main thread, the RDMA connection listener and set-up, the metrics endpoint. */
    private static final Pattern CONTROL = Pattern.compile("main|jdoca-rdma-accept|" + METRICS + "|"
            + VIRTUAL_THREAD_SCHEDULER);
    /**
     * The apps' workers on the core runner: {@code <app>-worker-<index>} ({@code AgentRunner} names its thread after
     * the role).
     */
    private static final Pattern WORKER = Pattern.compile("(target|zero-copy|gga|initiator)-worker-\\d+");
    /** The RDMA tcp transport's agent on the core runner, one per RDMA context that has TCP connections. */
    private static final Pattern TCP_AGENT = Pattern.compile("jdoca-rdma-tcp-\\d+");
    /** sta-target's data path: its IO engine agents, {@code sta-io-<i>}. */
    private static final Pattern STA_DATA = Pattern.compile("sta-io-\\d+");
    /**
     * sta-target's other threads: the main thread, the management agent, the TCP acceptors, the
     * rdma_cm event thread, the RPC server and its clients, the metrics endpoint (see the class comment).
     */
    private static final Pattern STA_CONTROL =
            Pattern.compile("main|sta-main|sta-listen-\\d+|jdoca-rdma-cm|sta-rdma-cm|sta-rpc"
            + "|sta-rpc-client|" + METRICS);
    private static final String NQN = "nqn.2024-01.io.jdoca:threads";
    private static final Pattern THREAD_LINE = Pattern.compile("^\"(.*)\" #\\d+", Pattern.MULTILINE);

    private final List<JavaProcess> procs = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        for (JavaProcess p : procs) {
            p.close();
        }
    }

    /** The threads that are neither the JVM's, nor control path, nor agents: must be none. */
    static List<String> strays(List<String> threads) {
        List<String> out = new ArrayList<>();
        for (String t : threads) {
            if (!JVM.matcher(t).matches() && !CONTROL.matcher(t).matches() && !WORKER.matcher(t).matches()
                    && !TCP_AGENT.matcher(t).matches()) {
                out.add(t);
            }
        }
        return out;
    }

    /** sta-target's threads that are neither the JVM's, nor its control path, nor its IO engine agents. */
    static List<String> staStrays(List<String> threads) {
        List<String> out = new ArrayList<>();
        for (String t : threads) {
            if (!JVM.matcher(t).matches() && !STA_CONTROL.matcher(t).matches() && !STA_DATA.matcher(t).matches()) {
                out.add(t);
            }
        }
        return out;
    }

    /** sta-target's classification without processes: the former keep-alive and unnamed threads are strays. */
    @Test
    void theStaClassifierAllowsOnlyEngineAgentsOnTheDataPath() {
        assertThat(staStrays(List.of("main", "sta-main", "sta-io-0", "sta-io-17", "sta-listen-4420", "sta-rdma-cm",
                "sta-rpc",
                "sta-rpc-client", "sta-target-metrics-1", "HTTP-Dispatcher", "req-rsp-timeout-task",
                "prometheus-metrics-scheduler-0", "GC Thread#1"))).isEmpty();
        assertThat(staStrays(List.of("sta-io-0", "sta-keepalive", "sta-io", "Thread-3", "target-worker-0",
                "sta-main-2")))
                .containsExactly("sta-keepalive", "sta-io", "Thread-3", "target-worker-0", "sta-main-2");
    }

    /** The classification itself, without processes: the transport's own threads are strays, workers are agents. */
    @Test
    void theClassifierFlagsNonAgentDataPathThreads() {
        assertThat(strays(List.of("main", "GC Thread#0", "C2 CompilerThread0", "target-worker-0", "zero-copy-worker-12",
                "jdoca-rdma-accept", "target-rdma-metrics", "jdoca-rdma-tcp-0", "jdoca-rdma-tcp-17",
                        "ForkJoinPool-1-worker-1",
                "VirtualThread-unblocker", "MasterPoller"))).isEmpty();
        assertThat(strays(List.of("target-worker-0", "jdoca-rdma-io-3", "jdoca-rdma-keepalive", "Thread-0",
                "pool-1-thread-1",
                "target-worker")))
                .containsExactly("jdoca-rdma-io-3", "jdoca-rdma-keepalive", "Thread-0", "pool-1-thread-1",
                        "target-worker");
    }

    @Test
    @Timeout(240)
    void aRunningTargetAndRelayHaveNoThreadOnTheDataPathButTheirAgents() throws Exception {
        runAndCheckThreads(List.of());
    }

    /**
     * The same over the RDMA tcp transport (forced on one host), each context's transport agent on a
     * thread of its own ({@code -Djdoca.rdma.tcp.threading=dedicated}): the only thread it adds is
     * that agent, one per RDMA context (the storage apps have two per worker: control and data).
     */
    @Test
    @Timeout(240)
    void overTheTcpTransportOnlyItsAgentsAreAdded() throws Exception {
        List<List<String>> threads = runAndCheckThreads(List.of("-Djdoca.rdma.transport=tcp",
                "-Djdoca.rdma.tcp.threading=dedicated"));
        for (List<String> t : threads.subList(0, 2)) { // target and relay; the initiator has no RDMA context
            assertThat(t.stream().filter(n -> TCP_AGENT.matcher(n).matches()))
                    .as("the tcp transport is in use: one agent per RDMA context (control, data) in %s", t).hasSize(2);
        }
    }

    /**
     * Over the tcp transport with its default threading (the engine's progress runs the transport
     * agent, Aeron's invoker mode): the transport adds no thread at all.
     */
    @Test
    @Timeout(240)
    void overTheTcpTransportByDefaultTheEnginesRunTheTransport() throws Exception {
        List<List<String>> threads = runAndCheckThreads(List.of("-Djdoca.rdma.transport=tcp"));
        for (List<String> t : threads) {
            assertThat(t.stream().filter(n -> TCP_AGENT.matcher(n).matches()))
                    .as("no transport thread: the workers' engines run the tcp transport in %s", t).isEmpty();
        }
    }

    /**
     * Starts target, relay and initiator with {@code jvmFlags}, waits for the data path, checks; returns the target's,
     * relay's and initiator's threads.
     */
    private List<List<String>> runAndCheckThreads(List<String> jvmFlags) throws Exception {
        int port = JavaProcess.freePort();
        int metricsPort = JavaProcess.freePort();
        JavaProcess target = start("target-rdma", jvmFlags, List.of("target-rdma", "-d", "sw0", "--cpu", "0",
                "--listen-address",
                "127.0.0.1", "--listen-port", String.valueOf(port), "--block-count", "64", "--metrics-port",
                String.valueOf(metricsPort)));
        target.awaitOutput("listening on TCP port", T);
        String channel = "threads-" + UUID.randomUUID();
        JavaProcess relay = start("zero-copy", jvmFlags, List.of("zero-copy", "-d", "sw0", "-r", "hpf0", "--cpu", "0",
                "--storage-server", "127.0.0.1:" + port, "--command-channel-name", channel));
        relay.awaitOutput("serving comch channel", T);
        JavaProcess initiator = start("initiator-comch", jvmFlags, List.of("initiator-comch", "-d", "sw0", "--cpu", "0",
                "--command-channel-name", channel, "--control-timeout", "20", "--execution-strategy",
                        "read_throughput_test",
                "--run-limit-operation-count", "1000000000", "--transaction-count", "8"));

        // The data path runs: the target's operation counter moves.
        HttpClient http = HttpClient.newHttpClient();
        String ops = "jdoca_storage_requests_total{app=target-rdma, worker=0}";
        Await.until(T, () -> scrape(http, metricsPort).getOrDefault(ops, 0.0) > 1000, () -> assertAlive(initiator),
                "the target's data path serves requests");

        List<List<String>> all = new ArrayList<>();
        for (JavaProcess p : List.of(target, relay, initiator)) {
            List<String> threads = threadNames(p);
            assertThat(strays(threads)).as("stray threads in %s: %s", p.process().info().command().orElse("?"), threads)
                    .isEmpty();
            assertThat(threads.stream().filter(t -> WORKER.matcher(t).matches()))
                    .as("one worker per --cpu in %s", threads).hasSize(1);
            all.add(threads);
        }
        assertThat(all.get(0)).contains("target-worker-0");
        assertThat(all.get(1)).contains("zero-copy-worker-0");
        assertThat(all.get(2)).contains("initiator-worker-0");
        return all;
    }

    @Test
    @Timeout(240)
    void aRunningStaTargetHasOnlyItsEngineAgentsOnTheDataPath(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        int port = JavaProcess.freePort();
        int metricsPort = JavaProcess.freePort();
        Path cfg = dir.resolve("target.json");
        java.nio.file.Files.writeString(cfg, """
                { "io_threads": 2, "rpc_socket": "%s",
                  "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 16, "block_size": 4096 } ] } ] }
                """.formatted(dir.resolve("rpc.sock"), NQN));
        JavaProcess target = start("sta-target", List.of("sta-target", "-j", cfg.toString(), "--listen", "127.0.0.1:"
                + port,
                "--metrics-port", String.valueOf(metricsPort)));
        target.awaitOutput("STA TARGET READY", T);
        // Two queues on two connections: round robin puts them on both engines.
        JavaProcess perf = start("nvme-perf", List.of("nvme-perf", "--port", String.valueOf(port), "-n", NQN, "--nsid",
                "1",
                "-w", "randread", "-o", "4096", "-q", "8", "-P", "2", "-t", "120", "--warmup", "0", "--range-mb", "8"));

        // The host is connected and its reads go through the target's engines.
        HttpClient http = HttpClient.newHttpClient();
        Await.until(T, () -> {
            Map<String, Double> m = scrape(http, metricsPort);
            return m.getOrDefault("jdoca_sta_engine_ops_total{engine=sta_io0, op=read}", 0.0) > 1000
                    && m.getOrDefault("jdoca_sta_engine_ops_total{engine=sta_io1, op=read}", 0.0) > 1000;
        }, () -> assertAlive(perf), "both engines of the target serve reads");

        List<String> threads = threadNames(target);
        assertThat(staStrays(threads)).as("stray threads in sta-target: %s", threads).isEmpty();
        assertThat(threads.stream().filter(t -> STA_DATA.matcher(t).matches()))
                .as("one engine agent per io_threads in %s", threads).containsExactlyInAnyOrder("sta-io-0", "sta-io-1");
        assertThat(threads).contains("sta-main", "sta-listen-" + port, "sta-rpc").doesNotContain("sta-keepalive");
        perf.close();
        target.terminate();
        // The JVM reports SIGTERM as 143; the one shutdown hook (core's) has stopped the target cleanly.
        assertThat(target.awaitExit(T)).as("sta-target exit after SIGTERM:\n%s", target.output()).isEqualTo(143);
        assertThat(target.output()).contains("shutting down", "target stopped");
    }

    private JavaProcess start(String name, List<String> args) throws IOException {
        return start(name, List.of(), args);
    }

    /** {@link JavaProcess#start} with extra JVM flags before the main class. */
    private JavaProcess start(String name, List<String> jvmFlags, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JavaProcess.jvmFlags());
        cmd.addAll(jvmFlags);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.jdoca.cli.Main");
        cmd.addAll(args);
        JavaProcess p = JavaProcess.startCommand(name, cmd);
        procs.add(p);
        return p;
    }

    private static void assertAlive(JavaProcess p) {
        assertThat(p.process().isAlive()).as("initiator ended early:\n%s", p.output()).isTrue();
    }

    /** Live platform threads of {@code p}, from {@code jcmd <pid> Thread.print} of this JDK. */
    static List<String> threadNames(JavaProcess p) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process j = new ProcessBuilder(jcmd.toString(), Long.toString(p.pid()), "Thread.print")
                .redirectErrorStream(true).start();
        String dump = new String(j.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(j.waitFor(60, TimeUnit.SECONDS)).as("jcmd ended").isTrue();
        assertThat(j.exitValue()).as("jcmd:\n%s", dump).isZero();
        List<String> names = new ArrayList<>();
        Matcher m = THREAD_LINE.matcher(dump);
        while (m.find()) {
            names.add(m.group(1));
        }
        assertThat(names).as("thread dump:\n%s", dump).contains("main");
        return names;
    }

    private static Map<String, Double> scrape(HttpClient c, int port) {
        try {
            var r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? PrometheusTextParser.parse(r.body()) : Map.of();
        } catch (IOException e) {
            return Map.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
