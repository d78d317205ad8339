package io.jdoca.cli;

import io.jdoca.argp.DocaFlags;
import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.rdma.RdmaTransportType;
import io.jdoca.rdma.samples.PeEventSample;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca pe-event}: DOCA's event-driven mode (doca-core §3.4.5) as a sample: one epoll waits on two
 * progress engines' notification handles and a socket ({@link PeEventSample}). A picocli command: one instance per
 * run, on the caller's thread.
 */
@Command(name = "pe-event", description = "Event-driven progress engines: one epoll waits on two engines' "
        + "notification handles and a socket while engine a's RDMA context sends messages to engine b's.")
public final class PeEventCommand implements Callable<Integer> {
    @Mixin
    DocaFlags doca;

    @Option(names = {"-d", "--device"}, defaultValue = "sw0", description = "device (default: ${DEFAULT-VALUE}; an "
            + "RDMA device such as rxe0 for the verbs transport)")
    String device;

    @Option(names = {"-g", "--gid-index"}, defaultValue = "-1", description = "GID index for DOCA RDMA (verbs)")
    int gidIndex;

    @Option(names = "--transport", description = "shm, tcp, verbs or auto (default: the device's)")
    String transport;

    @Option(names = "--count", defaultValue = "10", description = "messages (default: ${DEFAULT-VALUE})")
    int count;

    @Option(names = {"-l", "--log-level"}, defaultValue = "40", description = "DOCA log level 10..70")
    int logLevel;

    @Override
    public Integer call() {
        DocaLogLevel.apply(logLevel);
        doca.applySdkLogLevel();
        if (count < 1 || count > 4096) {
            System.err.println("pe-event: --count " + count + " is outside 1..4096");
            return 2;
        }
        RdmaTransportType t = null;
        if (transport != null) {
            try {
                t = RdmaTransportType.valueOf(transport.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                System.err.println("pe-event: --transport " + transport + ": not shm, tcp, verbs or auto");
                return 2;
            }
        }
        return PeEventSample.run(device, t, gidIndex, count, System.out);
    }
}
