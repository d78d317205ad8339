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
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaConnectionState;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTransportType;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * What every one of DOCA's RDMA samples does besides its one operation (doca-rdma "General Sample Steps"):
 * open the device, create a local memory map over its own memory and a buffer inventory, a progress engine and
 * an RDMA context with the sample's permissions and tasks (configured by the sample before {@link #start}), then
 * make the connection, either by descriptor files ({@code -ld} written, {@code -re} read: the user, or a test,
 * copies them between the peers) or through the connection manager ({@code -cm}: the responder side listens on
 * {@code -sa:-p}, the requester connects there). The mmap (or sync event) descriptor travels by the {@code -m}
 * file. Files are written atomically; a reader waits for the peer's file (bounded).
 *
 * <p>Thread rules: one thread (the sample's main thread drives the engine); not thread-safe.
 */
public final class RdmaSampleRuntime implements AutoCloseable {
    /**
     * The common arguments of DOCA's RDMA samples ({@code -d}, {@code -g}, {@code -ld}, {@code -re}, {@code -m}),
     * the CM mode ({@code -cm}, {@code -sa}, {@code -p}), a bound on every wait, and jdoca's transport choice
     * (null: the default, {@code -Djdoca.rdma.transport} or AUTO).
     */
    public record Options(String device, int gidIndex, Path localDescriptor, Path remoteDescriptor,
            Path mmapDescriptor, boolean useCm, InetAddress serverAddress, int cmPort, long timeoutMs,
            RdmaTransportType transport) {
        /** DOCA's default strings. */
        public static final String DEFAULT_STRING = "Hi DOCA RDMA!";
        /** The samples' CM port when none is given. */
        public static final int DEFAULT_CM_PORT = 18515;
    }

    /** A sample's buffer size (DOCA's samples use 4 KiB). */
    public static final int BUF_SIZE = 4096;

    final Options o;
    final PrintStream out;
    final Dev dev;
    final SharedRegion region;
    final MemoryMap map;
    final BufInventory inv = BufInventory.create(16);
    final ProgressEngine pe = ProgressEngine.create();
    final Rdma rdma;
    private final IdleStrategy idle = IdleStrategy.backoff();
    RdmaConnection conn;
    private boolean failed;
    /** Run once as soon as the context is RUNNING (a receiver posts its receive before the peer can send). */
    private Runnable onRunning;

    /** Opens the device and creates the map ({@code mapPerms}), inventory, engine and context ({@code ctxPerms}). */
    RdmaSampleRuntime(Options o, PrintStream out, int mapPerms, int ctxPerms) {
        this.o = o;
        this.out = out;
        this.dev = Devices.open(o.device());
        this.region = SharedMemory.allocate(2L * BUF_SIZE);
        this.map = MemoryMap.create();
        check("doca_mmap_set_memrange", map.setMemrange(region.segment()));
        check("doca_mmap_add_dev", map.addDev(dev));
        check("doca_mmap_set_permissions", map.setPermissions(mapPerms));
        check("doca_mmap_start", map.start());
        check("doca_buf_inventory_start", inv.start());
        this.rdma = Rdma.create(dev);
        check("doca_rdma_set_permissions", rdma.setPermissions(ctxPerms));
        if (o.transport() != null) {
            check("rdma transport", rdma.setTransport(o.transport()));
        }
        if (o.gidIndex() >= 0) {
            check("doca_rdma_set_gid_index", rdma.setGidIndex(o.gidIndex()));
        }
    }

    static void check(String call, DocaError e) {
        if (e != DocaError.SUCCESS) {
            throw new SampleException(call + " failed: " + e.description());
        }
    }

    /** A failed step, reported by the sample as one line. */
    static final class SampleException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        SampleException(String message) {
            super(message);
        }
    }

    /** The local buffer: {@code len} bytes at {@code off} of the map, holding {@code dataLen} bytes of data. */
    Buf buf(long off, long len, long dataLen) {
        return inv.getByArgs(map, map.baseAddress() + off, len, map.baseAddress() + off, dataLen);
    }

    /** Writes {@code s} NUL-terminated at {@code off} of the local memory; returns its length with the NUL. */
    int putString(long off, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        java.lang.foreign.MemorySegment.copy(b, 0, region.segment(), ValueLayout.JAVA_BYTE, off, b.length);
        region.segment().set(ValueLayout.JAVA_BYTE, off + b.length, (byte) 0);
        return b.length + 1;
    }

    /** The NUL-terminated string at {@code off} of the local memory (at most {@code max} bytes). */
    String getString(long off, int max) {
        int n = 0;
        while (n < max && region.segment().get(ValueLayout.JAVA_BYTE, off + n) != 0) {
            n++;
        }
        byte[] b = new byte[n];
        java.lang.foreign.MemorySegment.copy(region.segment(), ValueLayout.JAVA_BYTE, off, b, 0, n);
        return new String(b, StandardCharsets.US_ASCII);
    }

    /**
     * Connects the engine, starts the context and makes the connection: by descriptor files, or by the CM
     * ({@code listen}: this side waits for the peer, as the responder / receiver samples do). Returns once the
     * connection is established; throws {@link SampleException} naming what failed.
     */
    void start(boolean listen) {
        start(listen, null);
    }

    /** {@link #start(boolean)}, running {@code whenRunning} as soon as the context is RUNNING. */
    void start(boolean listen, Runnable whenRunning) {
        onRunning = whenRunning;
        check("doca_pe_connect_ctx", pe.connectCtx(rdma));
        if (o.useCm()) {
            check("doca_rdma_set_connection_state_callbacks", rdma.setConnectionStateCallbacks(
                    (req, ud) -> rdma.connectionAccept(req), (c, ud) -> conn = c, (c, ud) -> failed = true,
                    (c, ud) -> { }));
            if (listen) {
                check("doca_rdma_set_tcp_address", rdma.setTcpAddress(o.serverAddress(), null));
            }
        }
        DocaError s = rdma.start();
        if (s != DocaError.SUCCESS && s != DocaError.IN_PROGRESS) {
            check("doca_ctx_start", s);
        }
        if (o.useCm()) {
            if (listen) {
                check("doca_rdma_start_listen_to_port", rdma.startListenToPort(o.cmPort()));
                out.println("Listening on " + o.serverAddress().getHostAddress() + ":" + rdma.listenPort());
            } else {
                rdma.connectToAddr(new InetSocketAddress(o.serverAddress(), o.cmPort()), 0);
            }
            progressUntil(() -> conn != null || failed, "the CM connection");
            if (failed || conn.state() != RdmaConnectionState.ESTABLISHED) {
                throw new SampleException("the CM connection to the peer failed");
            }
        } else {
            RdmaExport x = rdma.export();
            try {
                RdmaPeerSample.writeDescriptor(o.localDescriptor(), x.blob());
                out.println("Local connection descriptor written to " + o.localDescriptor());
                byte[] peer = RdmaPeerSample.readDescriptor(o.remoteDescriptor(), o.timeoutMs());
                check("doca_rdma_connect", rdma.connect(peer, x.connection()));
            } catch (IOException e) {
                throw new SampleException("descriptor exchange: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SampleException("interrupted");
            }
            conn = x.connection();
            progressUntil(() -> rdma.state() == CtxState.RUNNING
                    && conn.state() == RdmaConnectionState.ESTABLISHED, "the connection");
        }
        out.println("Connected over " + conn.transport() + " (" + dev.devInfo().name() + ")");
    }

    /**
     * A message (or write with immediate) may reach the peer before it posted its receive (both sides see the
     * connection at about the same time): wait for it up to 10 s instead of DOCA's default RNR retry time.
     */
    void tolerateSlowReceiver() {
        check("doca_rdma_set_rnr_retry_timeout", rdma.setRnrRetryTimeoutMillis(Math.min(o.timeoutMs(), 10_000)));
    }

    /** Writes {@code blob} (an exported mmap or sync event) to the {@code -m} file. */
    void writeMmapDescriptor(byte[] blob) {
        try {
            RdmaPeerSample.writeDescriptor(o.mmapDescriptor(), blob);
        } catch (IOException e) {
            throw new SampleException("cannot write " + o.mmapDescriptor() + ": " + e.getMessage());
        }
    }

    /** Reads the peer's {@code -m} file (waiting for it), then removes it (a later run must not find it stale). */
    byte[] readMmapDescriptor() {
        try {
            byte[] b = RdmaPeerSample.readDescriptor(o.mmapDescriptor(), o.timeoutMs());
            deleteQuietly(o.mmapDescriptor());
            return b;
        } catch (IOException e) {
            throw new SampleException(e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SampleException("interrupted");
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // a descriptor left behind is only stale; the next run's reader reports a bad one
        }
    }

    /** Progresses until {@code done}, bounded by the timeout; throws naming {@code what} on timeout. */
    void progressUntil(BooleanSupplier done, String what) {
        BooleanSupplier d = () -> {
            if (onRunning != null && rdma.state() == CtxState.RUNNING) {
                Runnable r = onRunning;
                onRunning = null;
                r.run();
            }
            return done.getAsBoolean();
        };
        if (!pe.progressUntil(d, idle, o.timeoutMs() * 1_000_000L)) {
            throw new SampleException("timed out after " + o.timeoutMs() + " ms waiting for " + what);
        }
    }

    /** Progresses until the context stops (the peer closed the connection), bounded by the timeout. */
    void awaitPeerDone(String what) {
        progressUntil(() -> rdma.state() == CtxState.IDLE, what);
    }

    /** Stops the context (the peer sees the connection close) and progresses until it is idle. */
    void stop() {
        if (rdma.state() != CtxState.IDLE) {
            rdma.stop();
            pe.progressUntil(() -> rdma.state() == CtxState.IDLE, idle, 10_000_000_000L);
        }
    }

    @Override
    public void close() {
        stop();
        inv.stop();
        map.stop();
        region.close();
    }

    /** The map permissions DOCA's samples use for a local buffer only this side touches. */
    static final int LOCAL = AccessFlags.LOCAL_READ_WRITE;
}
