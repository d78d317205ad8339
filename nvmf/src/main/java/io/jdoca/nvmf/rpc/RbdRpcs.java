package io.jdoca.nvmf.rpc;

import static io.jdoca.nvmf.bdev.RbdBdevModule.CLUSTER;
import static io.jdoca.nvmf.bdev.RbdBdevModule.CONFIG;
import static io.jdoca.nvmf.bdev.RbdBdevModule.IMAGE;
import static io.jdoca.nvmf.bdev.RbdBdevModule.POOL;
import static io.jdoca.nvmf.bdev.RbdBdevModule.USER;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.bdev.BdevModule;
import io.jdoca.nvmf.bdev.BdevModules;
import io.jdoca.nvmf.bdev.BdevSpec;
import io.jdoca.nvmf.bdev.RbdBdevModule;
import io.jdoca.nvmf.bdev.RbdClusters;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import io.jdoca.sta.backend.StaBackend;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SPDK's rbd methods ({@code module/bdev/rbd/bdev_rbd_rpc.c}): {@code bdev_rbd_register_cluster},
 * {@code bdev_rbd_unregister_cluster}, {@code bdev_rbd_get_clusters_info}, {@code bdev_rbd_create}
 * and {@code bdev_rbd_resize} ({@code bdev_rbd_delete} is {@link BdevRpcs}' as every module's),
 * with SPDK's params and results; errors are SPDK's negative errnos with one line saying why. The
 * cluster connections and image opens (seconds at worst, bounded by librados' timeouts) run on
 * the RPC client's thread, never on {@code sta-main} or an IO engine; the target's registry
 * ({@link RbdClusters}) is read and changed in short {@code sta-main} commands around them. No
 * secret (a {@code key} config param) is answered, logged or saved.
 *
 * <p>Threads: handlers on the RPC client's thread; each registry access is a {@code sta-main} command.
 */
final class RbdRpcs implements RpcRegistry.Family {
    private static final Logger LOG = LoggerFactory.getLogger(RbdRpcs.class);
    private static final BdevModule RBD = BdevModules.get("rbd");

    private final Supplier<NvmfTarget> target;

    RbdRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    /** bdev_rbd_register_cluster's params. */
    private record Register(String name, RbdClusters.Config config) {
    }

    /** bdev_rbd_resize's params: new_size in MiB. */
    private record Resize(String name, long newSizeMb) {
    }

    /** What bdev_rbd_create learned on sta-main before connecting: the name, and the cluster's connection. */
    private record Prep(String name, RbdClusters.Rados rados, RbdClusters.Connection conn, Map<String, String> info) {
    }

    /** The target's rbd registry. On sta-main only (inside {@link NvmfTarget#query}). */
    static RbdClusters clusters(NvmfTarget t) {
        return NvmfTargetOps.bdevModuleState(t, RbdClusters.class, RbdClusters::new);
    }

    /** save_config's {@code bdev_rbd_register_cluster} entries (secrets left out, with a warning). sta-main. */
    static List<Map<String, Object>> clusterEntries(NvmfTarget t) {
        return clusters(t).configEntries(LOG::warn);
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("bdev_rbd_register_cluster", p -> {
            JsonParams a = new JsonParams(p, "", "name", "user_id", "config_param", "config_file", "key_file",
                    "core_mask");
            if (a.has("core_mask")) {
                throw new ConfigException("core_mask", "jdoca does not pin librados threads to cores: omit core_mask");
            }
            String name = a.str("name", true);
            if (name.isEmpty()) {
                throw new ConfigException("name", "must not be empty");
            }
            return new Register(name, new RbdClusters.Config(a.str("user_id", false),
                    RbdBdevModule.stringMap(a, "config_param"), a.str("config_file", false),
                    a.str("key_file", false)));
        }, this::register);
        r.register("bdev_rbd_unregister_cluster", p -> new JsonParams(p, "", "name").str("name", true), name -> {
            NvmfTarget t = target.get();
            RbdClusters.Connection c = call(() -> t.query("bdev_rbd_unregister_cluster", () -> clusters(t)
                    .remove(name)), null);
            c.close();
            LOG.info("rbd cluster {} unregistered", name);
            return true;
        });
        r.register("bdev_rbd_get_clusters_info", p -> new JsonParams(p, "", "name").str("name", false), name -> {
            NvmfTarget t = target.get();
            List<Map<String, Object>> l = t.query("bdev_rbd_get_clusters_info", () -> clusters(t).info(name));
            if (l.isEmpty()) { // SPDK answers -ENOENT, even for the whole list when it is empty
                throw new RpcError(-2, "No such file or directory: " + (name == null ? "no rbd cluster is registered"
                        : "no rbd cluster " + name));
            }
            return name == null ? l : l.get(0);
        });
        r.register("bdev_rbd_create", RBD::parseCreate, spec -> call(() -> create(spec), config(spec)));
        r.register("bdev_rbd_resize", p -> {
            JsonParams a = new JsonParams(p, "", "name", "new_size");
            return new Resize(a.str("name", true), a.integer("new_size", true, 1, Long.MAX_VALUE >> 20));
        }, this::resize);
    }

    private Object register(Register r) {
        NvmfTarget t = target.get();
        Map<String, String> secrets = r.config().params();
        RbdClusters.Rados rados = call(() -> t.query("bdev_rbd_register_cluster", () -> {
            RbdClusters c = clusters(t);
            c.checkFree(r.name());
            return c.rados();
        }), secrets);
        RbdClusters.Connection conn = call(() -> rados.connect(r.config()), secrets);
        try {
            call(() -> t.query("bdev_rbd_register_cluster", () -> {
                clusters(t).add(r.name(), r.config(), conn);
                return null;
            }), secrets);
        } catch (RuntimeException e) {
            conn.close();
            throw e;
        }
        LOG.info("rbd cluster {} registered (fsid {})", r.name(), conn.fsid());
        return r.name();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> config(BdevSpec spec) {
        return (Map<String, String>) spec.option(CONFIG, null);
    }

    /**
     * SPDK's bdev_rbd_create: on sta-main the name (CephN when none) is checked free and the named
     * cluster held; here the own connection (without cluster_name) is made and the image opened;
     * then the target makes the bdev of it ({@link RbdBdevModule#open} takes the image). What is
     * left if that fails is closed.
     */
    private String create(BdevSpec spec) {
        NvmfTarget t = target.get();
        String cluster = (String) spec.option(CLUSTER, null);
        String pool = (String) spec.option(POOL, null);
        String image = (String) spec.option(IMAGE, null);
        Prep prep = t.query("bdev_rbd_create", () -> {
            RbdClusters c = clusters(t);
            String name = spec.name();
            for (int i = 0; name == null; i++) {
                name = t.bdev(RBD.defaultNamePrefix() + i) == null ? RBD.defaultNamePrefix() + i : null;
            }
            if (t.bdev(name) != null) {
                throw new DocaException(DocaError.ALREADY_EXIST, "bdev " + name + " already exists");
            }
            RbdClusters.Connection conn = cluster == null ? null : c.acquire(cluster);
            String other = conn == null ? null : c.claimant(claimKey(conn, pool, image));
            if (other != null) {
                c.release(cluster);
                throw new DocaException(DocaError.IN_USE, "image " + pool + "/" + image + " is already the bdev "
                        + other + " of this target");
            }
            return new Prep(name, c.rados(), conn, null);
        });
        String token = UUID.randomUUID().toString();
        boolean own = prep.conn() == null;
        try {
            RbdClusters.Connection conn = own ? prep.rados().connect(new RbdClusters.Config(
                    (String) spec.option(USER, null), config(spec), null, null)) : prep.conn();
            StaBackend img;
            try {
                img = conn.openImage(prep.name(), pool, image);
            } catch (RuntimeException e) {
                if (own) {
                    conn.close();
                }
                throw e;
            }
            Map<String, Object> o = new HashMap<>(spec.options());
            o.put(RbdBdevModule.PENDING, token);
            t.query("bdev_rbd_create", () -> {
                RbdClusters c = clusters(t);
                c.putPending(token, new RbdClusters.Pending(img, conn, own, cluster));
                if (cluster != null) {
                    o.put(RbdBdevModule.CLUSTER_INFO, c.info(cluster).get(0));
                    ((Map<?, ?>) o.get(RbdBdevModule.CLUSTER_INFO)).remove("cluster_name");
                }
                return null;
            });
            return t.createBdev(RBD, new BdevSpec(prep.name(), spec.blockSize(), 0, spec.uuid(), o)).name();
        } finally {
            RbdClusters.Pending left = t.query("bdev_rbd_create", () -> {
                RbdClusters c = clusters(t);
                if (cluster != null) {
                    c.release(cluster);
                }
                return c.takePending(token);
            });
            if (left != null) {
                left.image().destroyInternal();
                if (left.privateConn()) {
                    left.conn().close();
                }
            }
        }
    }

    private static String claimKey(RbdClusters.Connection conn, String pool, String image) {
        return conn.fsid() + "/" + pool + "/" + image;
    }

    /**
     * SPDK's bdev_rbd_resize (new_size in MiB, grow only, as SPDK: a smaller size is -22): the image
     * grows on this thread ({@code rbd_resize}, bounded by librados' timeouts), then one
     * {@code sta-main} command grows the bdev and the namespace that exposes it, whose hosts get the
     * Namespace Attribute Changed event ({@link NvmfTargetOps#bdevGrown}).
     */
    private Object resize(Resize r) {
        NvmfTarget t = target.get();
        long bytes = r.newSizeMb() << 20;
        Object[] found = t.query("bdev_rbd_resize", () -> {
            Bdev d = t.bdev(r.name());
            if (d == null) {
                throw new RpcError(-19, "No such device: no bdev " + r.name());
            }
            if (d.module() != RBD) {
                throw new RpcError(-22, "Invalid argument: bdev " + r.name() + " is not an rbd bdev");
            }
            long cur = d.numBlocks() * d.blockSize();
            if (bytes < cur) {
                throw new RpcError(-22, "Invalid argument: new_size " + r.newSizeMb() + " MiB is below bdev "
                        + r.name() + "'s " + (cur >> 20) + " MiB (an rbd bdev only grows)");
            }
            return new Object[] {d, clusters(t).connectionOf(d.name())};
        });
        Bdev d = (Bdev) found[0];
        RbdClusters.Connection conn = (RbdClusters.Connection) found[1];
        @SuppressWarnings("unchecked")
        Map<String, String> secrets = (Map<String, String>) d.option(CONFIG);
        call(() -> {
            long now = conn.imageSize(d.backend());
            if (now > bytes) {
                throw new RpcError(-22, "Invalid argument: image " + d.option(POOL) + "/" + d.option(IMAGE)
                        + " is already " + (now >> 20) + " MiB (an rbd bdev only grows)");
            }
            conn.resize(d.backend(), bytes);
            return null;
        }, secrets);
        long blocks = NvmfTargetOps.bdevGrown(t, d);
        LOG.info("rbd bdev {} resized to {} MiB ({} blocks){}", d.name(), r.newSizeMb(), blocks,
                d.claimedBy() == null ? "" : ": " + d.claimedBy() + " grew with it");
        return true;
    }

    /** Runs {@code op}, answering its errors as SPDK's errnos with {@code secrets}' values scrubbed. */
    private static <T> T call(Supplier<T> op, Map<String, String> secrets) {
        try {
            return op.get();
        } catch (RpcError | ConfigException e) {
            throw e;
        } catch (DocaException e) {
            String msg = RbdClusters.scrub(RpcError.plain(e), secrets);
            throw switch (e.error()) {
                case NOT_FOUND -> new RpcError(-19, "No such device: " + msg);
                case IN_USE -> new RpcError(-16, "Device or resource busy: " + msg);
                case ALREADY_EXIST -> new RpcError(-17, "File exists: " + msg);
                case NOT_SUPPORTED -> new RpcError(-95, "Operation not supported: " + msg);
                case INVALID_VALUE, BAD_CONFIG -> new RpcError(-22, "Invalid argument: " + msg);
                case TIME_OUT -> new RpcError(-110, "Connection timed out: " + msg);
                case NOT_PERMITTED, AUTHENTICATION -> new RpcError(-1, "Operation not permitted: " + msg);
                case NO_MEMORY, FULL -> new RpcError(-12, "Cannot allocate memory: " + msg);
                default -> new RpcError(-5, "Input/output error: " + msg);
            };
        } catch (IllegalArgumentException e) {
            throw new RpcError(-22, "Invalid argument: " + RbdClusters.scrub(e.getMessage(), secrets));
        }
    }
}
