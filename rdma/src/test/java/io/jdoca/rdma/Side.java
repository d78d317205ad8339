package io.jdoca.rdma;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Test fixture: one RDMA side (device, engine, context, a shared-memory map, an inventory), recording completions. */
final class Side implements AutoCloseable {
    /** A completion, snapshotted before the task is freed. */
    record Done(int kind, DocaError status, long userData, long resultLen, RdmaOpcode opcode, int immediate,
            RdmaConnection conn) {
    }

    static final long MEM = 4L << 20;
    final Dev dev;
    final ProgressEngine pe = ProgressEngine.create();
    final Rdma rdma;
    final SharedRegion region = SharedMemory.allocate(MEM);
    final MemorySegment mem = region.segment();
    final MemoryMap map = MemoryMap.create();
    final BufInventory inv = BufInventory.create(1 << 16);
    final List<Done> done = new ArrayList<>();
    final List<MemoryMap> imports = new ArrayList<>();
    boolean rearm;
    long count;
    long errors;

    /**
     * The tcp transport's threading for sides made from now on (a test class's choice), or null: the process default.
     */
    static TcpTransportAgent.Threading tcpThreading;

    Side(RdmaTransportType t, int ctxPerms, int mapPerms) {
        // The verbs transport needs an RDMA device (rxe0 in the Soft-RoCE guest); the others a software one.
        dev = Devices.open(t == RdmaTransportType.VERBS ? VerbsConformanceTest.device() : "sw0");
        rdma = Rdma.create(dev);
        if (tcpThreading != null) {
            rdma.tcpThreading = tcpThreading;
        }
        check(rdma.setTransport(t));
        check(rdma.setPermissions(ctxPerms));
        check(rdma.setMaxSendBufListLen(4));
        check(rdma.taskReceiveSetDstBufListLen(4));
        check(rdma.taskReceiveSetConf(rec(), rec(), 512));
        check(rdma.taskSendSetConf(rec(), rec(), 512));
        check(rdma.taskSendImmSetConf(rec(), rec(), 64));
        check(rdma.taskReadSetConf(rec(), rec(), 512));
        check(rdma.taskWriteSetConf(rec(), rec(), 512));
        check(rdma.taskWriteImmSetConf(rec(), rec(), 64));
        check(rdma.taskAtomicCmpSwpSetConf(rec(), rec(), 64));
        check(rdma.taskAtomicFetchAddSetConf(rec(), rec(), 256));
        check(rdma.taskRemoteNetSyncEventGetSetConf(rec(), rec(), 16));
        check(rdma.taskRemoteNetSyncEventNotifySetSetConf(rec(), rec(), 16));
        check(rdma.taskRemoteNetSyncEventNotifyAddSetConf(rec(), rec(), 16));
        check(pe.connectCtx(rdma));
        check(map.setMemrange(mem));
        check(map.addDev(dev));
        check(map.setPermissions(mapPerms));
        check(map.start());
        check(inv.start());
    }

    Side(RdmaTransportType t) {
        this(t, AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA,
                AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA);
    }

    static void check(DocaError e) {
        if (e != DocaError.SUCCESS) {
            throw new AssertionError("expected SUCCESS, got " + e);
        }
    }

    <T extends RdmaTask> TaskCallback<T> rec() {
        return (t, ud, cud) -> {
            if (rearm) {
                // Steady-state mode (allocation tests, benchmarks): count, re-arm, resubmit.
                count++;
                if (t.kind == RdmaTask.K_WRITE || t.kind == RdmaTask.K_WRITE_IMM) {
                    t.remote.resetDataLen();
                } else if (t.kind != RdmaTask.K_SEND && t.kind != RdmaTask.K_SEND_IMM) {
                    t.local.resetDataLen();
                }
                if (t.status() != DocaError.SUCCESS || t.submit() != DocaError.SUCCESS) {
                    errors++;
                    t.free();
                }
                return;
            }
            RdmaOpcode op = t instanceof RdmaTaskReceive r ? r.resultOpcode() : null;
            long rl = t.resultLen;
            done.add(new Done(t.kind, t.status(), ud, rl, op, t.immediate, t.conn));
            t.free();
        };
    }

    byte[] exportMap() {
        return map.exportRdma(dev);
    }

    MemoryMap importMap(byte[] blob) {
        MemoryMap m = MemoryMap.createFromExport(blob, dev);
        imports.add(m);
        return m;
    }

    /** A buffer over [off, off+len) of the local map with {@code dataLen} bytes of data. */
    Buf buf(long off, long len, long dataLen) {
        Buf b = inv.getByArgs(map, map.baseAddress() + off, len, map.baseAddress() + off, dataLen);
        if (b == null) {
            throw new AssertionError("inventory: " + inv.lastError());
        }
        return b;
    }

    Buf remoteBuf(MemoryMap remote, long off, long len, long dataLen) {
        Buf b = inv.getByArgs(remote, remote.baseAddress() + off, len, remote.baseAddress() + off, dataLen);
        if (b == null) {
            throw new AssertionError("inventory: " + inv.lastError());
        }
        return b;
    }

    void fill(long off, byte[] data) {
        MemorySegment.copy(data, 0, mem, java.lang.foreign.ValueLayout.JAVA_BYTE, off, data.length);
    }

    byte[] read(long off, int len) {
        byte[] b = new byte[len];
        MemorySegment.copy(mem, java.lang.foreign.ValueLayout.JAVA_BYTE, off, b, 0, len);
        return b;
    }

    static void progressUntil(BooleanSupplier cond, Duration timeout, String what, Side... sides) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            boolean any = false;
            for (Side s : sides) {
                any |= s.pe.progress();
            }
            if (!any) {
                Thread.onSpinWait();
            }
        }
    }

    /** Starts both contexts, exports and connects {@code n} connections; returns a's connections. */
    static RdmaConnection[] connect(Side a, Side b, int n, RdmaConnection[] bConns) {
        DocaError ea = a.rdma.start();
        DocaError eb = b.rdma.start();
        if (ea != DocaError.IN_PROGRESS || eb != DocaError.IN_PROGRESS) {
            throw new AssertionError("start: " + ea + " / " + eb);
        }
        RdmaConnection[] out = new RdmaConnection[n];
        for (int i = 0; i < n; i++) {
            RdmaExport xa = a.rdma.export();
            RdmaExport xb = b.rdma.export();
            check(a.rdma.connect(xb.blob(), xa.connection()));
            check(b.rdma.connect(xa.blob(), xb.connection()));
            out[i] = xa.connection();
            if (bConns != null) {
                bConns[i] = xb.connection();
            }
        }
        progressUntil(() -> a.rdma.state() == CtxState.RUNNING && b.rdma.state() == CtxState.RUNNING,
                Duration.ofSeconds(10), "both contexts RUNNING", a, b);
        return out;
    }

    /** Stops the context and progresses until IDLE. */
    void stop(Side... others) {
        if (rdma.state() != CtxState.IDLE && rdma.state() != CtxState.STOPPING) {
            rdma.stop();
        }
        Side[] all = new Side[others.length + 1];
        all[0] = this;
        System.arraycopy(others, 0, all, 1, others.length);
        progressUntil(() -> rdma.state() == CtxState.IDLE, Duration.ofSeconds(10), "context IDLE", all);
    }

    @Override
    public void close() {
        try {
            if (rdma.state() != CtxState.IDLE) {
                stop();
            }
        } finally {
            for (MemoryMap m : imports) {
                m.close();
            }
            map.close();
            region.close();
        }
    }
}
