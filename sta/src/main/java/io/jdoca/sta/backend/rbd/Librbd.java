package io.jdoca.sta.backend.rbd;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The java.lang.foreign binding to Ceph's librados ({@code librados.so.2}) and librbd
 * ({@code librbd.so.1}), Debian {@code librados2}/{@code librbd1}: every downcall handle, constant
 * and struct offset the RBD back-end uses lives here and nowhere else ({@code LibrbdLayoutTest}
 * checks them against the installed headers). Pointers are passed as 64-bit addresses, so a call
 * needs no MemorySegment and the data path allocates nothing; no handle captures errno (librados
 * and librbd return {@code -errno}, and the capture would slice a segment per call).
 *
 * <p>When the libraries are missing, {@link #available()} is false and {@link #unavailableReason()}
 * says why in one line; the binding methods must not be called then.
 *
 * <p>Thread-safe: static handles; librados/librbd handles are thread-safe where librbd says so.
 */
// FFM: this class is a native binding; its downcall handles are the point
@SuppressWarnings("restricted")
public final class Librbd {
    /** {@code EVENT_TYPE_PIPE} of {@code rbd_set_image_notification}: librbd writes one byte per completion. */
    static final int EVENT_TYPE_PIPE = 1;
    /** {@code EVENT_TYPE_EVENTFD} of {@code rbd_set_image_notification}. */
    static final int EVENT_TYPE_EVENTFD = 2;
    /** {@code RBD_FEATURE_EXCLUSIVE_LOCK} ({@code rbd/features.h}). */
    static final long RBD_FEATURE_EXCLUSIVE_LOCK = 1L << 2;
    // rbd_image_info_t (rbd/librbd.h)
    static final int INFO_SIZE = 160;
    static final int INFO_SIZE_OFF = 0;
    static final int INFO_OBJ_SIZE = 8;
    static final int INFO_NUM_OBJS = 16;
    static final int INFO_ORDER = 24;
    // errno values librados/librbd return negated (asm-generic/errno.h)
    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EIO = 5;
    static final int EAGAIN = 11;
    static final int EACCES = 13;
    static final int EBUSY = 16;
    static final int EINVAL = 22;
    static final int EROFS = 30;
    static final int ENOTCONN = 107;
    static final int ESHUTDOWN = 108;
    static final int ETIMEDOUT = 110;

    private static final String LOAD_ERROR;
    private static final MethodHandle RADOS_CREATE2;
    private static final MethodHandle RADOS_CONF_READ_FILE;
    private static final MethodHandle RADOS_CONF_SET;
    private static final MethodHandle RADOS_CONF_GET;
    private static final MethodHandle RADOS_CONNECT;
    private static final MethodHandle RADOS_SHUTDOWN;
    private static final MethodHandle RADOS_CLUSTER_FSID;
    private static final MethodHandle RADOS_IOCTX_CREATE;
    private static final MethodHandle RADOS_IOCTX_DESTROY;
    private static final MethodHandle RBD_OPEN;
    private static final MethodHandle RBD_CLOSE;
    private static final MethodHandle RBD_GET_SIZE;
    private static final MethodHandle RBD_GET_FEATURES;
    private static final MethodHandle RBD_STAT;
    private static final MethodHandle RBD_RESIZE;
    private static final MethodHandle RBD_READ2;
    private static final MethodHandle RBD_WRITE2;
    private static final MethodHandle RBD_FLUSH;
    private static final MethodHandle RBD_DISCARD;
    private static final MethodHandle RBD_WRITE_ZEROES;
    private static final MethodHandle RBD_SET_IMAGE_NOTIFICATION;
    private static final MethodHandle RBD_AIO_CREATE_COMPLETION;
    private static final MethodHandle RBD_AIO_READ;
    private static final MethodHandle RBD_AIO_WRITE;
    private static final MethodHandle RBD_AIO_FLUSH;
    private static final MethodHandle RBD_AIO_WRITE_ZEROES;
    private static final MethodHandle RBD_AIO_DISCARD;
    private static final MethodHandle RBD_AIO_GET_ARG;
    private static final MethodHandle RBD_AIO_GET_RETURN_VALUE;
    private static final MethodHandle RBD_AIO_RELEASE;
    private static final MethodHandle RBD_POLL_IO_EVENTS;
    private static final MethodHandle STRERROR;

    static {
        MethodHandle[] h = new MethodHandle[32];
        String err = null;
        try {
            Linker l = Linker.nativeLinker();
            SymbolLookup rados = SymbolLookup.libraryLookup("librados.so.2", Arena.global());
            SymbolLookup rbd = SymbolLookup.libraryLookup("librbd.so.1", Arena.global());
            ValueLayout.OfLong p = ValueLayout.JAVA_LONG; // pointers and size_t as addresses
            ValueLayout.OfInt i = ValueLayout.JAVA_INT;
            h[0] = l.downcallHandle(rados.findOrThrow("rados_create2"), FunctionDescriptor.of(i, p, p, p, p));
            h[1] = l.downcallHandle(rados.findOrThrow("rados_conf_read_file"), FunctionDescriptor.of(i, p, p));
            h[2] = l.downcallHandle(rados.findOrThrow("rados_conf_set"), FunctionDescriptor.of(i, p, p, p));
            h[3] = l.downcallHandle(rados.findOrThrow("rados_connect"), FunctionDescriptor.of(i, p));
            h[4] = l.downcallHandle(rados.findOrThrow("rados_shutdown"), FunctionDescriptor.ofVoid(p));
            h[5] = l.downcallHandle(rados.findOrThrow("rados_cluster_fsid"), FunctionDescriptor.of(i, p, p, p));
            h[6] = l.downcallHandle(rados.findOrThrow("rados_ioctx_create"), FunctionDescriptor.of(i, p, p, p));
            h[7] = l.downcallHandle(rados.findOrThrow("rados_ioctx_destroy"), FunctionDescriptor.ofVoid(p));
            h[8] = l.downcallHandle(rbd.findOrThrow("rbd_open"), FunctionDescriptor.of(i, p, p, p, p));
            h[9] = l.downcallHandle(rbd.findOrThrow("rbd_close"), FunctionDescriptor.of(i, p));
            h[10] = l.downcallHandle(rbd.findOrThrow("rbd_get_size"), FunctionDescriptor.of(i, p, p));
            h[11] = l.downcallHandle(rbd.findOrThrow("rbd_get_features"), FunctionDescriptor.of(i, p, p));
            h[12] = l.downcallHandle(rbd.findOrThrow("rbd_stat"), FunctionDescriptor.of(i, p, p, p));
            h[13] = l.downcallHandle(rbd.findOrThrow("rbd_resize"), FunctionDescriptor.of(i, p, p));
            h[14] = l.downcallHandle(rbd.findOrThrow("rbd_read2"), FunctionDescriptor.of(p, p, p, p, p, i));
            h[15] = l.downcallHandle(rbd.findOrThrow("rbd_write2"), FunctionDescriptor.of(p, p, p, p, p, i));
            h[16] = l.downcallHandle(rbd.findOrThrow("rbd_flush"), FunctionDescriptor.of(i, p));
            h[17] = l.downcallHandle(rbd.findOrThrow("rbd_discard"), FunctionDescriptor.of(i, p, p, p));
            h[18] = l.downcallHandle(rbd.findOrThrow("rbd_write_zeroes"), FunctionDescriptor.of(p, p, p, p, i, i));
            h[19] = l.downcallHandle(rbd.findOrThrow("rbd_set_image_notification"),
                    FunctionDescriptor.of(i, p, i, i));
            h[20] = l.downcallHandle(rbd.findOrThrow("rbd_aio_create_completion"), FunctionDescriptor.of(i, p, p, p));
            h[21] = l.downcallHandle(rbd.findOrThrow("rbd_aio_read"), FunctionDescriptor.of(i, p, p, p, p, p));
            h[22] = l.downcallHandle(rbd.findOrThrow("rbd_aio_write"), FunctionDescriptor.of(i, p, p, p, p, p));
            h[23] = l.downcallHandle(rbd.findOrThrow("rbd_aio_flush"), FunctionDescriptor.of(i, p, p));
            // Accessors of a finished completion: a field read each, never blocking.
            Linker.Option crit = Linker.Option.critical(false);
            h[24] = l.downcallHandle(rbd.findOrThrow("rbd_aio_get_arg"), FunctionDescriptor.of(p, p), crit);
            h[25] = l.downcallHandle(rbd.findOrThrow("rbd_aio_get_return_value"), FunctionDescriptor.of(p, p), crit);
            h[26] = l.downcallHandle(rbd.findOrThrow("rbd_aio_release"), FunctionDescriptor.ofVoid(p));
            h[27] = l.downcallHandle(rbd.findOrThrow("rbd_poll_io_events"), FunctionDescriptor.of(i, p, p, i));
            h[28] = l.downcallHandle(l.defaultLookup().findOrThrow("strerror"), FunctionDescriptor.of(p, i));
            h[29] = l.downcallHandle(rados.findOrThrow("rados_conf_get"), FunctionDescriptor.of(i, p, p, p, p));
            h[30] = l.downcallHandle(rbd.findOrThrow("rbd_aio_write_zeroes"),
                    FunctionDescriptor.of(i, p, p, p, p, i, i));
            h[31] = l.downcallHandle(rbd.findOrThrow("rbd_aio_discard"), FunctionDescriptor.of(i, p, p, p, p));
        } catch (Throwable t) {
            err = t.getMessage() == null ? t.toString() : t.getMessage();
        }
        LOAD_ERROR = err == null ? null : "librbd/librados unavailable (" + err.replace('\n', ' ')
                + "; Debian: librbd1 librados2)";
        RADOS_CREATE2 = h[0];
        RADOS_CONF_READ_FILE = h[1];
        RADOS_CONF_SET = h[2];
        RADOS_CONNECT = h[3];
        RADOS_SHUTDOWN = h[4];
        RADOS_CLUSTER_FSID = h[5];
        RADOS_IOCTX_CREATE = h[6];
        RADOS_IOCTX_DESTROY = h[7];
        RBD_OPEN = h[8];
        RBD_CLOSE = h[9];
        RBD_GET_SIZE = h[10];
        RBD_GET_FEATURES = h[11];
        RBD_STAT = h[12];
        RBD_RESIZE = h[13];
        RBD_READ2 = h[14];
        RBD_WRITE2 = h[15];
        RBD_FLUSH = h[16];
        RBD_DISCARD = h[17];
        RBD_WRITE_ZEROES = h[18];
        RBD_SET_IMAGE_NOTIFICATION = h[19];
        RBD_AIO_CREATE_COMPLETION = h[20];
        RBD_AIO_READ = h[21];
        RBD_AIO_WRITE = h[22];
        RBD_AIO_FLUSH = h[23];
        RBD_AIO_GET_ARG = h[24];
        RBD_AIO_GET_RETURN_VALUE = h[25];
        RBD_AIO_RELEASE = h[26];
        RBD_POLL_IO_EVENTS = h[27];
        STRERROR = h[28];
        RADOS_CONF_GET = h[29];
        RBD_AIO_WRITE_ZEROES = h[30];
        RBD_AIO_DISCARD = h[31];
    }

    private Librbd() {
    }

    /** True when librados and librbd were loaded and every symbol bound. */
    public static boolean available() {
        return LOAD_ERROR == null;
    }

    /** Why {@link #available()} is false, in one line; null when available. */
    public static String unavailableReason() {
        return LOAD_ERROR;
    }

    /** The C library's text for {@code -rc} or {@code rc}, e.g. "Connection timed out". */
    static String strerror(long rc) {
        try {
            long s = (long) STRERROR.invokeExact((int) Math.abs(rc));
            return s == 0 ? "errno " + Math.abs(rc) : MemorySegment.ofAddress(s).reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "errno " + Math.abs(rc);
        }
    }

    private static AssertionError fail(Throwable t) {
        return new AssertionError("librbd downcall failed", t);
    }

    // ---- librados (control path)

    static int radosCreate2(long pcluster, long clusterName, long name, long flags) {
        try {
            return (int) RADOS_CREATE2.invokeExact(pcluster, clusterName, name, flags);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int radosConfReadFile(long cluster, long path) {
        try {
            return (int) RADOS_CONF_READ_FILE.invokeExact(cluster, path);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int radosConfSet(long cluster, long option, long value) {
        try {
            return (int) RADOS_CONF_SET.invokeExact(cluster, option, value);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int radosConfGet(long cluster, long option, long buf, long len) {
        try {
            return (int) RADOS_CONF_GET.invokeExact(cluster, option, buf, len);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int radosConnect(long cluster) {
        try {
            return (int) RADOS_CONNECT.invokeExact(cluster);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static void radosShutdown(long cluster) {
        try {
            RADOS_SHUTDOWN.invokeExact(cluster);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int radosClusterFsid(long cluster, long buf, long len) {
        try {
            return (int) RADOS_CLUSTER_FSID.invokeExact(cluster, buf, len);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int radosIoctxCreate(long cluster, long poolName, long pioctx) {
        try {
            return (int) RADOS_IOCTX_CREATE.invokeExact(cluster, poolName, pioctx);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static void radosIoctxDestroy(long ioctx) {
        try {
            RADOS_IOCTX_DESTROY.invokeExact(ioctx);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    // ---- librbd image (control path)

    static int rbdOpen(long ioctx, long name, long pimage, long snapName) {
        try {
            return (int) RBD_OPEN.invokeExact(ioctx, name, pimage, snapName);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdClose(long image) {
        try {
            return (int) RBD_CLOSE.invokeExact(image);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdGetSize(long image, long psize) {
        try {
            return (int) RBD_GET_SIZE.invokeExact(image, psize);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdGetFeatures(long image, long pfeatures) {
        try {
            return (int) RBD_GET_FEATURES.invokeExact(image, pfeatures);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code rbd_stat} into an {@code rbd_image_info_t} of {@link #INFO_SIZE} bytes at {@code info}. */
    static int rbdStat(long image, long info) {
        try {
            return (int) RBD_STAT.invokeExact(image, info, (long) INFO_SIZE);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdResize(long image, long size) {
        try {
            return (int) RBD_RESIZE.invokeExact(image, size);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdSetImageNotification(long image, int fd, int type) {
        try {
            return (int) RBD_SET_IMAGE_NOTIFICATION.invokeExact(image, fd, type);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    // ---- librbd synchronous I/O (engine threads: the fallbacks when a channel is full or missing)

    static long rbdRead2(long image, long ofs, long len, long buf) {
        try {
            return (long) RBD_READ2.invokeExact(image, ofs, len, buf, 0);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static long rbdWrite2(long image, long ofs, long len, long buf) {
        try {
            return (long) RBD_WRITE2.invokeExact(image, ofs, len, buf, 0);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdFlush(long image) {
        try {
            return (int) RBD_FLUSH.invokeExact(image);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdDiscard(long image, long ofs, long len) {
        try {
            return (int) RBD_DISCARD.invokeExact(image, ofs, len);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static long rbdWriteZeroes(long image, long ofs, long len) {
        try {
            return (long) RBD_WRITE_ZEROES.invokeExact(image, ofs, len, 0, 0);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    // ---- librbd asynchronous I/O (one engine thread per image handle)

    /** A completion with no callback whose argument is {@code arg}, stored at {@code pcomp}. */
    static int rbdAioCreateCompletion(long arg, long pcomp) {
        try {
            return (int) RBD_AIO_CREATE_COMPLETION.invokeExact(arg, 0L, pcomp);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdAioRead(long image, long off, long len, long buf, long comp) {
        try {
            return (int) RBD_AIO_READ.invokeExact(image, off, len, buf, comp);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdAioWrite(long image, long off, long len, long buf, long comp) {
        try {
            return (int) RBD_AIO_WRITE.invokeExact(image, off, len, buf, comp);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdAioFlush(long image, long comp) {
        try {
            return (int) RBD_AIO_FLUSH.invokeExact(image, comp);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** {@code rbd_aio_write_zeroes} with no zero or op flags (librbd discards whole objects, zeroes the rest). */
    static int rbdAioWriteZeroes(long image, long off, long len, long comp) {
        try {
            return (int) RBD_AIO_WRITE_ZEROES.invokeExact(image, off, len, comp, 0, 0);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static int rbdAioDiscard(long image, long off, long len, long comp) {
        try {
            return (int) RBD_AIO_DISCARD.invokeExact(image, off, len, comp);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static long rbdAioGetArg(long comp) {
        try {
            return (long) RBD_AIO_GET_ARG.invokeExact(comp);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static long rbdAioGetReturnValue(long comp) {
        try {
            return (long) RBD_AIO_GET_RETURN_VALUE.invokeExact(comp);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    static void rbdAioRelease(long comp) {
        try {
            RBD_AIO_RELEASE.invokeExact(comp);
        } catch (Throwable t) {
            throw fail(t);
        }
    }

    /** Finished completions of {@code image} (at most {@code n}) into the pointer array at {@code comps}. */
    static int rbdPollIoEvents(long image, long comps, int n) {
        try {
            return (int) RBD_POLL_IO_EVENTS.invokeExact(image, comps, n);
        } catch (Throwable t) {
            throw fail(t);
        }
    }
}
