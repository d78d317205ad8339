package io.jdoca.nvmf.bdev;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.sta.backend.StaBackend;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * SPDK's rbd module ({@code module/bdev/rbd}, product "Ceph Rbd Disk"): a Ceph RBD image (STA's
 * rbd back-end, librbd), reached through a cluster registered by name
 * ({@code bdev_rbd_register_cluster}, see {@link RbdClusters}) or a connection of its own made
 * from {@code user_id} and {@code config}. {@code bdev_rbd_create} is registered by the RPC layer
 * itself ({@link #ownCreateRpc}): it connects and opens the image on the RPC thread, and this
 * module's {@link #open} only takes what was opened (by its {@link #PENDING} token). No
 * namespace form in jdoca's own config.
 *
 * <p>Options of its {@link BdevSpec}: {@code pool_name}, {@code rbd_name}, {@code user_id},
 * {@code config} (a map), {@code cluster_name}, {@code cluster} (what bdev_get_bdevs shows of a
 * registered cluster) and {@link #PENDING}. Stateless (its state is the target's
 * {@link RbdClusters}); see {@link BdevModule} for the threads.
 */
public final class RbdBdevModule implements BdevModule {
    /** Spec options. */
    public static final String POOL = "pool_name";
    public static final String IMAGE = "rbd_name";
    public static final String USER = "user_id";
    public static final String CONFIG = "config";
    public static final String CLUSTER = "cluster_name";
    /** What bdev_get_bdevs shows of the registered cluster (user_id, config_param, ...; secrets redacted). */
    public static final String CLUSTER_INFO = "cluster";
    /** The token under which the RPC thread left the opened image ({@link RbdClusters#putPending}). */
    public static final String PENDING = "pending";

    @Override
    public String name() {
        return "rbd";
    }

    @Override
    public String productName() {
        return "Ceph Rbd Disk";
    }

    @Override
    public String defaultNamePrefix() {
        return "Ceph";
    }

    @Override
    public boolean ownCreateRpc() {
        return true;
    }

    /** The per-target state of this module. */
    public static RbdClusters clusters(States s) {
        return s.state(RbdClusters.class, RbdClusters::new);
    }

    /**
     * {@code bdev_rbd_create}'s params: {@code pool_name}, {@code rbd_name}, {@code block_size}
     * (required, 512 or 4096), {@code name}, {@code user_id}, {@code config}, {@code cluster_name},
     * {@code uuid}. SPDK's {@code read_only} only at false.
     */
    @Override
    public BdevSpec parseCreate(JsonNode params) {
        JsonParams p = new JsonParams(params, "", "name", "user_id", "pool_name", "rbd_name", "block_size", "config",
                "cluster_name", "uuid", "read_only");
        p.onlyDefault("read_only", false);
        String name = p.str("name", false);
        if (name != null && name.isEmpty()) {
            throw new ConfigException("name", "must not be empty");
        }
        String pool = nonEmpty(p, "pool_name");
        String image = nonEmpty(p, "rbd_name");
        long bs = p.integer("block_size", true, 0, Integer.MAX_VALUE);
        if (bs != 512 && bs != 4096) {
            throw new ConfigException("block_size", bs + ": jdoca supports 512 or 4096");
        }
        Map<String, Object> o = new HashMap<>();
        o.put(POOL, pool);
        o.put(IMAGE, image);
        putIfSet(o, USER, p.str("user_id", false));
        Map<String, String> config = stringMap(p, "config");
        if (config != null) {
            o.put(CONFIG, config);
        }
        putIfSet(o, CLUSTER, p.str("cluster_name", false)); // then user_id and config are unused, as SPDK
        return new BdevSpec(name, (int) bs, 0, p.uuid("uuid"), o);
    }

    private static String nonEmpty(JsonParams p, String k) {
        String v = p.str(k, true);
        if (v.isEmpty()) {
            throw new ConfigException(k, "must not be empty");
        }
        return v;
    }

    private static void putIfSet(Map<String, Object> m, String k, Object v) {
        if (v != null) {
            m.put(k, v);
        }
    }

    /**
     * SPDK's config map ({@code config}, {@code config_param}): an object of Ceph option names and
     * values (strings; numbers and booleans taken as their text); null when absent or JSON null.
     */
    public static Map<String, String> stringMap(JsonParams p, String k) {
        JsonNode v = p.node(k);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isObject()) {
            throw new ConfigException(p.name(k), "must be an object of Ceph option names and values");
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : v.properties()) {
            JsonNode x = e.getValue();
            if (!x.isTextual() && !x.isNumber() && !x.isBoolean()) {
                throw new ConfigException(p.name(k) + "." + e.getKey(), "must be a string");
            }
            if (e.getKey().isBlank()) {
                throw new ConfigException(p.name(k), "an option name is empty");
            }
            m.put(e.getKey(), x.asText());
        }
        return m;
    }

    @Override
    public Opened open(String name, BdevSpec spec, Consumer<StaBackend> discard) {
        throw new UnsupportedOperationException("an rbd bdev is opened with its target's state");
    }

    @Override
    public Opened open(States states, String name, BdevSpec spec, Consumer<StaBackend> discard) {
        RbdClusters c = clusters(states);
        RbdClusters.Pending p = c.takePending((String) spec.option(PENDING, ""));
        if (p == null) {
            throw new DocaException(DocaError.NOT_FOUND, "rbd image of bdev " + name + " was not opened "
                    + "(bdev_rbd_create opens it)");
        }
        try {
            long blocks = p.image().sizeBytes() / spec.blockSize();
            if (blocks == 0) {
                throw new ConfigException("rbd_name", spec.option(IMAGE, "") + " is smaller than one "
                        + spec.blockSize() + "-byte block");
            }
            c.created(name, RbdClusters.claimKey(p.conn().fsid(), (String) spec.option(POOL, ""),
                    (String) spec.option(IMAGE, "")), p);
            return new Opened(p.image(), blocks, null);
        } catch (RuntimeException e) {
            discard.accept(p.image());
            if (p.privateConn()) {
                p.conn().close();
            }
            throw e;
        }
    }

    @Override
    public void deleted(States states, Bdev b) {
        clusters(states).deleted(b.name());
    }

    /**
     * SPDK's {@code bdev_rbd_dump_info_json}: {"rbd": {pool_name, rbd_name, then cluster_name and
     * the cluster's user_id, config_param, config_file, key_file; or user_id and config}}.
     */
    @Override
    public Map<String, Object> driverSpecific(Bdev b) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(POOL, b.option(POOL));
        m.put(IMAGE, b.option(IMAGE));
        if (b.option(CLUSTER) != null) {
            m.put(CLUSTER, b.option(CLUSTER));
            if (b.option(CLUSTER_INFO) instanceof Map<?, ?> info) {
                info.forEach((k, v) -> m.put((String) k, v));
            }
        } else {
            putIfSet(m, USER, b.option(USER));
            if (config(b) != null) {
                m.put(CONFIG, RbdClusters.redacted(config(b)));
            }
        }
        return Map.of("rbd", m);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> config(Bdev b) {
        return (Map<String, String>) b.option(CONFIG);
    }

    /**
     * The {@code bdev_rbd_create} entry of SPDK's {@code bdev_rbd_write_config_json}, plus
     * {@code cluster_name} (SPDK leaves it out, so a replay would connect without the cluster's
     * settings); a {@code key} config param is left out (it is a secret).
     */
    @Override
    public Map<String, Object> configParams(Bdev b) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", b.name());
        p.put(POOL, b.option(POOL));
        p.put(IMAGE, b.option(IMAGE));
        p.put("block_size", b.blockSize());
        putIfSet(p, USER, b.option(USER));
        if (config(b) != null) {
            p.put(CONFIG, RbdClusters.withoutSecrets(config(b)));
        }
        putIfSet(p, CLUSTER, b.option(CLUSTER));
        p.put("uuid", b.uuid().toString());
        return p;
    }
}
