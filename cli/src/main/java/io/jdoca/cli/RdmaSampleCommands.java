package io.jdoca.cli;

import io.jdoca.argp.DocaFlags;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.rdma.RdmaTransportType;
import io.jdoca.rdma.samples.RdmaSampleRuntime;
import io.jdoca.rdma.samples.RdmaSamples;
import io.jdoca.verbs.VerbsProperties;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * DOCA's RDMA samples as apps of the same names ({@code ./jdoca rdma-read-requester}, ...; doca-rdma "Samples"):
 * the common flags of DOCA's samples ({@code -d}, {@code -ld}, {@code -re}, {@code -m}, {@code -g}), the CM mode
 * ({@code -cm} with {@code -sa}/{@code -p}), each sample's own string flag ({@code -r}, {@code -w}, {@code -s}), and
 * jdoca's {@code --transport} and {@code --timeout}. The logic is {@link RdmaSamples}'; one command class per app,
 * so each has its own usage. Picocli commands: one instance per run, on the caller's thread.
 */
public final class RdmaSampleCommands {
    private RdmaSampleCommands() {
    }

    /** New command objects, one per sample app. */
    static List<Object> all() {
        return List.of(new ReadRequester(), new ReadResponder(), new WriteRequester(), new WriteResponder(),
                new WriteImmediateRequester(), new WriteImmediateResponder(), new Send(), new Receive(),
                new SendImmediate(), new ReceiveImmediate(), new SyncEventRequester(), new SyncEventResponder());
    }

    /** The flags every sample shares (DOCA's rdma_common) and the run. */
    abstract static class Base implements Callable<Integer> {
        @Mixin
        DocaFlags doca;

        @Option(names = {"-d", "--device"}, description = "IB device name (default: the first RDMA device, else sw0)")
        String device;

        @Option(names = {"-ld", "--local-descriptor-path"}, defaultValue = "/tmp/local_connection_desc_path.txt",
                description = "Local descriptor file path that includes the local connection information to be "
                        + "copied to the remote program (default: ${DEFAULT-VALUE})")
        Path localDescriptor;

        @Option(names = {"-re", "--remote-descriptor-path"}, defaultValue = "/tmp/remote_connection_desc_path.txt",
                description = "Remote descriptor file path that includes the remote connection information to be "
                        + "copied from the remote program (default: ${DEFAULT-VALUE})")
        Path remoteDescriptor;

        @Option(names = {"-m", "--mmap-descriptor-path"}, defaultValue = "/tmp/remote_resource_desc_path.txt",
                description = "Remote descriptor file path that includes the remote mmap (or sync event) connection "
                        + "information (default: ${DEFAULT-VALUE})")
        Path mmapDescriptor;

        @Option(names = {"-g", "--gid-index"}, defaultValue = "-1",
                description = "GID index for DOCA RDMA (default: the device's, or -D"
                        + VerbsProperties.GID_INDEX_NAME + ")")
        int gidIndex;

        @Option(names = {"-cm", "--use-rdma-cm"}, description = "Connect through the connection manager instead of "
                + "descriptor files (the responder / receiver listens)")
        boolean useCm;

        @Option(names = {"-sa", "--server-addr"}, defaultValue = "127.0.0.1",
                description = "CM mode: the address the responder listens on and the requester connects to "
                        + "(default: ${DEFAULT-VALUE}; an RDMA device's own IPv4 address for verbs)")
        String serverAddress;

        @Option(names = {"-p", "--cm-port"}, defaultValue = "18515", description = "CM mode: the port (default: "
                + "${DEFAULT-VALUE})")
        int cmPort;

        @Option(names = "--transport", description = "jdoca: shm, tcp, verbs or auto (default: the device's)")
        String transport;

        @Option(names = "--timeout", defaultValue = "120", description = "jdoca: seconds any one wait may take "
                + "(default: ${DEFAULT-VALUE})")
        int timeoutSeconds;

        @Option(names = {"-l", "--log-level"}, defaultValue = "40", description = "DOCA log level 10..70 (default: "
                + "${DEFAULT-VALUE})")
        int logLevel;

        abstract RdmaSamples sample();

        /** The sample's -r/-w/-s string, or null. */
        String text() {
            return null;
        }

        @Override
        public Integer call() {
            DocaLogLevel.apply(logLevel);
            doca.applySdkLogLevel();
            String app = sample().app();
            if (cmPort < 0 || cmPort > 65535) {
                System.err.println(app + ": -p " + cmPort + " is outside 0..65535");
                return 2;
            }
            RdmaTransportType t = null;
            if (transport != null) {
                try {
                    t = RdmaTransportType.valueOf(transport.trim().toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    System.err.println(app + ": --transport " + transport + ": not shm, tcp, verbs or auto");
                    return 2;
                }
            }
            InetAddress sa;
            try {
                sa = InetAddress.getByName(serverAddress);
            } catch (UnknownHostException e) {
                System.err.println(app + ": -sa " + serverAddress + ": unknown host");
                return 2;
            }
            String dev = device != null ? device : defaultDevice();
            RdmaSampleRuntime.Options o = new RdmaSampleRuntime.Options(dev, gidIndex, localDescriptor,
                    remoteDescriptor, mmapDescriptor, useCm, sa, cmPort, Math.max(1, timeoutSeconds) * 1000L, t);
            return sample().run(o, text(), System.out);
        }

        private static String defaultDevice() {
            for (DevInfo d : Devices.list()) {
                if (d.isVerbs()) {
                    return d.name();
                }
            }
            return "sw0";
        }
    }

    /** The requesters that write a string ({@code -w}, DOCA's flag). */
    abstract static class Writing extends Base {
        @Option(names = {"-w", "--write-string"}, description = "String to write (default: \"Hi DOCA RDMA!\")")
        String write;

        @Override
        String text() {
            return write;
        }
    }

    /** The senders of a string ({@code -s}, DOCA's flag). */
    abstract static class Sending extends Base {
        @Option(names = {"-s", "--send-string"}, description = "String to send (default: \"Hi DOCA RDMA!\")")
        String send;

        @Override
        String text() {
            return send;
        }
    }

    @Command(name = "rdma-read-requester", description = "DOCA RDMA sample: reads the responder's buffer.")
    static final class ReadRequester extends Base {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.READ_REQUESTER;
        }
    }

    @Command(name = "rdma-read-responder", description = "DOCA RDMA sample: exports a string for the requester to "
            + "read; ends when the requester disconnects.")
    static final class ReadResponder extends Base {
        @Option(names = {"-r", "--read-string"}, description = "String to read (default: \"Hi DOCA RDMA!\")")
        String read;

        @Override
        RdmaSamples sample() {
            return RdmaSamples.READ_RESPONDER;
        }

        @Override
        String text() {
            return read;
        }
    }

    @Command(name = "rdma-write-requester", description = "DOCA RDMA sample: writes a string into the responder.")
    static final class WriteRequester extends Writing {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.WRITE_REQUESTER;
        }
    }

    @Command(name = "rdma-write-responder", description = "DOCA RDMA sample: exports a buffer for the requester to "
            + "write; prints it when the requester disconnects.")
    static final class WriteResponder extends Base {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.WRITE_RESPONDER;
        }
    }

    @Command(name = "rdma-write-immediate-requester", description = "DOCA RDMA sample: writes a string into the "
            + "responder with a 32-bit immediate.")
    static final class WriteImmediateRequester extends Writing {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.WRITE_IMMEDIATE_REQUESTER;
        }
    }

    @Command(name = "rdma-write-immediate-responder", description = "DOCA RDMA sample: receives the write's "
            + "immediate and prints the written string.")
    static final class WriteImmediateResponder extends Base {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.WRITE_IMMEDIATE_RESPONDER;
        }
    }

    @Command(name = "rdma-send", description = "DOCA RDMA sample: sends a string.")
    static final class Send extends Sending {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.SEND;
        }
    }

    @Command(name = "rdma-receive", description = "DOCA RDMA sample: receives a message and prints it.")
    static final class Receive extends Base {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.RECEIVE;
        }
    }

    @Command(name = "rdma-send-immediate", description = "DOCA RDMA sample: sends a string with a 32-bit immediate.")
    static final class SendImmediate extends Sending {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.SEND_IMMEDIATE;
        }
    }

    @Command(name = "rdma-receive-immediate", description = "DOCA RDMA sample: receives a message with an "
            + "immediate and prints both.")
    static final class ReceiveImmediate extends Base {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.RECEIVE_IMMEDIATE;
        }
    }

    @Command(name = "rdma-sync-event-requester", description = "DOCA RDMA sample: drives the responder's exported "
            + "sync event (set 1, wait for 2, set 3).")
    static final class SyncEventRequester extends Base {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.SYNC_EVENT_REQUESTER;
        }
    }

    @Command(name = "rdma-sync-event-responder", description = "DOCA RDMA sample: exports a sync event, answers the "
            + "requester's signal, waits for its completion.")
    static final class SyncEventResponder extends Base {
        @Override
        RdmaSamples sample() {
            return RdmaSamples.SYNC_EVENT_RESPONDER;
        }
    }
}
