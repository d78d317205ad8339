package io.jdoca.storage.initiator;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.core.agent.EngineWorker;
import io.jdoca.core.agent.ThreadAllocation;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskState;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import io.jdoca.storage.common.AppSupport;
import io.jdoca.storage.wire.ConnectionRole;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;
import io.jdoca.storage.common.TcpControlChannel;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * An initiator that talks to target-rdma directly — TCP control channel and RDMA IO messages, as a
 * storage service does — with no Comch hop and no relay. Not a DOCA app: it is the same-run
 * baseline of {@code ./jdoca bench storage}, which measures what the zero-copy relay costs.
 * Throughput strategies only, one worker. {@link #run} is the whole life of one run.
 */
public final class RdmaDirectInitiator {
    private static final int MSG = IoMessage.SIZE;
    private static final long CMD = 10_000_000_000L;

    private RdmaDirectInitiator() {
    }

    /**
     * What a caller may do around a run (tests): fill the local memory before it ({@code before}), look
     * at it after the last IO ({@code after}), and learn which IO units the target acknowledged
     * ({@code acked[unit]} set to 1 when its response came back with success, allocation-free).
     */
    public record Hooks(java.util.function.Consumer<MemorySegment> before,
            java.util.function.Consumer<MemorySegment> after,
            java.util.concurrent.atomic.AtomicIntegerArray acked) {
        /** No hooks. */
        public static final Hooks NONE = new Hooks(m -> { }, m -> { }, null);
    }

    /**
     * Runs {@code ops} IOs of {@code blocksPerIo} blocks ({@code strategy} read or write throughput)
     * with {@code transactions} in flight against the target at {@code target}.
     */
    public static InitiatorStats run(String device, InetSocketAddress target, ExecutionStrategy strategy, long ops,
            int transactions, int blocksPerIo) {
        return run(device, target, strategy, ops, transactions, blocksPerIo, Hooks.NONE);
    }

    /** {@link #run(String, InetSocketAddress, ExecutionStrategy, long, int, int)} with {@code hooks}. */
    public static InitiatorStats run(String device, InetSocketAddress target, ExecutionStrategy strategy, long ops,
            int transactions, int blocksPerIo, Hooks hooks) {
        if (!strategy.isThroughput()) {
            throw new DocaException(DocaError.NOT_SUPPORTED, "the direct initiator runs throughput strategies only");
        }
        Dev dev = Devices.open(device);
        int id = 0;
        try (TcpControlChannel ch = TcpControlChannel.client(target, CMD)) {
            ControlPayload.StorageInfo info = ch.request(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST,
                    id++, 0), CMD)
                    .asStorageInfo();
            long ioSize = (long) info.blockSize() * blocksPerIo;
            long units = info.totalSize() / ioSize;
            // Shared memory, so a same-host target reaches it over the shared-memory RDMA transport.
            io.jdoca.core.mem.SharedRegion region = io.jdoca.core.mem.SharedMemory.allocate(info.totalSize());
            MemorySegment local = region.segment();
            hooks.before().accept(local);
            MemoryMap ioMap = MemoryMap.create();
            ioMap.setMemrange(local);
            ioMap.addDev(dev);
            ioMap.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE);
            DocaException.check(ioMap.start(), "io map");
            ch.request(new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, id++, 0,
                    new ControlPayload.InitStorage(transactions, 1, ioMap.exportRdma(dev))), CMD);
            try (Worker w = new Worker(dev, transactions, strategy, ioSize, units, ops, hooks.acked())) {
                for (ConnectionRole role : new ConnectionRole[] {ConnectionRole.IO_DATA, ConnectionRole.IO_CONTROL}) {
                    byte[] mine = w.export(role);
                    ControlMessage r = ch.request(new ControlMessage(ControlMessageType.CREATE_RDMA_CONNECTION_REQUEST,
                            id++, 0,
                            new ControlPayload.RdmaConnection(0, role, mine)), CMD);
                    w.connect(role, r.asRdmaConnection().connectionDetails());
                }
                ch.request(ControlMessage.of(ControlMessageType.START_STORAGE_REQUEST, id++, 0), CMD);
                long deadline = System.nanoTime() + CMD;
                while (!w.isReady()) {
                    if (System.nanoTime() > deadline) {
                        throw new DocaException(DocaError.TIME_OUT, "rdma connections not established");
                    }
                    Thread.sleep(2);
                }
                InitiatorStats s = w.runAndWait();
                hooks.after().accept(local);
                ch.request(ControlMessage.of(ControlMessageType.STOP_STORAGE_REQUEST, id++, 0), CMD);
                ch.request(ControlMessage.of(ControlMessageType.SHUTDOWN_REQUEST, id++, 0), CMD);
                return s;
            } finally {
                ioMap.close();
                region.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DocaException(DocaError.UNEXPECTED, "interrupted");
        }
    }

    /** The single data-path worker: RDMA send of requests, RDMA receive of responses. */
    private static final class Worker implements AutoCloseable {
        private final EngineWorker thread = EngineWorker.withEngine("rdma-initiator", AppSupport.workerIdle());
        private final Dev dev;
        private final int n;
        private final ExecutionStrategy strategy;
        private final long ioSize;
        private final long units;
        private final long ops;
        private final Arena arena = Arena.ofShared();
        private final IoMessage view = new IoMessage();
        private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        private final CountDownLatch done = new CountDownLatch(1);
        private Rdma ctrl;
        private Rdma data;
        private RdmaConnection ctrlConn;
        private RdmaConnection dataConn;
        private MemoryMap msgMap;
        private BufInventory inv;
        private Buf[] req;
        private Buf[] resp;
        private RdmaTaskSend[] sends;
        private RdmaTaskReceive[] recvs;
        private long[] start;
        private int[] pending;
        private long issued;
        private long completed;
        private long nextUnit;
        private long t0;
        private long t1;
        private long hits0;
        private long misses0;
        private long alloc0;
        private volatile InitiatorStats stats;
        private volatile String failure;
        /** Units acknowledged with success (null: not recorded); the unit of each transaction's IO. */
        private final java.util.concurrent.atomic.AtomicIntegerArray acked;
        private long[] unitOf;

        Worker(Dev dev, int n, ExecutionStrategy strategy, long ioSize, long units, long ops,
                java.util.concurrent.atomic.AtomicIntegerArray acked) {
            this.acked = acked;
            this.dev = dev;
            this.n = n;
            this.strategy = strategy;
            this.ioSize = ioSize;
            this.units = units;
            this.ops = ops;
            thread.run(this::create, CMD);
        }

        private void create() {
            int q = AppSupport.pow2(Math.max(16, n));
            ctrl = Rdma.create(dev);
            data = Rdma.create(dev);
            for (Rdma r : new Rdma[] {ctrl, data}) {
                r.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ | AccessFlags.RDMA_WRITE);
                r.setSendQueueSize(q);
                r.setRecvQueueSize(q);
            }
            DocaException.check(ctrl.taskSendSetConf(this::onSend, this::onError, n), "send conf");
            DocaException.check(ctrl.taskReceiveSetConf(this::onRecv, this::onError, n), "recv conf");
            thread.pe().connectCtx(ctrl);
            thread.pe().connectCtx(data);
            ctrl.start();
            data.start();
            msgMap = MemoryMap.create();
            msgMap.setMemrange(arena.allocate((long) MSG * 2 * n, 64));
            msgMap.addDev(dev);
            msgMap.setPermissions(AccessFlags.LOCAL_READ_WRITE);
            msgMap.start();
            inv = BufInventory.create(2 * n);
            inv.start();
        }

        byte[] export(ConnectionRole role) {
            return thread.execute(() -> {
                Rdma r = role == ConnectionRole.IO_DATA ? data : ctrl;
                RdmaExport ex = r.export();
                if (role == ConnectionRole.IO_DATA) {
                    dataConn = ex.connection();
                } else {
                    ctrlConn = ex.connection();
                }
                return ex.blob();
            }, CMD);
        }

        void connect(ConnectionRole role, byte[] peer) {
            thread.run(() -> DocaException.check((role == ConnectionRole.IO_DATA ? data : ctrl).connect(peer,
                    role == ConnectionRole.IO_DATA ? dataConn : ctrlConn), "rdma connect"), CMD);
        }

        boolean isReady() {
            return thread.execute(() -> ctrl.state() == CtxState.RUNNING && data.state() == CtxState.RUNNING, CMD);
        }

        InitiatorStats runAndWait() throws InterruptedException {
            thread.run(() -> {
                req = new Buf[n];
                resp = new Buf[n];
                sends = new RdmaTaskSend[n];
                recvs = new RdmaTaskReceive[n];
                start = new long[n];
                pending = new int[n];
                unitOf = new long[n];
                for (int i = 0; i < n; i++) {
                    req[i] = inv.getByData(msgMap, msgMap.baseAddress() + (long) MSG * i, MSG);
                    resp[i] = inv.getByAddr(msgMap, msgMap.baseAddress() + (long) MSG * (n + i), MSG);
                    sends[i] = ctrl.taskSendAllocInit(ctrlConn, req[i], i);
                    recvs[i] = ctrl.taskReceiveAllocInit(resp[i], i);
                    DocaException.check(recvs[i].submit(), "post receive");
                }
                hits0 = thread.pe().hits();
                misses0 = thread.pe().misses();
                alloc0 = ThreadAllocation.current();
                t0 = System.nanoTime();
                for (int i = 0; i < n && issued < ops; i++) {
                    issue(i);
                }
            }, CMD);
            if (!done.await(10, TimeUnit.MINUTES) || failure != null) {
                throw new DocaException(DocaError.IO_FAILED, failure == null ? "direct run did not finish" : failure);
            }
            return stats;
        }

        private void issue(int i) {
            long unit = nextUnit;
            nextUnit = nextUnit + 1 == units ? 0 : nextUnit + 1;
            view.wrap(req[i].segment(), req[i].dataOffset()).setRequest(
                    strategy.write() ? IoMessageType.WRITE : IoMessageType.READ, i, (int) ioSize, unit * ioSize,
                    unit * ioSize);
            issued++;
            unitOf[i] = unit;
            start[i] = System.nanoTime();
            pending[i] = 2;
            if (sends[i].submit() != DocaError.SUCCESS) {
                fail("submit failed");
            }
        }

        private void onSend(RdmaTaskSend t, long ud, long cud) {
            step((int) ud);
        }

        private void onRecv(RdmaTaskReceive t, long ud, long cud) {
            int j = (int) ud;
            view.wrap(resp[j].segment(), resp[j].dataOffset());
            int i = (int) view.userData();
            int result = view.result();
            resp[j].resetDataLen();
            recvs[j].submit();
            if (result != 0) {
                fail("IO failed: " + DocaError.fromCode(result).docaName());
                return;
            }
            step(i);
        }

        private void step(int i) {
            if (--pending[i] > 0) {
                return;
            }
            latency.recordValue(Math.min(System.nanoTime() - start[i], latency.getHighestTrackableValue()));
            completed++;
            if (acked != null && unitOf[i] < acked.length()) {
                acked.set((int) unitOf[i], 1);
            }
            if (issued < ops) {
                issue(i);
            } else if (completed == ops) {
                t1 = System.nanoTime();
                long alloc = ThreadAllocation.current() - alloc0;
                stats = InitiatorStats.of((t1 - t0) / 1e9, completed, ioSize, thread.pe().hits() - hits0,
                        thread.pe().misses() - misses0, latency, alloc);
                done.countDown();
            }
        }

        private void onError(Task t, long ud, long cud) {
            if (t.status() != DocaError.SHUTDOWN) {
                fail("task failed: " + t.status().docaName());
            }
        }

        private void fail(String why) {
            if (failure == null) {
                failure = why;
                done.countDown();
            }
        }

        @Override
        public void close() {
            try {
                thread.run(() -> {
                    ctrl.stop();
                    data.stop();
                }, CMD);
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (System.nanoTime() < deadline) {
                    boolean idle = thread.execute(() -> {
                        freeAll(sends);
                        freeAll(recvs);
                        return ctrl.state() == CtxState.IDLE && data.state() == CtxState.IDLE;
                    }, CMD);
                    if (idle) {
                        break;
                    }
                    Thread.sleep(2);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (DocaException e) {
                // teardown is best effort
            } finally {
                thread.close();
                arena.close();
            }
        }

        private static void freeAll(Task[] ts) {
            if (ts == null) {
                return;
            }
            for (int i = 0; i < ts.length; i++) {
                if (ts[i] != null && ts[i].state() != TaskState.SUBMITTED) {
                    ts[i].free();
                    ts[i] = null;
                }
            }
        }
    }
}
