package io.jdoca.ec;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.exec.Task;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/** A started EC context on a progress engine, over one local memory map; for tests. */
final class EcFixture implements AutoCloseable {
    final Arena arena = Arena.ofShared();
    final Dev dev = Devices.open("sw0");
    final MemorySegment mem;
    final MemoryMap mmap;
    final BufInventory inv = BufInventory.create(256);
    final ProgressEngine pe = ProgressEngine.create();
    final Ec ec;
    int completed;
    DocaError lastStatus;

    EcFixture(long size, RsEngine engine) {
        mem = arena.allocate(size, 64);
        mmap = MemoryMap.create();
        check(mmap.setMemrange(mem));
        check(mmap.addDev(dev));
        check(mmap.setPermissions(AccessFlags.LOCAL_READ_WRITE));
        check(mmap.start());
        check(inv.start());
        ec = Ec.create(dev, engine);
        check(ec.taskCreateSetConf((t, ud, cud) -> done(t), (t, ud, cud) -> done(t), 8));
        check(ec.taskRecoverSetConf((t, ud, cud) -> done(t), (t, ud, cud) -> done(t), 8));
        check(ec.taskUpdateSetConf((t, ud, cud) -> done(t), (t, ud, cud) -> done(t), 8));
        check(pe.connectCtx(ec));
        check(ec.start());
    }

    private void done(Task t) {
        completed++;
        lastStatus = t.status();
    }

    static void check(DocaError e) {
        if (e != DocaError.SUCCESS) {
            throw new AssertionError("expected SUCCESS, got " + e);
        }
    }

    /** A buffer with data [off, off+len) of the map. */
    Buf data(long off, long len) {
        return inv.getByData(mmap, mmap.baseAddress() + off, len);
    }

    /** An empty destination buffer over [off, off+len). */
    Buf dst(long off, long len) {
        return inv.getByAddr(mmap, mmap.baseAddress() + off, len);
    }

    /** Submits, progresses to completion, returns the status (task left allocated). */
    DocaError run(Task t) {
        DocaError e = t.submit();
        if (e != DocaError.SUCCESS) {
            return e;
        }
        int before = completed;
        if (!pe.progressUntil(() -> completed > before, io.jdoca.core.exec.IdleStrategy.backoff(),
                TimeUnit.SECONDS.toNanos(10))) {
            throw new AssertionError("task did not complete");
        }
        return lastStatus;
    }

    /** Like {@link #run} but with {@code trySubmit} (no submit-time checks). */
    DocaError run2(Task t) {
        DocaError e = t.trySubmit();
        if (e != DocaError.SUCCESS) {
            return e;
        }
        int before = completed;
        if (!pe.progressUntil(() -> completed > before, io.jdoca.core.exec.IdleStrategy.backoff(),
                TimeUnit.SECONDS.toNanos(10))) {
            throw new AssertionError("task did not complete");
        }
        return lastStatus;
    }

    static void release(Buf b) {
        while (b != null) {
            Buf n = b.next();
            b.decRefcount();
            b = n;
        }
    }

    @Override
    public void close() {
        if (ec.state() != io.jdoca.core.exec.CtxState.IDLE) {
            ec.stop();
        }
        pe.progressUntil(() -> ec.state() == io.jdoca.core.exec.CtxState.IDLE,
                io.jdoca.core.exec.IdleStrategy.backoff(), TimeUnit.SECONDS.toNanos(5));
        pe.close();
        mmap.stop();
        arena.close();
    }
}
