package io.jdoca.sta.backend.rbd;

import io.jdoca.core.DocaException;
import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.StaBackendChannel;
import io.jdoca.sta.nvme.NvmeStatus;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Ceph RBD image as a back-end (SPDK's {@code bdev_rbd}), through librbd ({@link Librbd}). The
 * back-end holds one I/O context on the pool and one image handle for the synchronous calls (the
 * engine's fallbacks when its channel is full) and for {@link #grow}; each IO engine gets its own
 * image handle and completion eventfd through {@link #openChannel} ({@link RbdChannel}) for reads,
 * writes, flushes, Write Zeroes and Deallocate, so completions reach the engine without a thread
 * hop.
 *
 * <p>Images with the {@code exclusive-lock} feature work, but every handle (this one and each
 * engine's) competes for the lock, which librbd hands over per request: create images for
 * multi-engine targets without it ({@code --image-feature layering}).
 *
 * <p>Thread-safe: the I/O methods may be called by several engines at once (librbd image handles
 * are thread-safe); open, grow and close are control path (grow and close hold the back-end's
 * lock, which a channel takes once when it opens and once when it closes).
 */
public final class RbdBackend extends StaBackend {
    private static final System.Logger LOG = System.getLogger(RbdBackend.class.getName());

    private final RadosCluster cluster;
    private final String pool;
    private final String image;
    private final long ioctx;
    private final long handle;
    private final long features;
    private final long objectSize;
    /** The back-end itself plus its open channels: the I/O context goes when the last one does. */
    private final AtomicInteger refs = new AtomicInteger(1);
    private final AtomicBoolean lockWarned = new AtomicBoolean();
    /** The engines' open channels, whose handles a {@link #grow} refreshes (guarded by this). */
    private final List<RbdChannel> channels = new ArrayList<>();
    private volatile boolean closed;

    private RbdBackend(String name, long size, RadosCluster cluster, String pool, String image, long ioctx,
                       long handle, long features, long objectSize) {
        super(name, size);
        this.cluster = cluster;
        this.pool = pool;
        this.image = image;
        this.ioctx = ioctx;
        this.handle = handle;
        this.features = features;
        this.objectSize = objectSize;
    }

    /**
     * Opens {@code pool/image} on {@code cluster}; its size is the image's at this moment. Throws
     * {@link DocaException} (unknown pool or image, cluster errors) or IllegalArgumentException
     * (blank names), with one-line messages. Control path.
     */
    public static RbdBackend open(String name, RadosCluster cluster, String pool, String image) {
        if (name == null || name.isBlank() || cluster == null || pool == null || pool.isBlank() || image == null
                || image.isBlank()) {
            throw new IllegalArgumentException("an RBD back-end needs a name, a cluster, a pool and an image");
        }
        cluster.retain();
        long ioctx = 0;
        long img = 0;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ValueLayout.JAVA_LONG);
            int rc = Librbd.radosIoctxCreate(cluster.handle(), a.allocateFrom(pool).address(), p.address());
            if (rc < 0) {
                throw RadosCluster.error(rc, rc == -Librbd.ENOENT
                        ? "Ceph pool '" + pool + "' does not exist in cluster '" + cluster.options().clusterName() + "'"
                        : "cannot open Ceph pool '" + pool + "'");
            }
            ioctx = p.get(ValueLayout.JAVA_LONG, 0);
            img = openImage(ioctx, pool, image);
            rc = Librbd.rbdGetSize(img, p.address());
            if (rc < 0) {
                throw RadosCluster.error(rc, "cannot read the size of RBD image '" + pool + "/" + image + "'");
            }
            long size = p.get(ValueLayout.JAVA_LONG, 0);
            rc = Librbd.rbdGetFeatures(img, p.address());
            long features = rc < 0 ? 0 : p.get(ValueLayout.JAVA_LONG, 0);
            MemorySegment info = a.allocate(Librbd.INFO_SIZE, 8);
            rc = Librbd.rbdStat(img, info.address());
            long objectSize = rc < 0 ? 0 : info.get(ValueLayout.JAVA_LONG, Librbd.INFO_OBJ_SIZE);
            return new RbdBackend(name, size, cluster, pool, image, ioctx, img, features, objectSize);
        } catch (RuntimeException e) {
            if (img != 0) {
                int ignored = Librbd.rbdClose(img);
            }
            if (ioctx != 0) {
                Librbd.radosIoctxDestroy(ioctx);
            }
            cluster.release();
            throw e;
        }
    }

    /** {@code rbd_open} of {@code pool/image} on {@code ioctx}: the {@code rbd_image_t}. Control path. */
    static long openImage(long ioctx, String pool, String image) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ValueLayout.JAVA_LONG);
            int rc = Librbd.rbdOpen(ioctx, a.allocateFrom(image).address(), p.address(), 0);
            if (rc < 0) {
                throw RadosCluster.error(rc, rc == -Librbd.ENOENT
                        ? "RBD image '" + pool + "/" + image + "' does not exist"
                        : "cannot open RBD image '" + pool + "/" + image + "'");
            }
            return p.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /**
     * The NVMe status of a librbd result {@code rc} (bytes or {@code -errno}) for an operation of
     * {@code expect} bytes (0: any non-negative result succeeds). The cluster being unreachable
     * or slow (timeouts, blocklisting) is reported as retryable; a short transfer as a data
     * transfer error. Allocation-free.
     */
    static int status(long rc, long expect) {
        if (rc >= 0) {
            return expect == 0 || rc == expect ? NvmeStatus.SUCCESS : NvmeStatus.DATA_TRANSFER_ERROR;
        }
        return switch ((int) -rc) {
            case Librbd.ETIMEDOUT, Librbd.ENOTCONN, Librbd.ESHUTDOWN, Librbd.EAGAIN, Librbd.EBUSY ->
                    NvmeStatus.NAMESPACE_NOT_READY;
            case Librbd.EIO -> NvmeStatus.DATA_TRANSFER_ERROR;
            default -> NvmeStatus.INTERNAL_ERROR;
        };
    }

    @Override
    public String kind() {
        return "rbd";
    }

    public String pool() {
        return pool;
    }

    public String image() {
        return image;
    }

    public RadosCluster cluster() {
        return cluster;
    }

    /** The image's feature bits ({@code rbd_get_features}) when it was opened. */
    public long features() {
        return features;
    }

    /** The image's object size in bytes ({@code rbd_stat}; 4 MiB by default), 0 when librbd did not say. */
    public long objectSize() {
        return objectSize;
    }

    /** The native address of {@code len} bytes of {@code seg} at {@code off}, or 0 when it is not native memory. */
    private static long address(MemorySegment seg, long off, long len) {
        return seg.isNative() && off >= 0 && off + len <= seg.byteSize() ? seg.address() + off : 0;
    }

    @Override
    public int read(long offset, MemorySegment dst, long dstOff, int len, MemorySegment scratch) {
        if (closed) {
            return NvmeStatus.NAMESPACE_NOT_READY;
        }
        long addr = address(dst, dstOff, len);
        boolean bounce = addr == 0;
        if (bounce) {
            addr = address(scratch, 0, len);
            if (addr == 0) {
                return NvmeStatus.INTERNAL_ERROR;
            }
        }
        int st = status(Librbd.rbdRead2(handle, offset, len, addr), len);
        if (st == NvmeStatus.SUCCESS && bounce) {
            MemorySegment.copy(scratch, 0, dst, dstOff, len);
        }
        return st;
    }

    @Override
    public int write(long offset, MemorySegment src, long srcOff, int len, MemorySegment scratch) {
        if (closed) {
            return NvmeStatus.NAMESPACE_NOT_READY;
        }
        long addr = address(src, srcOff, len);
        if (addr == 0) {
            addr = address(scratch, 0, len);
            if (addr == 0) {
                return NvmeStatus.INTERNAL_ERROR;
            }
            MemorySegment.copy(src, srcOff, scratch, 0, len);
        }
        return status(Librbd.rbdWrite2(handle, offset, len, addr), len);
    }

    @Override
    public int flush() {
        return closed ? NvmeStatus.NAMESPACE_NOT_READY : status(Librbd.rbdFlush(handle), 0);
    }

    /** {@code rbd_write_zeroes}: librbd discards whole objects and writes zeroes over partial ones. */
    @Override
    public int writeZeroes(long offset, long len, MemorySegment scratch) {
        return closed ? NvmeStatus.NAMESPACE_NOT_READY : status(Librbd.rbdWriteZeroes(handle, offset, len), 0);
    }

    /**
     * {@code rbd_write_zeroes}, not {@code rbd_discard}: the latter skips the parts of a range that do
     * not cover whole discard-granularity units ({@code rbd_discard_granularity_bytes}, 64 KiB),
     * so a 4 KiB deallocate read back the old data; write-zeroes discards whole objects (the space
     * is freed) and zeroes the rest, so later reads return zeroes as Deallocate promises.
     */
    @Override
    public int deallocate(long offset, long len, MemorySegment scratch) {
        return writeZeroes(offset, len, scratch);
    }

    /**
     * The image's size now ({@code rbd_get_size}), which differs from {@link #sizeBytes()} after a
     * resize, here or by another client. Control path.
     */
    public long currentSize() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ValueLayout.JAVA_LONG);
            int rc = Librbd.rbdGetSize(handle, p.address());
            if (rc < 0) {
                throw RadosCluster.error(rc, "cannot read the size of RBD image '" + pool + "/" + image + "'");
            }
            return p.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /** An RBD image grows in place ({@code rbd_resize}). */
    @Override
    public boolean canGrow() {
        return true;
    }

    /**
     * Grows the image to {@code bytes} ({@code rbd_resize} on the back-end's handle), then makes
     * every engine channel's handle take the new size ({@link RbdChannel#refreshSize}: librbd
     * notifies the other handles of the header update, but its asynchronous calls clip to the size
     * a handle knows without refreshing it first, so without this a write past the old end failed
     * on an engine for good), then {@link #sizeBytes()}. Afterwards I/O below the new end succeeds
     * on every engine ({@code RbdBackendTest.growIsSeenByEveryChannel}). Shrinking is refused (data
     * past the new end would go while hosts may still address it). Control path, off the IO
     * engines: a handle that does not see the new size within 10 s fails the grow.
     */
    @Override
    public synchronized void grow(long bytes) {
        if (closed) {
            throw new IllegalStateException("RBD back-end " + name() + " is closed");
        }
        if (bytes < sizeBytes()) {
            throw new IllegalArgumentException("RBD image '" + pool + "/" + image + "' is " + sizeBytes()
                    + " B: it only grows, not to " + bytes + " B");
        }
        int rc = Librbd.rbdResize(handle, bytes);
        if (rc < 0) {
            throw RadosCluster.error(rc, "cannot resize RBD image '" + pool + "/" + image + "' to " + bytes + " B");
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        for (RbdChannel c : channels) {
            long seen;
            while ((seen = c.refreshSize()) != bytes) {
                if (System.nanoTime() - deadline > 0) {
                    throw new DocaException(io.jdoca.core.DocaError.TIME_OUT, "RBD image '" + pool + "/" + image
                            + "' grew to " + bytes + " B but an engine's handle still sees "
                            + (seen < 0 ? Librbd.strerror(seen) : seen + " B") + " after 10 s");
                }
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L); // librbd's notify is on its way
            }
        }
        grown(bytes);
    }

    /** A channel closes its handle: a grow no longer refreshes it. */
    synchronized void forget(RbdChannel c) {
        channels.remove(c);
    }

    /**
     * A new {@link RbdChannel} (its own image handle and completion eventfd) with up to
     * {@code depth} operations in flight. Called on the engine's thread at its first I/O.
     */
    @Override
    public StaBackendChannel openChannel(int depth) {
        if (closed) {
            throw new IllegalStateException("RBD back-end " + name() + " is closed");
        }
        if ((features & Librbd.RBD_FEATURE_EXCLUSIVE_LOCK) != 0 && lockWarned.compareAndSet(false, true)) {
            LOG.log(System.Logger.Level.WARNING, "{0}: RBD image {1}/{2} has exclusive-lock; the engines'' image "
                    + "handles will pass the lock between them (slow): disable the feature", name(), pool, image);
        }
        refs.incrementAndGet();
        try {
            RbdChannel c = new RbdChannel(this, openImage(ioctx, pool, image), depth);
            synchronized (this) {
                channels.add(c);
                c.refreshSize(); // a grow that ran since the handle was opened did not refresh it
            }
            return c;
        } catch (RuntimeException e) {
            release();
            throw e;
        }
    }

    /** A channel (or the back-end) is done with the I/O context. */
    void release() {
        if (refs.decrementAndGet() == 0) {
            Librbd.radosIoctxDestroy(ioctx);
            cluster.release();
        }
    }

    /**
     * Closes the back-end's image handle; the pool's I/O context and the cluster reference go when
     * the last engine channel is closed too.
     */
    @Override
    protected synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        int rc = Librbd.rbdClose(handle);
        if (rc < 0) {
            LOG.log(System.Logger.Level.WARNING, "{0}: rbd_close: {1}", name(), Librbd.strerror(rc));
        }
        release();
    }
}
