package io.jdoca.nvmf;

import io.jdoca.argp.DocaFlags;
import io.jdoca.core.DocaException;
import io.jdoca.core.agent.ShutdownHook;
import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.nvmf.bdev.BdevModules;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.metrics.MetricsServer;
import io.jdoca.nvmf.rpc.RpcServer;
import io.jdoca.nvmf.rpc.SpdkConfigLoader;
import io.jdoca.nvmf.tgt.NvmfTarget;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
                    + "there (overrides rpc_socket in the JSON; default: none unless the JSON names one).")
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

    private List<Integer> cpus = List.of();

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
        // it opens a listener or a file.
        RpcServer rpc = null;
        if (cfg.rpcSocket() != null && !cfg.rpcSocket().isEmpty()) {
            rpc = new RpcServer(null, Path.of(cfg.rpcSocket()));
            try {
                rpc.bind();
            } catch (ConfigException e) {
                return fail(e.getMessage());
            } catch (java.io.IOException e) {
                return fail("rpc_socket " + cfg.rpcSocket() + ": " + e.getMessage());
            }
        }
        NvmfTarget target = new NvmfTarget(cfg);
        target.setCpus(cpus);
        MetricsServer metrics = null;
        CountDownLatch done = new CountDownLatch(1);
        try {
            target.start();
            if (spdkConfig != null) {
                RpcServer exec = rpc != null ? rpc : new RpcServer(target, null);
                exec.setTarget(target);
                SpdkConfigLoader.load(exec, spdkConfig);
            }
            if (rpc != null) {
                rpc.start(target);
            }
            if (metricsPort != null) {
                metrics = MetricsServer.start(TargetConfig.ipLiteral("--metrics-address", metricsAddress), metricsPort,
                        () -> target);
            }
        } catch (java.net.BindException e) {
            if (rpc != null) {
                rpc.close();
            }
            target.close();
            return fail("--metrics-port " + metricsPort + ": cannot listen on " + metricsAddress + ": "
                    + e.getMessage());
        } catch (ConfigException | DocaException | java.io.IOException | java.io.UncheckedIOException e) {
            LOG.debug("start failed", e);
            if (rpc != null) {
                rpc.close();
            }
            target.close();
            return fail(e.getMessage());
        }
        // The one Ctrl-C / SIGTERM handler (core's): the signal ends the wait below, and this thread
        // stops everything (data path last) within the grace period.
        try (ShutdownHook hook = ShutdownHook.install("sta-target-shutdown", done::countDown, SHUTDOWN_GRACE_MILLIS)) {
            LOG.info("sta-target ready: {} subsystem(s), {} listener(s), {} IO thread(s)",
                    cfg.subsystems().size(), target.listeners().size(), cfg.ioThreads());
            System.out.println("STA TARGET READY");
            System.out.flush();
            done.await();
            LOG.info("shutting down");
            if (metrics != null) {
                metrics.close();
            }
            if (rpc != null) {
                rpc.close();
            }
            target.close();
        }
        return 0;
    }

    private static int fail(String line) {
        System.err.println("sta-target: " + line);
        return 1;
    }
}
