package io.jdoca.cli;

import io.jdoca.argp.DocaFlags;
import io.jdoca.verbs.samples.Rping;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca rdma-rping}: rdma-core's {@code rping} on jdoca's verbs bindings, with rping's flags, so a
 * C rping can be either peer. Flags are checked before anything is created. Runs on the caller's thread.
 */
@Command(name = "rdma-rping", sortOptions = false, versionProvider = DocaFlags.Version.class,
        description = {"rping (rdma-core librdmacm/examples/rping.c) on jdoca's verbs bindings: same flags, same wire.",
            "  server: ./jdoca rdma-rping -s -a ADDR [-p PORT] [-S SIZE] [-v] [-V]",
            "  client: ./jdoca rdma-rping -c -a ADDR [-p PORT] [-C COUNT] [-S SIZE] [-v] [-V]",
            "Needs an RDMA device (RoCE/InfiniBand NIC or Soft-RoCE rxe) with ADDR on it; see docs/RDMA-HARDWARE.md."})
public final class RdmaRpingCommand implements Callable<Integer> {
    @Option(names = "-s", description = "server side") boolean server;
    @Option(names = "-c", description = "client side") boolean client;
    @Option(names = "-a", paramLabel = "ADDR",
            description = "address (IPv4): the server binds it, the client connects to it")
    String addr;
    @Option(names = "-p", paramLabel = "PORT",
            description = "port (default 7174)") int port = Rping.Options.DEFAULT_PORT;
    @Option(names = "-C", paramLabel = "COUNT",
            description = "ping count (client; default 0 = until interrupted)") int count;
    @Option(names = "-S", paramLabel = "SIZE", description = "ping data size (default 64; 23..65535, as rping)")
    int size = Rping.Options.DEFAULT_SIZE;
    @Option(names = "-v", description = "display ping data to stdout") boolean verbose;
    @Option(names = "-V", description = "validate ping data (client)") boolean validate;
    @Option(names = "-d", description = "debug printfs") boolean debug;
    @Option(names = "--timeout", paramLabel = "SECONDS",
            description = "give up when one step (resolve, connect, a completion) takes longer "
                    + "(default 0 = wait forever, as rping)")
    int timeoutSeconds;
    @Option(names = "--alloc-report",
            description = "at the end, print the bytes the ping loop allocated per block of 50 pings "
                    + "(steady state: least after warm-up)")
    boolean allocReport;
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help") boolean help;
    /** Long only: rping's -v displays and -V validates the ping data. */
    @Option(names = "--version", versionHelp = true, description = "print program version information") boolean version;

    @Override
    public Integer call() {
        String bad = check();
        if (bad != null) {
            System.err.println("jdoca rdma-rping: " + bad);
            return 2;
        }
        Inet4Address a;
        try {
            InetAddress ia = InetAddress.getByName(addr);
            if (!(ia instanceof Inet4Address v4)) {
                System.err.println("jdoca rdma-rping: -a " + addr + ": only IPv4 addresses are supported");
                return 2;
            }
            a = v4;
        } catch (UnknownHostException e) {
            System.err.println("jdoca rdma-rping: -a " + addr + ": unknown host");
            return 2;
        }
        return Rping.run(new Rping.Options(server, a, port, count, size, verbose, validate, debug,
                timeoutSeconds * 1000L,
                        allocReport),
                System.out, System.err);
    }

    private String check() {
        if (server == client) {
            return "give exactly one of -s (server) and -c (client)";
        }
        if (addr == null || addr.isBlank()) {
            return "-a ADDR is required (the address the server listens on / the client connects to)";
        }
        if (port < 1 || port > 65535) {
            return "-p " + port + ": port must be 1..65535";
        }
        if (count < 0) {
            return "-C " + count + ": Invalid count";
        }
        if (size < Rping.Options.MIN_SIZE || size > Rping.Options.MAX_SIZE) {
            return "-S " + size + ": Invalid size (valid range is " + Rping.Options.MIN_SIZE + " to "
                    + Rping.Options.MAX_SIZE + ")";
        }
        if (timeoutSeconds < 0) {
            return "--timeout " + timeoutSeconds + ": must be 0 (none) or a number of seconds";
        }
        return null;
    }
}
