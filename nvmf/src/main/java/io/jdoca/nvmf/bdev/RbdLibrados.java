package io.jdoca.nvmf.bdev;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.sta.backend.StaBackend;
import io.jdoca.sta.backend.rbd.RadosCluster;
import io.jdoca.sta.backend.rbd.RbdBackend;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real cluster side of {@link RbdClusters}: librados and librbd through STA's
 * {@link RadosCluster} and {@link RbdBackend}. A machine without librbd gets one line saying so.
 *
 * <p>Threads: the blocking calls on RPC threads (never an IO engine, never sta-main but for a
 * private connection's close when its bdev is deleted).
 */
final class RbdLibrados implements RbdClusters.Connection {
    /** How long a connection may take (librados' mon and OSD op timeouts too). */
    static final int TIMEOUT_SECONDS = 10;

    private static final Logger LOG = LoggerFactory.getLogger(RbdLibrados.class);
    private final RadosCluster cluster;

    private RbdLibrados(RadosCluster cluster) {
        this.cluster = cluster;
    }

    /** Connects as {@code c} says. */
    static RbdClusters.Connection connect(RbdClusters.Config c) {
        Map<String, String> params = c.params() == null ? Map.of() : c.params();
        try {
            return new RbdLibrados(RadosCluster.connect(new RadosCluster.Options(null, c.user(), c.configFile(),
                    c.keyFile(), null, params, TIMEOUT_SECONDS)));
        } catch (LinkageError e) {
            throw noLibrbd(e);
        }
    }

    /** The one line for a machine without librados/librbd. */
    static DocaException noLibrbd(Throwable e) {
        return new DocaException(DocaError.NOT_SUPPORTED, "librbd is not available on this machine "
                + "(install Ceph's librados2 and librbd1): " + e.getClass().getSimpleName());
    }

    @Override
    public String fsid() {
        return cluster.fsid();
    }

    @Override
    public StaBackend openImage(String bdev, String pool, String image) {
        try {
            return RbdBackend.open(bdev, cluster, pool, image);
        } catch (LinkageError e) {
            throw noLibrbd(e);
        }
    }

    @Override
    public long imageSize(StaBackend image) {
        return rbd(image).currentSize();
    }

    @Override
    public void resize(StaBackend image, long bytes) {
        image.grow(bytes); // the TimedBackend over the RbdBackend: both take the new size
    }

    private static RbdBackend rbd(StaBackend image) {
        StaBackend raw = image instanceof TimedBackend t ? t.delegate() : image;
        if (!(raw instanceof RbdBackend r)) {
            throw new IllegalArgumentException(image.name() + " is not an rbd image");
        }
        return r;
    }

    /**
     * Disconnects; while an engine's channel of a just-closed image still holds the cluster (it
     * lets go at its next poll), the disconnect is retried off this thread for up to 30 s.
     */
    @Override
    public void close() {
        try {
            cluster.close();
        } catch (IllegalStateException busy) {
            Thread.ofVirtual().name("rbd-close").start(() -> {
                long end = System.nanoTime() + 30_000_000_000L;
                while (cluster.users() > 0 && System.nanoTime() < end) {
                    LockSupport.parkNanos(50_000_000L);
                }
                try {
                    cluster.close();
                } catch (IllegalStateException e) {
                    LOG.warn("Ceph cluster {} left connected: {}", cluster.fsid(), e.getMessage());
                }
            });
        }
    }
}
