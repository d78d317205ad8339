package io.jdoca.rdma.samples;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.core.sync.SyncEvent;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTaskAtomicFetchAdd;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import io.jdoca.rdma.RdmaTransportType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * A DOCA-samples-style RDMA peer (after {@code rdma_send}/{@code rdma_receive} and the
 * requester/responder samples): descriptors are exchanged through files, as the DOCA samples do
 * with {@code -ld}/{@code -re}/{@code -m}. Two roles:
 *
 * <ul>
 *   <li>{@code echo}: exports a shared-memory map (RDMA read/write/atomic), posts receives and sends
 *       every received message back on the connection it came from; runs until the connection ends.</li>
 *   <li>{@code fetch-add}: imports the peer's map from {@code --mmap-descriptor-path} and adds 1 to
 *       the 8 bytes at its start {@code --count} times (16 in flight), then prints {@code DONE}.</li>
 * </ul>
 * Usage: {@code RdmaPeerSample echo|fetch-add --transport shm|tcp|verbs|auto [-d DEV] -ld FILE -re FILE -m FILE
 * [--count N] [--go FILE]
 * [--sync-event FILE]} ({@code --go}: fetch-add waits for that file to exist before starting;
 * {@code --sync-event}: echo also exports a sync event for remote-net access,
 * {@code SyncEvent.exportToRemoteNet()}, to that file, and prints {@code EVENT <value>} at the end).
 * Prints {@code RUNNING} once connected. Exit code 0 on success.
 */
public final class RdmaPeerSample {
    private static final int RECV_TASKS = 32;
    private static final int MSG = 64 * 1024;

    private RdmaPeerSample() {
    }

    /** The device ({@code -d}; default sw0, an RDMA device such as rxe0 for the verbs transport). */
    private static String device = "sw0";

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        RdmaTransportType transport = RdmaTransportType.AUTO;
        Path ld = null;
        Path re = null;
        Path mm = null;
        long count = 1000;
        Path go = null;
        Path ev = null;
        for (int i = 1; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "-d", "--device" -> device = args[i + 1];
                case "--transport" -> transport = RdmaTransportType.valueOf(args[i + 1].toUpperCase(Locale.ROOT));
                case "-ld", "--local-descriptor-path" -> ld = Path.of(args[i + 1]);
                case "-re", "--remote-descriptor-path" -> re = Path.of(args[i + 1]);
                case "-m", "--mmap-descriptor-path" -> mm = Path.of(args[i + 1]);
                case "--count" -> count = Long.parseLong(args[i + 1]);
                case "--go" -> go = Path.of(args[i + 1]);
                case "--sync-event" -> ev = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (ld == null || re == null || mm == null || !(mode.equals("echo") || mode.equals("fetch-add"))) {
            System.err.println("usage: RdmaPeerSample echo|fetch-add --transport shm|tcp|verbs|auto [-d DEV] -ld FILE "
                    + "-re FILE -m FILE [--count N]");
            System.exit(2);
        }
        System.exit(mode.equals("echo") ? echo(transport, ld, re, mm, ev) : fetchAdd(transport, ld, re, mm, count, go));
    }

    /** Writes a descriptor file atomically (the peer polls for it). */
    public static void writeDescriptor(Path p, byte[] blob) throws IOException {
        Path tmp = p.resolveSibling(p.getFileName() + ".tmp");
        Files.write(tmp, blob);
        Files.move(tmp, p, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** Waits (bounded) for the peer's descriptor file. */
    public static byte[] readDescriptor(Path p, long timeoutMs) throws IOException, InterruptedException {
        return readDescriptor(p, timeoutMs, null);
    }

    /**
     * Waits (bounded) for the descriptor file that process {@code writer} (null: unknown) writes, and gives up
     * at once when that process has exited: a peer that died is not waited for until the timeout.
     */
    public static byte[] readDescriptor(Path p, long timeoutMs, Process writer) throws IOException,
            InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (!Files.exists(p)) {
            if (writer != null && !writer.isAlive() && !Files.exists(p)) {
                throw new IOException("descriptor " + p + " will not appear: the process writing it exited with status "
                        + writer.exitValue());
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IOException("descriptor " + p + " did not appear within " + timeoutMs + " ms");
            }
            Thread.sleep(10);
        }
        return Files.readAllBytes(p);
    }

    private static final class Echo {
        Rdma rdma;
        RdmaTaskReceive[] recvs = new RdmaTaskReceive[RECV_TASKS];
    }

    private static int echo(RdmaTransportType transport, Path ld, Path re, Path mm, Path ev) throws Exception {
        Dev dev = Devices.open(device);
        SyncEvent event = null;
        if (ev != null) {
            event = SyncEvent.create();
            event.addPublisherLocationCpu(dev);
            event.addSubscriberLocationRemoteNet();
            if (event.start() != DocaError.SUCCESS) {
                System.out.println("sync event start failed");
                return 1;
            }
            writeDescriptor(ev, event.exportToRemoteNet());
        }
        SharedRegion region = SharedMemory.allocate((long) RECV_TASKS * MSG + 4096);
        MemoryMap map = MemoryMap.create();
        map.setMemrange(region.segment());
        map.addDev(dev);
        map.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA);
        map.start();
        BufInventory inv = BufInventory.create(RECV_TASKS);
        inv.start();
        ProgressEngine pe = ProgressEngine.create();
        Echo st = new Echo();
        Rdma rdma = Rdma.create(dev);
        st.rdma = rdma;
        rdma.setTransport(transport);
        rdma.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA);
        rdma.taskReceiveSetConf((t, ud, cud) -> {
            // Echo the message back on the connection it came from, from the same buffer.
            RdmaTaskSend s = rdma.taskSendAllocInit(t.resultConnection(), t.dst(), ud);
            if (s == null || s.submit() != DocaError.SUCCESS) {
                t.free();
                if (s != null) {
                    s.free();
                }
            }
        }, (t, ud, cud) -> t.free(), RECV_TASKS);
        rdma.taskSendSetConf((t, ud, cud) -> {
            RdmaTaskReceive r = st.recvs[(int) ud];
            r.dst().resetDataLen();
            t.free();
            if (r.submit() != DocaError.SUCCESS) {
                r.free();
            }
        }, (t, ud, cud) -> {
            st.recvs[(int) ud].free();
            t.free();
        }, RECV_TASKS);
        pe.connectCtx(rdma);
        rdma.start();
        RdmaExport x = rdma.export();
        writeDescriptor(mm, map.exportRdma(dev));
        writeDescriptor(ld, x.blob());
        DocaError e = rdma.connect(readDescriptor(re, 30_000), x.connection());
        if (e != DocaError.SUCCESS) {
            System.out.println("connect failed: " + e);
            return 1;
        }
        IdleStrategy idle = IdleStrategy.backoff();
        if (!pe.progressUntil(() -> rdma.state() == CtxState.RUNNING, idle, 30_000_000_000L)) {
            System.out.println("not connected: " + rdma.state());
            return 1;
        }
        for (int i = 0; i < RECV_TASKS; i++) {
            Buf b = inv.getByAddr(map, map.baseAddress() + (long) i * MSG, MSG);
            st.recvs[i] = rdma.taskReceiveAllocInit(b, i);
            st.recvs[i].submit();
        }
        System.out.println("RUNNING " + x.connection().transport());
        System.out.flush();
        while (rdma.state() != CtxState.IDLE) {
            idle.idle(pe.progress() ? 1 : 0);
        }
        System.out.println("IDLE");
        if (event != null) {
            System.out.println("EVENT " + event.get());
            event.close();
        }
        return 0;
    }

    private static int fetchAdd(RdmaTransportType transport, Path ld, Path re, Path mm, long count,
            Path go) throws Exception {
        Dev dev = Devices.open(device);
        SharedRegion region = SharedMemory.allocate(4096);
        MemoryMap local = MemoryMap.create();
        local.setMemrange(region.segment());
        local.addDev(dev);
        local.setPermissions(AccessFlags.LOCAL_READ_WRITE);
        local.start();
        BufInventory inv = BufInventory.create(64);
        inv.start();
        ProgressEngine pe = ProgressEngine.create();
        Rdma rdma = Rdma.create(dev);
        rdma.setTransport(transport);
        long[] state = new long[3]; // submitted, completed, errors
        rdma.taskAtomicFetchAddSetConf((t, ud, cud) -> {
            state[1]++;
            t.result().resetDataLen();
            if (state[0] < count) {
                state[0]++;
                t.submit();
            } else {
                t.free();
            }
        }, (t, ud, cud) -> {
            state[1]++;
            state[2]++;
            t.free();
        }, 16);
        pe.connectCtx(rdma);
        rdma.start();
        RdmaExport x = rdma.export();
        writeDescriptor(ld, x.blob());
        DocaError e = rdma.connect(readDescriptor(re, 30_000), x.connection());
        if (e != DocaError.SUCCESS) {
            System.out.println("connect failed: " + e);
            return 1;
        }
        IdleStrategy idle = IdleStrategy.backoff();
        if (!pe.progressUntil(() -> rdma.state() == CtxState.RUNNING, idle, 30_000_000_000L)) {
            System.out.println("not connected: " + rdma.state());
            return 1;
        }
        System.out.println("RUNNING " + x.connection().transport());
        MemoryMap remote = MemoryMap.createFromExport(readDescriptor(mm, 30_000), dev);
        Buf target = inv.getByData(remote, remote.baseAddress(), 8);
        if (go != null) {
            // Start together with the other requesters, so the atomics really contend.
            readDescriptor(go, 60_000);
        }
        RdmaConnection c = x.connection();
        for (int i = 0; i < 16 && state[0] < count; i++) {
            state[0]++;
            RdmaTaskAtomicFetchAdd t = rdma.taskAtomicFetchAddAllocInit(c, target,
                    inv.getByAddr(local, local.baseAddress() + i * 8L, 8), 1, i);
            t.submit();
        }
        pe.progressUntil(() -> state[1] >= count || rdma.state() != CtxState.RUNNING, idle, 60_000_000_000L);
        System.out.println("DONE " + state[1] + " errors " + state[2]);
        System.out.flush();
        rdma.stop();
        pe.progressUntil(() -> rdma.state() == CtxState.IDLE, idle, 10_000_000_000L);
        return state[2] == 0 && state[1] >= count ? 0 : 1;
    }
}
