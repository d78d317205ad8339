package io.jdoca.compress;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.exec.Task;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/** A started Compress context with every task type configured, over one local map; for tests. */
final class CompressFixture implements AutoCloseable {
    final Arena arena = Arena.ofShared();
    final Dev dev = Devices.open("sw0");
    final MemorySegment mem;
    final MemoryMap mmap;
    final BufInventory inv = BufInventory.create(512);
    final ProgressEngine pe = ProgressEngine.create();
    final Compress c;
    int completed;
    DocaError lastStatus;

    CompressFixture(long size, Lz4Codec codec) {
        mem = arena.allocate(size, 64);
        mmap = MemoryMap.create();
        check(mmap.setMemrange(mem));
        check(mmap.addDev(dev));
        check(mmap.setPermissions(AccessFlags.LOCAL_READ_WRITE));
        check(mmap.start());
        check(inv.start());
        c = Compress.create(dev, codec, 1);
        check(c.taskCompressDeflateSetConf((t, u, cu) -> done(t), (t, u, cu) -> done(t), 4));
        check(c.taskDecompressDeflateSetConf((t, u, cu) -> done(t), (t, u, cu) -> done(t), 4));
        check(c.taskCompressLz4BlockSetConf((t, u, cu) -> done(t), (t, u, cu) -> done(t), 4));
        check(c.taskDecompressLz4BlockSetConf((t, u, cu) -> done(t), (t, u, cu) -> done(t), 4));
        check(c.taskCompressLz4StreamSetConf((t, u, cu) -> done(t), (t, u, cu) -> done(t), 4));
        check(c.taskDecompressLz4StreamSetConf((t, u, cu) -> done(t), (t, u, cu) -> done(t), 4));
        check(pe.connectCtx(c));
        check(c.start());
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

    void put(long off, byte[] b) {
        MemorySegment.copy(b, 0, mem, ValueLayout.JAVA_BYTE, off, b.length);
    }

    byte[] get(long off, long len) {
        return mem.asSlice(off, len).toArray(ValueLayout.JAVA_BYTE);
    }

    Buf data(long off, long len) {
        return inv.getByData(mmap, mmap.baseAddress() + off, len);
    }

    Buf dst(long off, long len) {
        return inv.getByAddr(mmap, mmap.baseAddress() + off, len);
    }

    /** Stops the context, lets {@code configure} change it while idle, and starts it again. */
    void restart(java.util.function.Consumer<Compress> configure) {
        c.stop();
        if (!pe.progressUntil(() -> c.state() == CtxState.IDLE, IdleStrategy.backoff(), TimeUnit.SECONDS.toNanos(5))) {
            throw new AssertionError("context did not stop");
        }
        configure.accept(c);
        check(c.start());
    }

    /** Returns every buffer of a list to the inventory. */
    static void release(Buf head) {
        Buf b = head;
        int n = 0;
        while (b != null && n++ < 1000) {
            Buf next = b.next();
            b.decRefcount();
            b = next;
        }
    }

    /** Submits (trySubmit when {@code unchecked}), progresses to completion, returns the status. */
    DocaError run(Task t, boolean unchecked) {
        DocaError e = unchecked ? t.trySubmit() : t.submit();
        if (e != DocaError.SUCCESS) {
            return e;
        }
        int before = completed;
        if (!pe.progressUntil(() -> completed > before, IdleStrategy.backoff(), TimeUnit.SECONDS.toNanos(10))) {
            throw new AssertionError("task did not complete");
        }
        return lastStatus;
    }

    DocaError run(Task t) {
        return run(t, false);
    }

    @Override
    public void close() {
        if (c.state() != CtxState.IDLE) {
            c.stop();
        }
        pe.progressUntil(() -> c.state() == CtxState.IDLE, IdleStrategy.backoff(), TimeUnit.SECONDS.toNanos(5));
        pe.close();
        mmap.stop();
        arena.close();
    }
}
