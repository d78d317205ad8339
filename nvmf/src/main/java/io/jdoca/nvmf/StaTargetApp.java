package io.jdoca.nvmf;

import io.jdoca.argp.DocaFlags;
import io.jdoca.core.DocaException;
import io.jdoca.core.agent.ShutdownHook;
import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.nvmf.bdev.BdevModules;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.metrics.MetricsServer;
import io.jdoca.nvmf.rpc.RpcError;
import io.jdoca.nvmf.rpc.RpcFramework;
import io.jdoca.nvmf.rpc.RpcRegistry;
import io.jdoca.nvmf.rpc.RpcServer;
import io.jdoca.nvmf.rpc.SpdkConfigLoader;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca sta-target}: an NVMe-oF/TCP target (the controller logic of {@link NvmfTarget}
 * over the STA library) configured by a JSON file, serving in the foreground until Ctrl-C or
 * SIGTERM, with a JSON-RPC management socket ({@code ./jdoca sta-rpc}).
 *
 * <p>Picocli command; one instance per process.
 */
@Command(name = "sta-target",
        description = "NVMe-oF/TCP target on the STA offload library (any Linux nvme-tcp host can connect).")
public final class StaTargetApp implements Callable<Integer> {
    /** How long a signalled target has to stop (listeners, engines, main context) before the JVM exits anyway. */
    private static final long SHUTDOWN_GRACE_MILLIS = 15_000;
    private static final Logger LOG = LoggerFactory.getLogger(StaTargetApp.class);

    /** DOCA's general flags: -h, -v, --sdk-log-level. */
    @Mixin
    DocaFlags doca;

    @Option(names = {"-j", "--json"}, description = "The JSON configuration file in jdoca's own form (see "
            + "examples/sta-target.json); optional: without -j and -c the target starts empty, to be configured "
            + "over RPC.")
    Path json;

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "SPDK's JSON configuration (what save_config writes, from jdoca or SPDK), replayed after "
                    + "start and after -j's configuration.")
    Path spdkConfig;

    @Option(names = {"-l", "--log-level"}, defaultValue = "50",
            description = "DOCA log level 10..70 (default: ${DEFAULT-VALUE}).")
    int logLevel;

    @Option(names = {"-r", "--rpc-socket"}, paramLabel = "PATH",
            description = "JSON-RPC Unix socket (SPDK's -r), created mode 0600 and refused if a live server answers "
                    + "there (overrides rpc_socket in the JSON; default: SPDK's /var/tmp/spdk.sock).")
    String rpcSocket;

    @Option(names = "--io-threads", description = "IO engine threads (overrides io_threads in the JSON; with -m the "
            + "default is one per CPU of the mask).")
    Integer ioThreads;

    @Option(names = "--metrics-port", paramLabel = "PORT",
            description = "Serve Prometheus metrics at http://ADDRESS:PORT/metrics (0 = any free port). Default: off.")
    Integer metricsPort;

    @Option(names = "--metrics-address", paramLabel = "IP", defaultValue = "127.0.0.1",
            description = "Address the metrics endpoint binds to, an IP literal (default: ${DEFAULT-VALUE}).")
    String metricsAddress;

    @Option(names = {"-m", "--cpumask"}, paramLabel = "MASK",
            description = "SPDK's core mask (e.g. 0x2 or [1,3]): IO engine i is pinned to the i-th CPU of the mask "
                    + "(sched_setaffinity). Default: not pinned.")
    String cpumask;

    @Option(names = "--listen", paramLabel = "[rdma:]ADDRESS:PORT",
            description = "Top-level listener, NVMe/TCP or with 'rdma:' NVMe/RDMA (an RDMA device's IPv4 address, e.g. "
                    + "rdma:10.0.2.15:4420), bound exactly to ADDRESS (an IP, e.g. 127.0.0.1:4420, 0.0.0.0:4420, "
                    + "[::1]:4420); repeatable, added to the JSON's listeners. Default: none beyond the JSON's (a JSON "
                    + "listener without address binds 127.0.0.1). The subsystems the JSON defines without listeners of "
                    + "their own are reachable on these; subsystems created over RPC only on their own.")
    List<String> listen = new ArrayList<>();

    @Option(names = "--wait-for-rpc", description = "SPDK's --wait-for-rpc: serve the JSON-RPC socket before "
            + "starting the target, so startup methods (nvmf_set_config, log_*) can run; framework_start_init "
            + "starts it.")
    boolean waitForRpc;

    private List<Integer> cpus = List.of();
    private MetricsServer metrics;

    @Override
    @SuppressWarnings("try") // the hook is held for its close (finished), unused in the body
    public Integer call() throws Exception {
        DocaLogLevel.apply(logLevel);
        doca.applySdkLogLevel();
        TargetConfig cfg;
        try {
            cfg = json != null ? TargetConfig.load(json) : new TargetConfig(null, null, null, null, null);
            List<TargetConfig.ListenerConfig> ls = new ArrayList<>(cfg.listeners());
            for (String l : listen) {
                ls.add(TargetConfig.parseListen("--listen", l));
            }
            if (cpumask != null) {
                try {
                    cpus = io.jdoca.core.util.CpuAffinity.parseCoreMask("-m", cpumask);
                    io.jdoca.core.util.CpuAffinity.check("-m", cpus);
                } catch (IllegalArgumentException e) {
                    return fail(e.getMessage());
                }
                if (ioThreads == null) {
                    ioThreads = Math.min(64, cpus.size());
                }
            }
            if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
                throw new ConfigException("--metrics-port", metricsPort + " is out of range 0..65535");
            }
            TargetConfig.ipLiteral("--metrics-address", metricsAddress);
            if (ioThreads != null && (ioThreads < 1 || ioThreads > 64)) {
                throw new ConfigException("--io-threads", ioThreads + " is out of range 1..64");
            }
            if (rpcSocket != null) {
                TargetConfig.checkSocketPath("--rpc-socket", rpcSocket);
            }
            cfg = BdevModules.check(new TargetConfig(ioThreads != null ? ioThreads : cfg.ioThreads(),
                    rpcSocket != null ? rpcSocket : cfg.rpcSocket(), ls, cfg.subsystems(), cfg.maxIoSize()).validate());
        } catch (ConfigException e) {
            return fail(e.getMessage());
        } catch (java.io.IOException e) {
            return fail("--json " + json + ": " + e.getMessage());
        }
        // Claim the management socket first: a second target on the same socket stops here, before
        // it opens a listener or a file. SPDK's default socket when none is given.
        String sockPath = cfg.rpcSocket() != null ? cfg.rpcSocket() : RpcServer.DEFAULT_SOCKET;
        // Startup state until the target is up: -c's startup methods (nvmf_set_config) run first,
        // and with --wait-for-rpc a client's do until its framework_start_init.
        RpcFramework framework = RpcFramework.waitingForRpc();
        RpcServer rpc = new RpcServer(null, Path.of(sockPath), framework);
        try {
            rpc.bind();
        } catch (ConfigException e) {
            return fail(e.getMessage());
        } catch (java.io.IOException e) {
            return fail("rpc_socket " + sockPath + ": " + e.getMessage());
        }
        NvmfTarget target = new NvmfTarget(cfg);
        target.setCpus(cpus);
        rpc.setTarget(target);
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture<Void> init = new CompletableFuture<>();
        framework.setApp(new RpcFramework.App() {
            @Override
            public void startInit() throws Exception {
                try {
                    startTarget(target, rpc, framework);
                    init.complete(null);
                } catch (Exception | Error e) {
                    init.completeExceptionally(e); // the app stops, as SPDK's does when its init fails
                    throw e;
                }
            }

            @Override
            public void kill(String signal) {
                LOG.info("spdk_kill_instance {}", signal);
                if (signal.equals("SIGKILL")) {
                    Runtime.getRuntime().halt(128 + 9); // as the signal would: no clean-up
                }
                done.complete(null); // SIGINT, SIGTERM, SIGHUP: the graceful stop a signal starts
            }
        });
        // The one Ctrl-C / SIGTERM handler (core's): the signal ends the waits below, and this thread
        // stops everything (data path last) within the grace period.
        try (ShutdownHook hook = ShutdownHook.install("sta-target-shutdown", () -> done.complete(null),
                SHUTDOWN_GRACE_MILLIS)) {
            JsonNode spdk = null;
            try {
                if (spdkConfig != null) {
                    spdk = SpdkConfigLoader.read(spdkConfig);
                    SpdkConfigLoader.apply(rpc, spdkConfig, spdk, RpcRegistry.STARTUP, false);
                }
                if (waitForRpc) {
                    rpc.start();
                    LOG.info("--wait-for-rpc: configure with the startup methods, then framework_start_init");
                    CompletableFuture.anyOf(init, done).handle((v, e) -> null).join(); // start_init or a signal
                    if (!init.isDone()) {
                        rpc.close();
                        return 0;
                    }
                    if (init.isCompletedExceptionally()) {
                        rpc.close();
                        target.close();
                        return fail("framework_start_init: " + RpcError.plain(init.exceptionNow().getMessage()));
                    }
                } else {
                    startTarget(target, rpc, framework);
                }
                if (spdk != null) {
                    SpdkConfigLoader.apply(rpc, spdkConfig, spdk, RpcRegistry.RUNTIME, false);
                }
                if (!waitForRpc) {
                    rpc.start(target);
                }
                if (metricsPort != null) {
                    metrics = MetricsServer.start(TargetConfig.ipLiteral("--metrics-address", metricsAddress),
                            metricsPort, () -> target);
                }
            } catch (java.net.BindException e) {
                rpc.close();
                target.close();
                return fail("--metrics-port " + metricsPort + ": cannot listen on " + metricsAddress + ": "
                        + e.getMessage());
            } catch (ConfigException | DocaException | java.io.IOException | java.io.UncheckedIOException e) {
                LOG.debug("start failed", e);
                rpc.close();
                target.close();
                return fail(RpcError.plain(e.getMessage()));
            }
            LOG.info("sta-target ready: {} subsystem(s), {} listener(s), {} IO thread(s); JSON-RPC on {}",
                    target.subsystems().stream().filter(s -> !s.isDiscovery()).count(), target.listeners().size(),
                    cfg.ioThreads(), sockPath);
            System.out.println("STA TARGET READY");
            System.out.flush();
            done.join();
            LOG.info("shutting down");
            if (metrics != null) {
                metrics.close();
            }
            rpc.close();
            target.close();
        }
        return 0;
    }

    /** Starts the target: the end of SPDK's startup state (framework_start_init, or at once). */
    private static void startTarget(NvmfTarget target, RpcServer rpc, RpcFramework framework) throws Exception {
        target.start();
        framework.initialized();
    }

    private static int fail(String line) {
        System.err.println("sta-target: " + line);
        return 1;
    }
}
