package io.jdoca.nvmf.sample;

import io.jdoca.argp.DocaArgpFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.util.DocaLogLevel;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaIo;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.StaQp;
import io.jdoca.sta.StaSubsystem;
import io.jdoca.sta.backend.MemoryBackend;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./jdoca sta-offload-sample}: the DOCA STA offload sample. It creates the main and IO
 * contexts in the seed's order, one subsystem with one memory namespace, accepts NVMe/TCP
 * connections and answers the Connect and the admin commands a Linux host needs; the engine
 * serves the I/O. Walkthrough: docs/STA-WALKTHROUGH.md.
 *
 * <p>Picocli command; the sample runs everything on one thread.
 */
@Command(name = "sta-offload-sample",
        description = "DOCA STA offload sample: one subsystem, one RAM namespace, served over NVMe/TCP.")
public final class StaOffloadSample implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(StaOffloadSample.class);

    /** DOCA's general flags: -h, -v, --sdk-log-level, -j/--json. */
    @Mixin
    DocaArgpFlags argp;

    @Option(names = "--sf_dev", defaultValue = "sw0", description = "network device (default: ${DEFAULT-VALUE})")
    String sfDev;

    @Option(names = "--doca_lib_lvl", defaultValue = "40",
            description = "library log level 10..70 (default: ${DEFAULT-VALUE})")
    int libLevel;

    @Option(names = "--doca_app_lvl", defaultValue = "50",
            description = "application log level 10..70 (default: ${DEFAULT-VALUE})")
    int appLevel;

    @Option(names = {"-p", "--port"}, defaultValue = "4420",
            description = "TCP port on 127.0.0.1 (default: ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--nqn", defaultValue = "nqn.2024-01.io.jdoca:sample",
            description = "subsystem NQN (default: ${DEFAULT-VALUE})")
    String nqn;

    @Option(names = "--size-mb", defaultValue = "64", description = "RAM namespace size (default: ${DEFAULT-VALUE})")
    long sizeMb;

    @Option(names = "--seconds", defaultValue = "0", description = "stop after this many seconds (0 = until Ctrl-C)")
    long seconds;

    private StaIo io;
    private StaSubsystem subsystem;
    private StaNamespace ns;
    private long cc;

    @Override
    public Integer call() throws Exception {
        DocaLogLevel.apply(Math.max(libLevel, appLevel));
        argp.applySdkLogLevel();
        // 1. Main context on the control device, network device added before start, own PE.
        Dev dev = Devices.open(sfDev);
        Sta sta = Sta.create(dev);
        check(sta.addDev(dev));
        check(sta.setMaxStaIo(1));
        ProgressEngine pe = ProgressEngine.create();
        check(pe.connectCtx(sta));
        check(sta.start());

        // 2. IO context, created only now that the main context runs; callbacks and task pools before start.
        io = StaIo.create(sta);
        check(io.nonOffloadRegisterCb(this::onCommand, 0));
        check(io.eventTransportErrorRegisterCb((qp, op, why, detail) -> LOG.info("{} closed ({} {})", qp, op, why)));
        check(io.taskNonOffloadSendSetConf((t, u, c) -> t.free(), (t, u, c) -> t.free(), 256));
        check(io.taskNonOffloadWriteSendSetConf((t, u, c) -> t.free(), (t, u, c) -> t.free(), 64));
        check(pe.connectCtx(io)); // the sample shares one PE (and thread) between both contexts
        check(io.start());

        // 3. Subsystem, back-end with one queue, namespace 1.
        subsystem = sta.subsystemCreate(nqn);
        MemoryBackend be = sta.backendCreate(new MemoryBackend("ram0", sizeMb << 20));
        be.addQueue();
        ns = subsystem.addNs(1, 4096, 1, be);

        // 4. The application owns the listening socket and hands each connection to the IO context.
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress("127.0.0.1", port));
            listener.configureBlocking(false);
            LOG.info("serving {} (namespace 1: {} MiB) on 127.0.0.1:{}", nqn, sizeMb, port);
            System.out.println("STA SAMPLE READY");
            long end = seconds > 0 ? System.nanoTime() + seconds * 1_000_000_000L : Long.MAX_VALUE;
            while (System.nanoTime() < end && !Thread.currentThread().isInterrupted()) {
                SocketChannel c = listener.accept();
                if (c != null) {
                    // doca_sta_io_qp_alloc, then doca_sta_io_qp_accept (the seed's connect flow)
                    io.qpAccept(io.qpAlloc(), c);
                }
                if (!pe.progress()) {
                    io.waitForIo(10_000_000L);
                }
            }
        }

        // 5. Stop: IO context first, then the main context.
        io.stop();
        pe.progressUntil(() -> io.state() == CtxState.IDLE, IdleStrategy.yielding(), 5_000_000_000L);
        io.destroy();
        check(subsystem.rmNs(ns));
        check(sta.backendDestroy(be));
        check(sta.stop());
        pe.progressUntil(() -> sta.state() == CtxState.IDLE, IdleStrategy.yielding(), 5_000_000_000L);
        check(sta.destroy()); // doca_sta_destroy: the process's one main context is free again
        pe.close();
        return 0;
    }

    private static void check(DocaError e) {
        if (e != DocaError.SUCCESS) {
            throw new DocaException(e, e.description());
        }
    }

    /** Non-offloaded commands: Connect, properties and the admin commands a Linux host sends. */
    private void onCommand(StaQp qp, NvmeCommand cmd, MemorySegment payload, int len, boolean valid, long ud) {
        int cid = cmd.cid();
        if (cmd.opcode() == NvmeOpcode.FABRICS) {
            switch (cmd.fctype()) {
                case NvmeOpcode.FCTYPE_CONNECT -> {
                    if (payload == null || len < FabricsConnectCommand.DATA_LEN
                            || !nqn.equals(FabricsConnectCommand.subNqn(payload, 0))) {
                        reply(qp, cid, NvmeStatus.CONNECT_INVALID_PARAMETERS, (1 << 16) | 256, 0);
                        return;
                    }
                    io.qpConnectSetSqSize(qp, FabricsConnectCommand.sqsize(cmd.segment(), cmd.base()) + 1);
                    if (qp.qid() > 0) {
                        io.qpAddSubsystem(qp, subsystem); // from now on the engine runs this queue's I/O
                    }
                    reply(qp, cid, NvmeStatus.SUCCESS, 1, 0); // controller id 1
                }
                case NvmeOpcode.FCTYPE_PROPERTY_GET -> {
                    long v = switch (FabricsConnectCommand.propertyOffset(cmd.segment(), cmd.base())) {
                        case 0x00 -> 1023 | (1L << 16) | (15L << 24) | (1L << 37); // CAP
                        case 0x08 -> 0x00010300;                                  // VS 1.3
                        case 0x14 -> cc;                                          // CC
                        case 0x1c -> (cc & 1) | (((cc >> 14) & 3) != 0 ? 8 : 0);  // CSTS: RDY, SHST
                        default -> 0;
                    };
                    reply(qp, cid, NvmeStatus.SUCCESS, (int) v, (int) (v >>> 32));
                }
                case NvmeOpcode.FCTYPE_PROPERTY_SET -> {
                    cc = FabricsConnectCommand.propertyValue(cmd.segment(), cmd.base());
                    reply(qp, cid, NvmeStatus.SUCCESS, 0, 0);
                }
                default -> reply(qp, cid, NvmeStatus.INVALID_OPCODE, 0, 0);
            }
            return;
        }
        switch (cmd.opcode()) {
            case NvmeOpcode.ADMIN_IDENTIFY -> identify(qp, cmd);
            case NvmeOpcode.ADMIN_SET_FEATURES -> reply(qp, cid, NvmeStatus.SUCCESS,
                    (cmd.cdw10() & 0xff) == 0x07 ? 0x00010001 : 0, 0); // 2 I/O queues
            case NvmeOpcode.ADMIN_GET_LOG_PAGE -> {
                int bytes = ((((cmd.cdw11() & 0xffff) << 16) | (cmd.cdw10() >>> 16)) + 1) * 4;
                data(qp, cid, new byte[Math.min(bytes, 4096)]); // empty logs
            }
            case NvmeOpcode.ADMIN_KEEP_ALIVE -> reply(qp, cid, NvmeStatus.SUCCESS, 0, 0);
            case NvmeOpcode.ADMIN_ASYNC_EVENT_REQUEST -> {
                // Held: this sample never raises events.
            }
            default -> reply(qp, cid, NvmeStatus.INVALID_OPCODE, 0, 0);
        }
    }

    private void identify(StaQp qp, NvmeCommand cmd) {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        switch (cmd.cdw10() & 0xff) {
            case 0x01 -> { // controller
                b.put(4, "JDOCASAMPLE0001     ".getBytes(StandardCharsets.US_ASCII));
                b.put(24, "jdoca STA offload sample                ".getBytes(StandardCharsets.US_ASCII));
                b.put(64, "0.1.0   ".getBytes(StandardCharsets.US_ASCII));
                b.put(77, (byte) 5).putShort(78, (short) 1).putInt(80, 0x00010300);
                b.put(111, (byte) 1).putShort(320, (short) 1).put(512, (byte) 0x66).put(513, (byte) 0x44);
                b.putShort(514, (short) 1024).putInt(516, 1).putInt(536, 1 | (1 << 20));
                b.put(768, nqn.getBytes(StandardCharsets.UTF_8));
                b.putInt(1792, (8192 + 64) / 16).putInt(1796, 1);
            }
            case 0x00 -> { // namespace
                if (cmd.nsid() == 1) {
                    b.putLong(0, ns.sizeBlocks()).putLong(8, ns.sizeBlocks()).putLong(16, ns.sizeBlocks());
                    b.putInt(128, 12 << 16); // LBA format 0: 4096-byte blocks
                }
            }
            case 0x02 -> b.putInt(0, cmd.nsid() < 1 ? 1 : 0); // active namespace list
            case 0x03 -> { // namespace descriptors: a UUID
                b.put(0, (byte) 3).put(1, (byte) 16).putLong(4, nqn.hashCode()).putLong(12, 1);
            }
            default -> {
                reply(qp, cmd.cid(), NvmeStatus.INVALID_FIELD, 0, 0);
                return;
            }
        }
        data(qp, cmd.cid(), b.array());
    }

    private void reply(StaQp qp, int cid, int status, int dw0, int dw1) {
        var t = io.taskNonOffloadSendAllocInit(qp, cid, status, dw0, dw1, 0);
        if (t != null && t.submit() != DocaError.SUCCESS) {
            t.free();
        }
    }

    private void data(StaQp qp, int cid, byte[] bytes) {
        var t = io.taskNonOffloadWriteSendAllocInit(qp, cid, MemorySegment.ofArray(bytes), 0, bytes.length, 0, 0, 0, 0);
        if (t != null && t.submit() != DocaError.SUCCESS) {
            t.free();
        }
    }
}
