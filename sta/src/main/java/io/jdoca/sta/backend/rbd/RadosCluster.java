package io.jdoca.sta.backend.rbd;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.TreeMap;

/**
 * One connected Ceph cluster handle ({@code rados_t}), shared by the {@link RbdBackend}s opened on
 * it (SPDK's {@code bdev_rbd_register_cluster}). Every monitor and OSD operation is bounded by
 * {@link Options#timeoutSeconds} ({@code client_mount_timeout}, {@code rados_mon_op_timeout},
 * {@code rados_osd_op_timeout}), so a dead cluster fails calls instead of hanging them.
 *
 * <p>librbd's client cache is always off ({@code rbd_cache=false}, after the caller's options): every IO engine
 * has its own image handle, and a second gateway has its own too; with a cache per handle a read through one
 * handle could miss a write acknowledged through another (NVMe requires the read to see it). Ceph's writes are
 * then durable when acknowledged, and Flush costs nothing.
 *
 * <p>Error messages are one line and never contain a key. {@link #close} refuses while back-ends
 * still use the cluster.
 *
 * <p>Thread-safe: librados handles are; open/close are control path.
 */
public final class RadosCluster implements AutoCloseable {
    /** Timeout used when {@link Options#timeoutSeconds} is 0 or negative. */
    public static final int DEFAULT_TIMEOUT_SECONDS = 30;

    /**
     * How to reach a cluster. {@code clusterName} (null: "ceph"); {@code user} without the
     * "client." prefix (null: librados' default, client.admin); {@code configFile} (null: librados'
     * default search, /etc/ceph/ceph.conf, which may be absent when {@code monHost} is given);
     * {@code keyFile} a keyring path (null: from the config); {@code monHost} overrides the
     * config's {@code mon_host}; {@code configParams} further options set in order; a
     * {@code timeoutSeconds} of 0 or less means {@link #DEFAULT_TIMEOUT_SECONDS}.
     */
    public record Options(String clusterName, String user, String configFile, String keyFile, String monHost,
                          Map<String, String> configParams, int timeoutSeconds) {
        public Options {
            clusterName = clusterName == null || clusterName.isBlank() ? "ceph" : clusterName;
            configParams = configParams == null ? Map.of() : Map.copyOf(configParams);
            timeoutSeconds = timeoutSeconds <= 0 ? DEFAULT_TIMEOUT_SECONDS : timeoutSeconds;
            if (user != null && (user.isBlank() || user.startsWith("client."))) {
                throw new IllegalArgumentException("Ceph user '" + user + "' must be a name without 'client.'");
            }
        }

        /** A config file and key ring, default cluster name and user, {@code timeoutSeconds}. */
        public static Options ofConfig(String configFile, String keyFile, int timeoutSeconds) {
            return new Options(null, null, configFile, keyFile, null, Map.of(), timeoutSeconds);
        }
    }

    private final Options options;
    private final long handle;
    private final String fsid;
    private int users;
    private boolean closed;

    private RadosCluster(Options options, long handle, String fsid) {
        this.options = options;
        this.handle = handle;
        this.fsid = fsid;
    }

    /** Creates the handle, reads the configuration and connects; throws {@link DocaException}. Control path. */
    public static RadosCluster connect(Options o) {
        if (o == null) {
            throw new IllegalArgumentException("no Ceph cluster options");
        }
        if (!Librbd.available()) {
            throw new DocaException(DocaError.NOT_SUPPORTED, Librbd.unavailableReason());
        }
        String where = "Ceph cluster '" + o.clusterName() + "'";
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ValueLayout.JAVA_LONG);
            // rados_create2 wants a full name (NULL is EINVAL): no user means librados' default, client.admin
            long name = a.allocateFrom("client." + (o.user() == null ? "admin" : o.user())).address();
            int rc = Librbd.radosCreate2(p.address(), a.allocateFrom(o.clusterName()).address(), name, 0);
            if (rc < 0) {
                throw error(rc, "cannot create a handle for " + where);
            }
            long h = p.get(ValueLayout.JAVA_LONG, 0);
            try {
                configure(a, h, o, where);
                // librados starts its messenger and I/O threads here: on every CPU, the IO engines' too, as SPDK.
                rc = io.jdoca.core.util.CpuAffinity.callUnaffinitized(() -> Librbd.radosConnect(h));
                if (rc < 0) {
                    throw error(rc, "cannot connect to " + where + describe(a, h));
                }
                MemorySegment buf = a.allocate(64);
                rc = Librbd.radosClusterFsid(h, buf.address(), buf.byteSize());
                String fsid = rc < 0 ? "" : buf.getString(0);
                return new RadosCluster(o, h, fsid);
            } catch (RuntimeException e) {
                Librbd.radosShutdown(h);
                throw e;
            }
        }
    }

    private static void configure(Arena a, long h, Options o, String where) {
        if (o.configFile() != null) {
            int rc = Librbd.radosConfReadFile(h, a.allocateFrom(o.configFile()).address());
            if (rc < 0) {
                throw error(rc, "cannot read the Ceph configuration " + o.configFile() + " of " + where);
            }
        } else {
            // The default search; absent files are normal when mon_host and the key ring are given.
            int ignored = Librbd.radosConfReadFile(h, 0);
        }
        Map<String, String> set = new TreeMap<>();
        if (o.keyFile() != null) {
            set.put("keyring", o.keyFile());
        }
        if (o.monHost() != null) {
            set.put("mon_host", o.monHost());
        }
        String t = Integer.toString(o.timeoutSeconds());
        set.put("client_mount_timeout", t);
        set.put("rados_mon_op_timeout", t);
        set.put("rados_osd_op_timeout", t);
        for (Map.Entry<String, String> e : o.configParams().entrySet()) {
            set.put(e.getKey(), e.getValue());
        }
        set.put("rbd_cache", "false");
        for (Map.Entry<String, String> e : set.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new IllegalArgumentException("Ceph option with a null name or value for " + where);
            }
            int rc = Librbd.radosConfSet(h, a.allocateFrom(e.getKey()).address(),
                    a.allocateFrom(e.getValue()).address());
            if (rc < 0) {
                // The value is not echoed: it may be a secret ("key").
                throw error(rc, "cannot set Ceph option '" + e.getKey() + "' for " + where);
            }
        }
    }

    /** " (mon_host ...)" as configured, for connection errors; empty when unset. Never a key. */
    private static String describe(Arena a, long h) {
        MemorySegment buf = a.allocate(512);
        int rc = Librbd.radosConfGet(h, a.allocateFrom("mon_host").address(), buf.address(), buf.byteSize());
        String mon = rc < 0 ? "" : buf.getString(0).strip();
        return mon.isEmpty() ? " (no mon_host configured)" : " (mon_host " + mon + ")";
    }

    static DocaException error(long rc, String what) {
        int e = (int) -rc;
        DocaError d = switch (e) {
            case Librbd.ENOENT -> DocaError.NOT_FOUND;
            case Librbd.ETIMEDOUT -> DocaError.TIME_OUT;
            case Librbd.EINVAL -> DocaError.INVALID_VALUE;
            case Librbd.ENOTCONN, Librbd.ESHUTDOWN -> DocaError.NOT_CONNECTED;
            default -> DocaError.IO_FAILED;
        };
        return new DocaException(d, what + ": " + Librbd.strerror(rc) + " (" + rc + ")");
    }

    /** The options this cluster was connected with. */
    public Options options() {
        return options;
    }

    /** The cluster's fsid (a UUID), empty when librados did not report one. */
    public String fsid() {
        return fsid;
    }

    /** The {@code rados_t}, for this package's calls. */
    long handle() {
        return handle;
    }

    /** A back-end starts using the cluster; fails when it is closed. */
    synchronized void retain() {
        if (closed) {
            throw new IllegalStateException("Ceph cluster '" + options.clusterName() + "' is closed");
        }
        users++;
    }

    /** A back-end (and all its channels) stopped using the cluster. */
    synchronized void release() {
        users--;
    }

    /** Back-ends (with open channels) using this cluster. */
    public synchronized int users() {
        return users;
    }

    /**
     * Disconnects ({@code rados_shutdown}); throws {@link IllegalStateException} while an
     * {@link RbdBackend} or one of its channels still uses the cluster. Idempotent. Control path.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (users > 0) {
            throw new IllegalStateException("Ceph cluster '" + options.clusterName() + "' is still used by " + users
                    + " RBD back-end(s)");
        }
        closed = true;
        Librbd.radosShutdown(handle);
    }

    @Override
    public String toString() {
        return "rados[" + options.clusterName() + ", fsid " + fsid + "]";
    }
}
