package io.jdoca.gga;

import io.jdoca.ec.EcMatrixType;
import io.jdoca.storage.common.ComchServiceFlags;
import io.jdoca.storage.common.ServiceFlags;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca gga-offload}: DOCA's {@code doca_storage_comch_to_rdma_gga_offload} (reference
 * §5), the service between one initiator and three targets that LZ4-compresses, erasure-codes
 * (2+1) and recovers, transparently to both sides. Flags as DOCA's.
 */
@Command(name = "gga-offload",
        description = {"Comch-to-RDMA GGA offload: a storage service that stores each block as an LZ4 container split",
            "in two halves plus a 2+1 erasure-coding parity half on three targets, and recovers lost halves.",
            "Beyond DOCA: if a target dies mid-run, reads keep working by recovery and writes are logged dirty for it",
            "(degraded mode); it is resynced when it comes back. The service outlives its initiators unless --once."})
public final class GgaOffloadApp implements Callable<Integer> {
    /** DOCA's general flags, -l, --cpu, --once, the metrics endpoint, the peer timeout and -g/--gid-index. */
    @Mixin
    ServiceFlags flags;

    /** {@code -r}, {@code --command-channel-name}, {@code --control-timeout}, {@code --listen-address}. */
    @Mixin
    ComchServiceFlags comch;

    @Option(names = {"-d", "--device"}, defaultValue = "sw0",
            description = "Device identifier (default ${DEFAULT-VALUE}).")
    String device;

    @Option(names = "--data-1-storage", required = true, description = "data_1 storage target, ip:port.")
    String data1;

    @Option(names = "--data-2-storage", required = true, description = "data_2 storage target, ip:port.")
    String data2;

    @Option(names = "--data-p-storage", required = true, description = "data_p (parity) storage target, ip:port.")
    String dataP;

    @Option(names = "--matrix-type", defaultValue = "vandermonde",
            description = "cauchy | vandermonde (default ${DEFAULT-VALUE}).")
    String matrixType;

    @Option(names = "--trigger-recovery-read-every-n", defaultValue = "0",
            description = "Make every Nth read a recovery read (0 = never; default ${DEFAULT-VALUE}).")
    int recoverEveryN;

    @Option(names = "--dirty-log", paramLabel = "FILE|none", description = {"The write-ahead dirty-stripe log (jdoca):"
            + " which stripes a lost target missed, flushed before each degraded write is acknowledged and replayed at"
            + " start, so a restarted gateway still resyncs them. Default: gga-offload-<channel>.dirty under"
            + " $XDG_STATE_HOME/jdoca (else ~/.local/state/jdoca); removed at exit when nothing is dirty. none: in"
            + " memory only."})
    String dirtyLog;

    @Override
    public Integer call() {
        return flags.run("gga-offload", abort -> new GgaService(config(), abort));
    }

    /** The service's configuration from the flags; IllegalArgumentException or DocaException naming a bad one. */
    GgaService.Config config() {
        return new GgaService.Config(device, comch.representor, flags.cpus, List.of(data1, data2, dataP),
                EcMatrixType.parse(matrixType), comch.channelName, comch.controlTimeoutNanos(), recoverEveryN,
                flags.once, comch.rdmaBind(), comch.allowedPeers(), dirtyLogPath(), flags.gidIndex());
    }

    /** {@code --dirty-log}: the file, null for none, or the per-channel default in the user's state directory. */
    Path dirtyLogPath() {
        if ("none".equals(dirtyLog)) {
            return null;
        }
        if (dirtyLog != null && !dirtyLog.isBlank()) {
            return Path.of(dirtyLog);
        }
        String state = System.getenv("XDG_STATE_HOME");
        Path dir = state != null && !state.isBlank() ? Path.of(state, "jdoca")
                : Path.of(System.getProperty("user.home"), ".local", "state", "jdoca");
        return dir.resolve("gga-offload-" + comch.channelName.replaceAll("[^A-Za-z0-9_.-]", "_") + ".dirty");
    }
}
