package io.jdoca.rdma.samples;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.core.util.Epoll;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaConnectionState;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTransportType;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * DOCA's event-driven mode (doca-core §3.4.5) as a sample, {@code ./jdoca pe-event}: one thread waits in one
 * {@code epoll} of its own on two progress engines' notification handles and a socket. Engine a's RDMA context
 * sends messages to engine b's (two contexts of this process, connected by their blobs); a user thread asks for
 * each message by writing a byte to the socket and ends the run with {@code 'q'}. The loop: request notification
 * on both engines, wait, and for each ready handle clear its notification and progress it; for the socket, submit
 * a send. Every message is received and checked; the run prints how often each source woke the loop.
 *
 * <p>Thread rules: {@link #run} on one thread (plus the user thread it starts).
 */
public final class PeEventSample {
    private static final long TAG_A = 1;
    private static final long TAG_B = 2;
    private static final long TAG_SOCKET = 3;
    private static final int MSG = 64;

    private PeEventSample() {
    }

    /** One side: device, memory, engine and context. */
    private static final class Side implements AutoCloseable {
        final Dev dev;
        final SharedRegion region;
        final MemoryMap map = MemoryMap.create();
        final BufInventory inv = BufInventory.create(256);
        final ProgressEngine pe = ProgressEngine.create();
        final Rdma rdma;

        Side(String device, RdmaTransportType t, int gidIndex, int count) {
            dev = Devices.open(device);
            region = SharedMemory.allocate((long) MSG * count);
            RdmaSampleRuntime.check("doca_mmap_set_memrange", map.setMemrange(region.segment()));
            RdmaSampleRuntime.check("doca_mmap_add_dev", map.addDev(dev));
            RdmaSampleRuntime.check("doca_mmap_set_permissions", map.setPermissions(AccessFlags.LOCAL_READ_WRITE));
            RdmaSampleRuntime.check("doca_mmap_start", map.start());
            RdmaSampleRuntime.check("doca_buf_inventory_start", inv.start());
            rdma = Rdma.create(dev);
            if (t != null) {
                RdmaSampleRuntime.check("rdma transport", rdma.setTransport(t));
            }
            if (gidIndex >= 0) {
                RdmaSampleRuntime.check("doca_rdma_set_gid_index", rdma.setGidIndex(gidIndex));
            }
        }

        Buf buf(int i, long dataLen) {
            long a = map.baseAddress() + (long) i * MSG;
            return inv.getByArgs(map, a, MSG, a, dataLen);
        }

        @Override
        public void close() {
            if (rdma.state() != CtxState.IDLE) {
                rdma.stop();
                long end = System.nanoTime() + 10_000_000_000L;
                while (rdma.state() != CtxState.IDLE && System.nanoTime() < end) {
                    pe.progress();
                }
            }
            inv.stop();
            map.stop();
            region.close();
        }
    }

    /** Runs {@code count} messages from engine a to engine b; returns 0 when every one arrived intact. */
    public static int run(String device, RdmaTransportType transport, int gidIndex, int count, PrintStream out) {
        int[] sock = Epoll.socketPair();
        int ep = Epoll.create();
        int[] received = new int[1];
        int[] sent = new int[1];
        boolean[] bad = new boolean[1];
        try (Side a = new Side(device, transport, gidIndex, count); Side b = new Side(device, transport, gidIndex,
                count); Arena arena = Arena.ofConfined()) {
            RdmaSampleRuntime.check("doca_rdma_task_send_set_conf", a.rdma.taskSendSetConf((t, ud, cud) -> {
                sent[0]++;
                t.free();
            }, (t, ud, cud) -> {
                bad[0] = true;
                t.free();
            }, count));
            RdmaSampleRuntime.check("doca_rdma_task_receive_set_conf", b.rdma.taskReceiveSetConf((t, ud, cud) -> {
                String got = text(b, (int) ud, t.resultLen());
                bad[0] |= !got.equals("message " + received[0]);
                received[0]++;
                t.free();
            }, (t, ud, cud) -> {
                bad[0] = true;
                t.free();
            }, count));
            RdmaConnection ca = connect(a, b);
            for (int i = 0; i < count; i++) {
                RdmaSampleRuntime.check("doca_task_submit", b.rdma.taskReceiveAllocInit(b.buf(i, 0), i).submit());
            }
            RdmaSampleRuntime.check("epoll_ctl", Epoll.add(ep, a.pe.notificationHandle(), TAG_A) == 0
                    ? DocaError.SUCCESS : DocaError.OPERATING_SYSTEM);
            RdmaSampleRuntime.check("epoll_ctl", Epoll.add(ep, b.pe.notificationHandle(), TAG_B) == 0
                    ? DocaError.SUCCESS : DocaError.OPERATING_SYSTEM);
            RdmaSampleRuntime.check("epoll_ctl", Epoll.add(ep, sock[0], TAG_SOCKET) == 0
                    ? DocaError.SUCCESS : DocaError.OPERATING_SYSTEM);
            Thread user = Thread.ofPlatform().name("pe-event-user").start(() -> user(sock[1], count));
            MemorySegment events = Epoll.events(arena, 4);
            MemorySegment ts = arena.allocate(Epoll.TIMESPEC);
            MemorySegment in = arena.allocate(64);
            long[] wakes = new long[4];
            int asked = 0;
            boolean quit = false;
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!(quit && received[0] == count && sent[0] == count) && !bad[0] && System.nanoTime() < deadline) {
                a.pe.requestNotification();
                b.pe.requestNotification();
                int n = Epoll.await(ep, events, 4, 1_000_000_000L, ts);
                for (int i = 0; i < n; i++) {
                    long tag = Epoll.data(events, i);
                    wakes[(int) tag]++;
                    if (tag == TAG_A) {
                        a.pe.clearNotification();
                        while (a.pe.progress()) {
                            // everything that completed
                        }
                    } else if (tag == TAG_B) {
                        b.pe.clearNotification();
                        while (b.pe.progress()) {
                            // everything that completed
                        }
                    } else {
                        long r = Epoll.read(sock[0], in, in.byteSize());
                        for (int k = 0; k < r; k++) {
                            if (in.get(ValueLayout.JAVA_BYTE, k) == 'q') {
                                quit = true;
                            } else if (asked < count) {
                                int len = put(a, asked, "message " + asked);
                                RdmaSampleRuntime.check("doca_task_submit",
                                        a.rdma.taskSendAllocInit(ca, a.buf(asked, len), asked).submit());
                                asked++;
                            }
                        }
                    }
                }
            }
            user.join(10_000);
            out.println("pe-event: " + received[0] + " of " + count + " messages from engine a to engine b over "
                    + ca.transport() + (bad[0] ? ", SOME FAILED OR DIFFERED" : ", every one intact") + "; one epoll "
                    + "woke " + wakes[(int) TAG_A] + " times for engine a, " + wakes[(int) TAG_B] + " for engine b, "
                    + wakes[(int) TAG_SOCKET] + " for the socket");
            return !bad[0] && received[0] == count && sent[0] == count ? 0 : 1;
        } catch (RdmaSampleRuntime.SampleException | InterruptedException e) {
            out.println("pe-event: " + e.getMessage());
            return 1;
        } finally {
            Epoll.close(ep);
            Epoll.close(sock[0]);
            Epoll.close(sock[1]);
        }
    }

    /** The user: asks for {@code count} messages one byte at a time, then 'q'. */
    private static void user(int fd, int count) {
        MemorySegment one = Arena.ofAuto().allocate(1);
        for (int i = 0; i < count; i++) {
            one.set(ValueLayout.JAVA_BYTE, 0, (byte) 's');
            Epoll.write(fd, one, 1);
        }
        one.set(ValueLayout.JAVA_BYTE, 0, (byte) 'q');
        Epoll.write(fd, one, 1);
    }

    /** The two contexts exchange blobs in this process and progress until both run. */
    private static RdmaConnection connect(Side a, Side b) {
        RdmaSampleRuntime.check("doca_pe_connect_ctx", a.pe.connectCtx(a.rdma));
        RdmaSampleRuntime.check("doca_pe_connect_ctx", b.pe.connectCtx(b.rdma));
        a.rdma.start();
        b.rdma.start();
        RdmaExport xa = a.rdma.export();
        RdmaExport xb = b.rdma.export();
        RdmaSampleRuntime.check("doca_rdma_connect", a.rdma.connect(xb.blob(), xa.connection()));
        RdmaSampleRuntime.check("doca_rdma_connect", b.rdma.connect(xa.blob(), xb.connection()));
        long end = System.nanoTime() + 60_000_000_000L;
        while (!(a.rdma.state() == CtxState.RUNNING && b.rdma.state() == CtxState.RUNNING
                && xa.connection().state() == RdmaConnectionState.ESTABLISHED)) {
            if (System.nanoTime() > end) {
                throw new RdmaSampleRuntime.SampleException("the two contexts did not connect");
            }
            a.pe.progress();
            b.pe.progress();
        }
        return xa.connection();
    }

    private static int put(Side s, int i, String text) {
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(t, 0, s.region.segment(), ValueLayout.JAVA_BYTE, (long) i * MSG, t.length);
        return t.length;
    }

    private static String text(Side s, int i, long len) {
        byte[] t = new byte[(int) len];
        MemorySegment.copy(s.region.segment(), ValueLayout.JAVA_BYTE, (long) i * MSG, t, 0, t.length);
        return new String(t, StandardCharsets.US_ASCII);
    }
}
