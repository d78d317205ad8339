package io.jdoca.nvmf.bdev;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.sta.backend.StaBackend;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A target's Ceph clusters and RBD images (SPDK's {@code g_map_bdev_rbd_cluster} and the rbd
 * bdevs' claims): the clusters registered by name ({@code bdev_rbd_register_cluster}, shared by
 * the bdevs naming them in {@code cluster_name}), the private connection of each bdev made
 * without a cluster name, the images opened on an RPC thread and waiting for their bdev, and
 * which bdev holds each image (cluster fsid + pool + image: one bdev per image in a target).
 * The cluster side goes through a {@link Rados} (librados by default, a fake in tests).
 *
 * <p>Secrets: a {@code key} config param (an inline Ceph secret) is shown as
 * {@value #REDACTED} and left out of saved configs; nothing here logs a config value.
 *
 * <p>Threads: {@code sta-main} only (a {@link BdevModule.States} state of the target); the
 * blocking calls of {@link Rados} and {@link Connection} are made by RPC threads on objects not
 * yet (or no longer) in this registry.
 */
public final class RbdClusters implements AutoCloseable {
    /** How a secret config value is shown. */
    public static final String REDACTED = "<redacted>";

    /** How to reach a cluster: SPDK's user_id, config params, config_file and key_file (each may be null). */
    public record Config(String user, Map<String, String> params, String configFile, String keyFile) {
        public Config {
            params = params == null ? null : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
        }
    }

    /** The cluster side: connects (blocking, bounded by a timeout). Any thread but sta-main. */
    @FunctionalInterface
    public interface Rados {
        /** A connection as {@code c} says; DocaException or IllegalArgumentException (one line) when not. */
        Connection connect(Config c);
    }

    /** One connection to a cluster (librados' {@code rados_t}). Blocking calls: any thread but sta-main. */
    public interface Connection extends AutoCloseable {
        /** The cluster's fsid (what tells two clusters apart). */
        String fsid();

        /** Opens image {@code image} of {@code pool} as the back-end of bdev {@code bdev} (not registered). */
        StaBackend openImage(String bdev, String pool, String image);

        /** The size of the image behind {@code image} now (it may have grown since it was opened). */
        long imageSize(StaBackend image);

        /**
         * Grows the image behind {@code image} (an opened back-end of this connection) to {@code bytes},
         * and {@code image} with it ({@link StaBackend#grow}). Off sta-main.
         */
        void resize(StaBackend image, long bytes);

        @Override
        void close();
    }

    /** An image opened by an RPC thread, waiting for its bdev; {@code privateConn}: closed with it. */
    public record Pending(StaBackend image, Connection conn, boolean privateConn, String clusterName) {
    }

    /** A registered cluster. */
    private static final class Cluster {
        final String name;
        final Config config;
        final Connection conn;
        final Set<String> users = new LinkedHashSet<>();
        int creating;

        Cluster(String name, Config config, Connection conn) {
            this.name = name;
            this.config = config;
            this.conn = conn;
        }
    }

    private final Map<String, Cluster> clusters = new LinkedHashMap<>();
    private final Map<String, Pending> pending = new HashMap<>();
    /** "fsid/pool/image" → the bdev holding it. */
    private final Map<String, String> claims = new HashMap<>();
    /** Bdev → its own connection (made without a cluster name) and its cluster name (registered ones). */
    private final Map<String, Connection> privateConns = new HashMap<>();
    private final Map<String, String> clusterOf = new HashMap<>();
    private Rados rados;

    /** The cluster side (librados unless a test set another). */
    public Rados rados() {
        if (rados == null) {
            rados = RbdLibrados::connect;
        }
        return rados;
    }

    /** Replaces the cluster side (tests: a fake cluster). */
    public void useRados(Rados r) {
        rados = r;
    }

    /** ALREADY_EXIST when a cluster named {@code name} is registered. */
    public void checkFree(String name) {
        if (clusters.containsKey(name)) {
            throw new DocaException(DocaError.ALREADY_EXIST, "rbd cluster " + name + " is already registered");
        }
    }

    /** Registers {@code conn} as cluster {@code name} (ALREADY_EXIST if taken: the caller closes conn). */
    public void add(String name, Config config, Connection conn) {
        checkFree(name);
        clusters.put(name, new Cluster(name, config, conn));
    }

    /**
     * The connection of cluster {@code name} for a bdev being created: the cluster cannot be
     * unregistered until {@link #release}. ConfigException (field cluster_name) if not registered.
     */
    public Connection acquire(String name) {
        Cluster c = clusters.get(name);
        if (c == null) {
            throw new ConfigException("cluster_name", "no rbd cluster " + name
                    + " is registered (bdev_rbd_register_cluster first)");
        }
        c.creating++;
        return c.conn;
    }

    /** Ends an {@link #acquire}. */
    public void release(String name) {
        Cluster c = clusters.get(name);
        if (c != null && c.creating > 0) {
            c.creating--;
        }
    }

    /**
     * Unregisters cluster {@code name} and returns its connection (the caller closes it, off
     * sta-main). NOT_FOUND if none; IN_USE while a bdev uses it.
     */
    public Connection remove(String name) {
        Cluster c = clusters.get(name);
        if (c == null) {
            throw new DocaException(DocaError.NOT_FOUND, "no rbd cluster " + name);
        }
        if (!c.users.isEmpty() || c.creating > 0) {
            throw new DocaException(DocaError.IN_USE, "rbd cluster " + name + " is used by bdev(s) "
                    + (c.users.isEmpty() ? "being created" : String.join(", ", c.users)));
        }
        clusters.remove(name);
        return c.conn;
    }

    /** True when a cluster named {@code name} is registered. */
    public boolean has(String name) {
        return clusters.containsKey(name);
    }

    /**
     * {@code bdev_rbd_get_clusters_info}'s entries (every cluster when {@code name} is null):
     * cluster_name, user_id, config_param (a secret shown {@value #REDACTED}), config_file,
     * key_file, each only when set, as SPDK's {@code dump_single_cluster_entry}.
     */
    public List<Map<String, Object>> info(String name) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Cluster c : clusters.values()) {
            if (name == null || name.equals(c.name)) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("cluster_name", c.name);
                m.putAll(describe(c.config, true));
                out.add(m);
            }
        }
        return out;
    }

    /** A cluster's user_id, config_param, config_file and key_file (set ones), secrets redacted or dropped. */
    static Map<String, Object> describe(Config c, boolean redact) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (c.user() != null) {
            m.put("user_id", c.user());
        }
        if (c.params() != null) {
            m.put("config_param", redact ? redacted(c.params()) : withoutSecrets(c.params()));
        }
        if (c.configFile() != null) {
            m.put("config_file", c.configFile());
        }
        if (c.keyFile() != null) {
            m.put("key_file", c.keyFile());
        }
        return m;
    }

    /**
     * save_config's {@code bdev_rbd_register_cluster} entries, one per cluster; a cluster
     * registered with an inline key is saved without it and {@code warn} is told (one line).
     */
    public List<Map<String, Object>> configEntries(Consumer<String> warn) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Cluster c : clusters.values()) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("name", c.name);
            p.putAll(describe(c.config, false));
            if (c.config.params() != null && hasSecret(c.config.params())) {
                warn.accept("rbd cluster " + c.name + " was registered with an inline key: it is saved without it "
                        + "(register it with key_file to keep the reference)");
            }
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("method", "bdev_rbd_register_cluster");
            e.put("params", p);
            out.add(e);
        }
        return out;
    }

    /** Keeps an image an RPC thread opened until its bdev takes it ({@link #takePending}). */
    public void putPending(String token, Pending p) {
        pending.put(token, p);
    }

    /** The image waiting under {@code token} (removed), or null: whoever takes it owns it. */
    public Pending takePending(String token) {
        return pending.remove(token);
    }

    /** The claim key of an image: "fsid/pool/image". */
    static String claimKey(String fsid, String pool, String image) {
        return fsid + "/" + pool + "/" + image;
    }

    /** The bdev holding image {@code key}, or null. */
    public String claimant(String key) {
        return claims.get(key);
    }

    /** Bdev {@code bdev} now holds image {@code key} through {@code p}'s connection. IN_USE if another holds it. */
    void created(String bdev, String key, Pending p) {
        String other = claims.get(key);
        if (other != null) {
            throw new DocaException(DocaError.IN_USE, "image " + key.substring(key.indexOf('/') + 1)
                    + " is already the bdev " + other + " of this target");
        }
        claims.put(key, bdev);
        if (p.privateConn()) {
            privateConns.put(bdev, p.conn());
        } else {
            clusters.get(p.clusterName()).users.add(bdev);
            clusterOf.put(bdev, p.clusterName());
        }
    }

    /** Bdev {@code bdev} is gone (its image closed): its claim goes, its own connection is closed. */
    void deleted(String bdev) {
        claims.values().removeIf(bdev::equals);
        String cluster = clusterOf.remove(bdev);
        if (cluster != null && clusters.containsKey(cluster)) {
            clusters.get(cluster).users.remove(bdev);
        }
        Connection own = privateConns.remove(bdev);
        if (own != null) {
            own.close();
        }
    }

    /** The connection bdev {@code bdev} uses (its own or its cluster's), or null. */
    public Connection connectionOf(String bdev) {
        Connection own = privateConns.get(bdev);
        if (own != null) {
            return own;
        }
        String cluster = clusterOf.get(bdev);
        return cluster == null || !clusters.containsKey(cluster) ? null : clusters.get(cluster).conn;
    }

    /** Closes every connection and waiting image (the target stops: its back-ends are already destroyed). */
    @Override
    public void close() {
        for (Pending p : pending.values()) {
            p.image().destroyInternal();
            if (p.privateConn()) {
                p.conn().close();
            }
        }
        pending.clear();
        privateConns.values().forEach(Connection::close);
        privateConns.clear();
        clusters.values().forEach(c -> c.conn.close());
        clusters.clear();
        claims.clear();
    }

    /** True for a config param that is a secret (Ceph's {@code key}: the inline secret). */
    public static boolean isSecret(String param) {
        return param.trim().toLowerCase(Locale.ROOT).replace(' ', '_').equals("key");
    }

    static boolean hasSecret(Map<String, String> params) {
        return params.keySet().stream().anyMatch(RbdClusters::isSecret);
    }

    /** {@code params} with each secret value replaced by {@value #REDACTED}. */
    public static Map<String, String> redacted(Map<String, String> params) {
        Map<String, String> m = new LinkedHashMap<>();
        params.forEach((k, v) -> m.put(k, isSecret(k) ? REDACTED : v));
        return m;
    }

    /** {@code params} without its secrets. */
    public static Map<String, String> withoutSecrets(Map<String, String> params) {
        Map<String, String> m = new LinkedHashMap<>();
        params.forEach((k, v) -> {
            if (!isSecret(k)) {
                m.put(k, v);
            }
        });
        return m;
    }

    /** {@code msg} with every secret value of {@code params} replaced by {@value #REDACTED} (errors, logs). */
    public static String scrub(String msg, Map<String, String> params) {
        if (msg == null || params == null) {
            return msg;
        }
        String out = msg;
        for (var e : params.entrySet()) {
            if (isSecret(e.getKey()) && e.getValue() != null && !e.getValue().isEmpty()) {
                out = out.replace(e.getValue(), REDACTED);
            }
        }
        return out;
    }
}
