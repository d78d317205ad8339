package io.jdoca.sta.target;

import io.jdoca.argp.DocaFlags;
import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.sta.target.config.TargetConfig;
import io.jdoca.sta.target.nvmf.NvmfTarget;
import io.jdoca.sta.target.rpc.RpcServer;
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
    private static final Logger LOG = LoggerFactory.getLogger(StaTargetApp.class);

    /** DOCA's general flags: -h, -v, --sdk-log-level. */
    @Mixin
    DocaFlags doca;

    @Option(names = {"-j", "--json"}, required = true, description = "JSON configuration file (see examples/sta-target.json)")
    Path json;

    @Option(names = {"-l", "--log-level"}, defaultValue = "50", description = "DOCA log level 10..70 (default: ${DEFAULT-VALUE})")
    int logLevel;

    @Option(names = "--rpc-socket", description = "JSON-RPC Unix socket path (overrides rpc_socket in the JSON)")
    String rpcSocket;

    @Option(names = "--io-threads", description = "IO engine threads (overrides io_threads in the JSON)")
    Integer ioThreads;

    @Option(names = "--listen", description = "extra listener ADDRESS:PORT (repeatable)")
    List<String> listen = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        DocaLogLevel.apply(logLevel);
        doca.applySdkLogLevel();
        TargetConfig cfg = TargetConfig.load(json);
        List<TargetConfig.ListenerConfig> ls = new ArrayList<>(cfg.listeners());
        for (String l : listen) {
            int c = l.lastIndexOf(':');
            ls.add(new TargetConfig.ListenerConfig(l.substring(0, c), Integer.parseInt(l.substring(c + 1))));
        }
        cfg = new TargetConfig(ioThreads != null ? ioThreads : cfg.ioThreads(),
                rpcSocket != null ? rpcSocket : cfg.rpcSocket(), ls, cfg.subsystems(), cfg.maxIoSize());
        NvmfTarget target = new NvmfTarget(cfg);
        CountDownLatch done = new CountDownLatch(1);
        RpcServer rpc = null;
        try {
            target.start();
            if (cfg.rpcSocket() != null && !cfg.rpcSocket().isEmpty()) {
                rpc = new RpcServer(target, Path.of(cfg.rpcSocket()));
                rpc.start();
            }
            final RpcServer rpcRef = rpc;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                LOG.info("shutting down");
                if (rpcRef != null) {
                    rpcRef.close();
                }
                target.close();
                done.countDown();
            }, "sta-target-shutdown"));
            LOG.info("sta-target ready: {} subsystem(s), {} listener(s), {} IO thread(s)",
                    cfg.subsystems().size(), target.listeners().size(), cfg.ioThreads());
            System.out.println("STA TARGET READY");
            System.out.flush();
            done.await();
            return 0;
        } catch (RuntimeException e) {
            LOG.error("sta-target failed: {}", e.getMessage(), e);
            if (rpc != null) {
                rpc.close();
            }
            target.close();
            return 1;
        }
    }
}
