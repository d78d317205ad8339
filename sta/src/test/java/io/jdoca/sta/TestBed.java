package io.jdoca.sta;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.sta.backend.MemoryBackend;
import io.jdoca.sta.nvme.FabricsConnectCommand;
import io.jdoca.sta.nvme.NvmeCommand;
import io.jdoca.sta.nvme.NvmeOpcode;
import io.jdoca.sta.nvme.NvmeStatus;
import io.jdoca.sta.nvmf.rdma.NvmfRdmaTransport;
import io.jdoca.sta.nvmf.rdma.RdmaQueuePair;
import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A single-threaded STA engine for tests: main + IO context on one PE (the test thread), a
 * subsystem with one memory namespace, and a minimal non-offload handler that accepts Connect
 * (binding I/O queues to the subsystem) and answers everything else Invalid Opcode. Hosts named
 * "deny" are refused with Connect Invalid Host.
 */
final class TestBed implements AutoCloseable {
    static final String NQN = "nqn.2024-01.io.jdoca:test";
    final Dev dev = Devices.open("sw0");
    final Sta sta;
    final StaIo io;
    final ProgressEngine pe = ProgressEngine.create();
    final StaSubsystem subsys;
    final MemoryBackend backend;
    final StaNamespace ns;
    final List<String> nonOffloaded = new ArrayList<>();
    final List<String> transportErrors = new ArrayList<>();
    final List<Object> completed = new ArrayList<>();
    boolean autoAnswer = true;
    String connectSubNqn;
    String connectHostNqn;
    int connectCntlid = -1;
    long connectKato = -1;
    int connectSqsize = -1;
    int connectQid = -1;
    int lastCid = -1;
    StaQp lastQp;

    final List<String> timeouts = new ArrayList<>();

    TestBed(long nsBytes, int blockSize) {
        this(nsBytes, blockSize, false);
    }

    /** With {@code timeoutEveryOp}, the back-end timeout is 0 ns: every back-end call raises the event. */
    TestBed(long nsBytes, int blockSize, boolean timeoutEveryOp) {
        sta = Sta.create(dev);
        assertEquals(DocaError.SUCCESS, sta.addDev(dev));
        assertEquals(DocaError.SUCCESS, sta.eventBackendTimeoutRegisterCb((q, n, op, el) ->
                timeouts.add(q.backend().name() + "/" + n.nsid() + "/" + op)));
        if (timeoutEveryOp) {
            sta.setBackendTimeoutNanos(-1);
        }
        assertEquals(DocaError.SUCCESS, sta.taskRmNsSetConf((t, a, b) -> {
            completed.add(t.status());
            t.free();
        }, (t, a, b) -> {
            completed.add(t.status());
            t.free();
        }, 4));
        assertEquals(DocaError.SUCCESS, sta.taskDestroyBeQueueSetConf((t, a, b) -> {
            completed.add(t.status());
            t.free();
        }, (t, a, b) -> {
            completed.add(t.status());
            t.free();
        }, 4));
        assertEquals(DocaError.SUCCESS, pe.connectCtx(sta));
        assertEquals(DocaError.SUCCESS, sta.start());
        io = StaIo.create(sta);
        assertEquals(DocaError.SUCCESS, io.nonOffloadRegisterCb(this::onCommand, 7));
        assertEquals(DocaError.SUCCESS, io.eventTransportErrorRegisterCb((qp, op, why, d) -> transportErrors.add(op
                + ":" + why + ":" + d)));
        assertEquals(DocaError.SUCCESS, io.taskNonOffloadSendSetConf((t, a, b) -> t.free(), (t, a, b) -> t.free(), 64));
        assertEquals(DocaError.SUCCESS, io.taskNonOffloadWriteSendSetConf((t, a, b) -> t.free(), (t, a, b) -> t.free(),
                16));
        assertEquals(DocaError.SUCCESS, io.taskNonOffloadReadSetConf((t, a, b) -> {
            completed.add(t);
        }, (t, a, b) -> {
            completed.add(t.status());
            t.free();
        }, 4));
        assertEquals(DocaError.SUCCESS, io.taskDisconnectSetConf((t, a, b) -> {
            completed.add("disconnected");
            t.free();
        }, (t, a, b) -> t.free(), 4));
        assertEquals(DocaError.SUCCESS, pe.connectCtx(io));
        assertEquals(DocaError.SUCCESS, io.start());
        subsys = sta.subsystemCreate(NQN);
        backend = sta.backendCreate(new MemoryBackend("mem0", nsBytes));
        backend.addQueue();
        ns = subsys.addNs(1, blockSize, 1, backend);
    }

    private void onCommand(StaQp qp, NvmeCommand cmd, MemorySegment payload, int len, boolean valid, long ud) {
        assertEquals(7, ud);
        nonOffloaded.add(cmd.opcode() + "/" + cmd.fctype() + "/" + len + "/" + valid);
        lastCid = cmd.cid();
        lastQp = qp;
        if (cmd.opcode() == NvmeOpcode.FABRICS && cmd.fctype() == NvmeOpcode.FCTYPE_CONNECT && payload != null
                && len >= FabricsConnectCommand.DATA_LEN) {
            connectSubNqn = FabricsConnectCommand.subNqn(payload, 0);
            connectHostNqn = FabricsConnectCommand.hostNqn(payload, 0);
            connectCntlid = FabricsConnectCommand.cntlid(payload, 0);
            connectKato = FabricsConnectCommand.kato(cmd.segment(), cmd.base());
            connectSqsize = FabricsConnectCommand.sqsize(cmd.segment(), cmd.base());
            connectQid = FabricsConnectCommand.qid(cmd.segment(), cmd.base());
        }
        if (!autoAnswer) {
            return;
        }
        int status = NvmeStatus.INVALID_OPCODE;
        int dw0 = 0;
        if (cmd.opcode() == NvmeOpcode.FABRICS && cmd.fctype() == NvmeOpcode.FCTYPE_CONNECT && payload != null
                && len >= FabricsConnectCommand.DATA_LEN) {
            String host = FabricsConnectCommand.hostNqn(payload, 0);
            if (host.equals("deny") || !FabricsConnectCommand.subNqn(payload, 0).equals(NQN)) {
                status = NvmeStatus.CONNECT_INVALID_HOST;
            } else {
                status = NvmeStatus.SUCCESS;
                dw0 = 1;
                if (qp.qid() > 0) {
                    assertEquals(DocaError.SUCCESS, io.qpAddSubsystem(qp, subsys));
                }
                assertEquals(DocaError.SUCCESS, io.qpConnectSetSqSize(qp, FabricsConnectCommand.sqsize(cmd.segment(),
                        cmd.base()) + 1));
            }
        }
        StaIoTaskNonOffloadSend t = io.taskNonOffloadSendAllocInit(qp, cmd.cid(), status, dw0, 0, 0);
        assertEquals(DocaError.SUCCESS, t.submit());
    }

    long digestErrors() {
        return io.stats().get("digest_errors");
    }

    /** When set, {@link #pump} adds what this thread allocated during each pump to {@link #pumpBytes}. */
    boolean meterPump;
    /** Bytes allocated inside {@link #pump} (the target's engine alone) while {@link #meterPump}. */
    long pumpBytes;

    /** Progresses until nothing happens for a few rounds. */
    void pump() {
        if (meterPump) {
            long before = AllocationMeter.allocatedBytes();
            meterPump = false;
            pump();
            meterPump = true;
            pumpBytes += AllocationMeter.allocatedBytes() - before;
            return;
        }
        int idle = 0;
        for (int i = 0; i < 10_000 && idle < 3; i++) {
            idle = pe.progress() ? 0 : idle + 1;
        }
    }

    @Override
    public void close() {
        if (io.state() != CtxState.IDLE) {
            io.stop();
        }
        pe.progressUntil(() -> io.state() == CtxState.IDLE, IdleStrategy.yielding(), 5_000_000_000L);
        io.destroy();
        for (StaNamespace n : subsys.namespaces()) {
            subsys.rmNs(n);
        }
        sta.backendDestroy(backend);
        sta.stop();
        pe.progressUntil(() -> sta.state() == CtxState.IDLE, IdleStrategy.yielding(), 5_000_000_000L);
        sta.destroy();
        pe.close();
    }

    /**
     * An NVMe/RDMA queue pair over an already connected {@code rq} (a fake playing the host): accepted through the
     * registry.
     */
    StaQp adopt(RdmaQueuePair rq, int depth, java.net.SocketAddress remote,
                java.net.SocketAddress local) {
        return io.qpAccept(io.qpAlloc(), new NvmfRdmaTransport.Connection(rq, depth, remote, local));
    }
}
