package io.jdoca.nvmf.bdev;

import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaBackendChannel;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.HdrHistogram.Histogram;

/**
 * A bdev's back-end with latency measured: delegates every I/O to the real back-end and records
 * its duration in an HdrHistogram of the calling IO engine thread (SPDK's bdev read/write latency
 * ticks). No lock and no atomic on the I/O path: each engine thread writes only its own
 * histograms (found through a ThreadLocal, created once per thread); readers copy them racily
 * ({@link #readLatency()}, {@link #writeLatency()}), so a snapshot may miss the I/Os recorded
 * while it is taken.
 *
 * <p>The delegate is registered with STA too (so STA destroys it); see
 * {@link io.jdoca.nvmf.tgt.NvmfTarget}.
 */
public final class TimedBackend extends StaBackend {
    private static final long MAX_NANOS = 60_000_000_000L;

    /** One engine thread's histograms: single writer. */
    private static final class PerThread {
        final Histogram read = new Histogram(MAX_NANOS, 2);
        final Histogram write = new Histogram(MAX_NANOS, 2);
    }

    private final StaBackend delegate;
    private final List<PerThread> all = new CopyOnWriteArrayList<>();
    private final ThreadLocal<PerThread> mine = ThreadLocal.withInitial(() -> {
        PerThread p = new PerThread();
        all.add(p);
        return p;
    });

    public TimedBackend(StaBackend delegate) {
        super(delegate.name(), delegate.sizeBytes());
        this.delegate = delegate;
    }

    public StaBackend delegate() {
        return delegate;
    }

    @Override
    public String kind() {
        return delegate.kind();
    }

    @Override
    public int read(long offset, MemorySegment dst, long dstOff, int len, MemorySegment scratch) {
        long t0 = System.nanoTime();
        int st = delegate.read(offset, dst, dstOff, len, scratch);
        record(mine.get().read, System.nanoTime() - t0);
        return st;
    }

    @Override
    public int write(long offset, MemorySegment src, long srcOff, int len, MemorySegment scratch) {
        long t0 = System.nanoTime();
        int st = delegate.write(offset, src, srcOff, len, scratch);
        record(mine.get().write, System.nanoTime() - t0);
        return st;
    }

    private static void record(Histogram h, long nanos) {
        h.recordValue(Math.min(MAX_NANOS, Math.max(1, nanos)));
    }

    /**
     * The delegate's asynchronous channel (the file back-end's io_uring), timed from submit to
     * reaped completion; null when the delegate completes inline. Without this the wrapper would
     * hide the channel and turn every file bdev I/O into a synchronous call on the engine.
     */
    @Override
    public StaBackendChannel openChannel(int depth) {
        StaBackendChannel inner = delegate.openChannel(depth);
        return inner == null ? null : new TimedChannel(inner, depth, mine.get());
    }

    /** Times each tag's operation; one engine thread only (as every channel). */
    private static final class TimedChannel extends StaBackendChannel implements StaBackendChannel.Sink {
        private final StaBackendChannel inner;
        private final PerThread hist;
        private final long[] start;
        private final byte[] op;
        private Sink sink;

        TimedChannel(StaBackendChannel inner, int depth, PerThread hist) {
            this.inner = inner;
            this.hist = hist;
            this.start = new long[Math.max(1, depth)];
            this.op = new byte[start.length];
        }

        @Override
        public boolean submit(int o, long offset, MemorySegment buf, int len, int tag) {
            if (!inner.submit(o, offset, buf, len, tag)) {
                return false;
            }
            if (tag >= 0 && tag < start.length) {
                start[tag] = System.nanoTime();
                op[tag] = (byte) o;
            }
            return true;
        }

        @Override
        public boolean supportsRanges() {
            return inner.supportsRanges();
        }

        /** Write Zeroes and Deallocate: passed on untimed (SPDK's latency ticks count reads and writes). */
        @Override
        public boolean submitRange(int o, long offset, long len, int tag) {
            if (!inner.submitRange(o, offset, len, tag)) {
                return false;
            }
            if (tag >= 0 && tag < start.length) {
                op[tag] = (byte) o;
            }
            return true;
        }

        @Override
        public int poll(Sink s) {
            this.sink = s;
            return inner.poll(this);
        }

        @Override
        public void onComplete(int tag, int nvmeStatus) {
            if (tag >= 0 && tag < start.length) {
                long d = System.nanoTime() - start[tag];
                if (op[tag] == OP_READ) {
                    record(hist.read, d);
                } else if (op[tag] == OP_WRITE) {
                    record(hist.write, d);
                }
            }
            sink.onComplete(tag, nvmeStatus);
        }

        @Override
        public void await(long timeoutNanos) {
            inner.await(timeoutNanos); // the inner channel's own wait (io_uring: woken by the completion)
        }

        @Override
        public java.nio.channels.SelectableChannel selectable() {
            return inner.selectable(); // without it the engine could not sleep on RBD completions in its selector
        }

        @Override
        public void signalled() {
            inner.signalled();
        }

        @Override
        public int outstanding() {
            return inner.outstanding();
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    @Override
    public int flush() {
        return delegate.flush();
    }

    @Override
    public boolean canGrow() {
        return delegate.canGrow();
    }

    /** Grows the delegate, then takes its new size. */
    @Override
    public void grow(long newBytes) {
        delegate.grow(newBytes);
        grown(delegate.sizeBytes());
    }

    @Override
    public int writeZeroes(long offset, long len, MemorySegment scratch) {
        return delegate.writeZeroes(offset, len, scratch);
    }

    @Override
    public int deallocate(long offset, long len, MemorySegment scratch) {
        return delegate.deallocate(offset, len, scratch);
    }

    @Override
    protected void close() {
        // The delegate is destroyed through STA by the target.
    }

    /** A racy snapshot of the read latencies of every engine, in nanoseconds. */
    public Histogram readLatency() {
        Histogram h = new Histogram(MAX_NANOS, 2);
        for (PerThread p : all) {
            h.add(p.read.copy());
        }
        return h;
    }

    /** A racy snapshot of the write latencies of every engine, in nanoseconds. */
    public Histogram writeLatency() {
        Histogram h = new Histogram(MAX_NANOS, 2);
        for (PerThread p : all) {
            h.add(p.write.copy());
        }
        return h;
    }
}
