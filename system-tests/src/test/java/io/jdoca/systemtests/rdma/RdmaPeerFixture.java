package io.jdoca.systemtests.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.exec.Task;
import io.jdoca.core.exec.TaskCallback;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaConnection;
import io.jdoca.rdma.RdmaExport;
import io.jdoca.rdma.RdmaTransportType;
import io.jdoca.rdma.samples.RdmaPeerSample;
import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The process set-up the two-JVM RDMA system tests share: a child JVM running the echo peer
 * ({@link RdmaPeerSample}, descriptors through files in {@code dir}, as the DOCA samples), and in
 * this JVM a shared-memory region mapped for local access, an inventory, a progress engine and an
 * RDMA context on {@code transport}. {@link #connect()} exchanges the descriptors and waits until
 * both sides are RUNNING. Task callbacks made with {@link #done} and {@link #failed} count
 * completions and free the task. Test thread only; {@link #close()} ends the child and frees the region.
 */
final class RdmaPeerFixture implements AutoCloseable {
    static final Duration T = Duration.ofSeconds(60);

    final RdmaTransportType transport;
    final JavaProcess child;
    final SharedRegion region;
    final Dev dev;
    final MemoryMap map;
    final BufInventory inv;
    final ProgressEngine pe;
    final Rdma rdma;
    final IdleStrategy idle = IdleStrategy.backoff();
    /** Successful completions, by the slot the test gave the callback ({@link #done(int)}). */
    final long[] done = new long[4];
    /** Failed completions, and the last failure's status. */
    long errors;
    DocaError lastError;
    final Path childMmap;
    private final Path childDesc;
    private final Path parentDesc;
    private RdmaExport export;

    /** Starts the child echo peer with {@code extraArgs} and builds this side's objects (not connected yet). */
    RdmaPeerFixture(String name, RdmaTransportType transport, Path dir, long regionBytes, int inventory,
            List<String> extraArgs) throws IOException {
        this.transport = transport;
        this.childDesc = dir.resolve("child.desc");
        this.parentDesc = dir.resolve("parent.desc");
        this.childMmap = dir.resolve("child-mmap.desc");
        List<String> args = new ArrayList<>(List.of("echo", "--transport", transport.name(), "-ld",
                childDesc.toString(),
                "-re", parentDesc.toString(), "-m", childMmap.toString()));
        args.addAll(extraArgs);
        this.child = JavaProcess.start(name + "-" + transport, RdmaPeerSample.class.getName(), args);
        this.region = SharedMemory.allocate(regionBytes);
        this.dev = Devices.open("sw0");
        this.map = MemoryMap.create();
        map.setMemrange(region.segment());
        map.addDev(dev);
        map.setPermissions(AccessFlags.LOCAL_READ_WRITE);
        assertEquals(DocaError.SUCCESS, map.start());
        this.inv = BufInventory.create(inventory);
        inv.start();
        this.pe = ProgressEngine.create();
        this.rdma = Rdma.create(dev);
        rdma.setTransport(transport);
    }

    /** A success callback: counts into {@code done[slot]} and frees the task. */
    <T extends Task> TaskCallback<T> done(int slot) {
        return (t, ud, cud) -> {
            done[slot]++;
            t.free();
        };
    }

    /** An error callback: counts into {@link #errors}, keeps the status and frees the task. */
    <T extends Task> TaskCallback<T> failed() {
        return (t, ud, cud) -> {
            errors++;
            lastError = t.status();
            t.free();
        };
    }

    /** Connects to the child (descriptor files) and waits until both sides are RUNNING; returns the connection. */
    RdmaConnection connect() throws IOException, InterruptedException {
        pe.connectCtx(rdma);
        assertEquals(DocaError.IN_PROGRESS, rdma.start());
        export = rdma.export();
        RdmaPeerSample.writeDescriptor(parentDesc, export.blob());
        assertEquals(DocaError.SUCCESS, rdma.connect(RdmaPeerSample.readDescriptor(childDesc, 60_000, child.process()),
                export.connection()));
        assertTrue(pe.progressUntil(() -> rdma.state() == CtxState.RUNNING, idle, T.toNanos()), "connected");
        child.awaitOutput("RUNNING " + transport, T);
        return export.connection();
    }

    /** Progresses the engine until {@code done} (a test failure after {@link #T}). */
    void progressUntil(BooleanSupplier done, String what) {
        assertTrue(pe.progressUntil(done, idle, T.toNanos()), what);
    }

    /** Disconnects: this side goes IDLE, the child sees it and exits 0. */
    void disconnectAndExpectCleanChildExit() {
        rdma.stop();
        progressUntil(() -> rdma.state() == CtxState.IDLE, "IDLE");
        assertEquals(0, child.awaitExit(T), child.output());
    }

    @Override
    public void close() {
        try {
            map.close();
            region.close();
        } finally {
            child.close();
        }
    }
}
