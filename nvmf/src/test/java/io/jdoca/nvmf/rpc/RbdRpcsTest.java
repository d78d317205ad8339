package io.jdoca.nvmf.rpc;

import static io.jdoca.nvmf.rpc.SpdkMethodsTest.ok;
import static io.jdoca.nvmf.rpc.SpdkMethodsTest.req;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.bdev.RbdClusters;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.sta.backend.NullBackend;
import io.jdoca.sta.backend.StaBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34 (RPC half): SPDK's rbd methods against a fake cluster (no Ceph, no socket): param
 * checks, the cluster registry ({@code bdev_rbd_register_cluster}, {@code _unregister_cluster},
 * {@code _get_clusters_info}), {@code bdev_rbd_create}/{@code _delete}/{@code _resize}, the
 * one-bdev-per-image claim, {@code bdev_get_bdevs}' driver_specific, {@code save_config}'s
 * entries and their replay, and that an inline {@code key} is never answered nor saved.
 */
class RbdRpcsTest {
    private static final String SECRET = "AQBsecretsecretsecretsecretsecret==";

    /** A fake cluster: images "pool/image" → bytes; connections count. */
    static final class FakeRados implements RbdClusters.Rados {
        final Map<String, Long> images = new HashMap<>();
        final List<FakeConn> conns = new ArrayList<>();

        @Override
        public synchronized RbdClusters.Connection connect(RbdClusters.Config c) {
            if (c.params() != null && "unreachable".equals(c.params().get("mon_host"))) {
                throw new DocaException(DocaError.TIME_OUT, "cannot connect to Ceph cluster 'ceph'");
            }
            FakeConn f = new FakeConn(this);
            conns.add(f);
            return f;
        }

        synchronized long open() {
            return conns.stream().filter(c -> !c.closed).count();
        }
    }

    /** A fake connection: images are memory back-ends of the image's size. */
    static final class FakeConn implements RbdClusters.Connection {
        final FakeRados rados;
        final Map<StaBackend, String> opened = new HashMap<>();
        volatile boolean closed;

        FakeConn(FakeRados rados) {
            this.rados = rados;
        }

        @Override
        public String fsid() {
            return "fsid-1";
        }

        @Override
        public synchronized StaBackend openImage(String bdev, String pool, String image) {
            Long size = rados.images.get(pool + "/" + image);
            if (size == null) {
                throw new DocaException(DocaError.NOT_FOUND, "RBD image '" + pool + "/" + image + "' does not exist");
            }
            StaBackend b = new NullBackend(bdev, size); // grows, as an image does
            opened.put(b, pool + "/" + image);
            return b;
        }

        @Override
        public long imageSize(StaBackend image) {
            return rados.images.values().stream().mapToLong(Long::longValue).max().orElse(0);
        }

        @Override
        public void resize(StaBackend image, long bytes) {
            rados.images.replaceAll((k, v) -> bytes);
            image.grow(bytes);
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    private static NvmfTarget target(FakeRados rados) throws Exception {
        NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"));
        t.start();
        t.query("fake rados", () -> {
            RbdRpcs.clusters(t).useRados(rados);
            return null;
        });
        return t;
    }

    private static JsonNode err(RpcServer s, String method, String params) throws Exception {
        JsonNode r = req(s, method, params);
        assertThat(r.has("error")).as(method + ": " + r).isTrue();
        assertThat(r.get("error").get("message").asText()).doesNotContain("\n").doesNotContain(SECRET);
        return r.get("error");
    }

    private static final String CREATE = "{\"pool_name\":\"rbd\",\"rbd_name\":\"img\",\"block_size\":4096";

    @Test
    void createParamsAreCheckedBeforeAnythingConnects() throws Exception {
        FakeRados rados = new FakeRados();
        try (NvmfTarget t = target(rados)) {
            RpcServer s = new RpcServer(t, null);
            JsonNode e = err(s, "bdev_rbd_create", "{\"pool_name\":\"rbd\",\"rbd_name\":\"img\"}");
            assertThat(e.get("code").asInt()).isEqualTo(-32602);
            assertThat(e.get("message").asText()).contains("block_size: missing");
            e = err(s, "bdev_rbd_create", CREATE.replace("4096", "1024") + "}");
            assertThat(e.get("message").asText()).contains("block_size: 1024: jdoca supports 512 or 4096");
            assertThat(err(s, "bdev_rbd_create", CREATE + ",\"config\":[1]}").get("code").asInt()).isEqualTo(-32602);
            assertThat(err(s, "bdev_rbd_create", CREATE + ",\"read_only\":true}").get("code").asInt())
                    .isEqualTo(-32602);
            assertThat(err(s, "bdev_rbd_create", CREATE + ",\"rbd_name\":\"\"}").get("message").asText())
                    .contains("rbd_name");
            e = err(s, "bdev_rbd_create", CREATE + ",\"cluster_name\":\"nope\"}");
            assertThat(e.get("message").asText()).contains("cluster_name: no rbd cluster nope is registered");
            assertThat(err(s, "bdev_rbd_register_cluster", "{\"name\":\"c\",\"core_mask\":\"0x1\"}")
                    .get("message").asText()).contains("core_mask");
            assertThat(rados.conns).isEmpty();
        }
    }

    @Test
    void clusterRegistryAnswersAsSpdkAndNeverShowsTheKey() throws Exception {
        FakeRados rados = new FakeRados();
        rados.images.put("rbd/img", 8L << 20);
        try (NvmfTarget t = target(rados)) {
            RpcServer s = new RpcServer(t, null);
            assertThat(err(s, "bdev_rbd_get_clusters_info", null).get("code").asInt()).isEqualTo(-2);
            String reg = "{\"name\":\"c1\",\"user_id\":\"admin\",\"config_param\":{\"mon_host\":\"127.0.0.1\","
                    + "\"key\":\"" + SECRET + "\"},\"key_file\":\"/etc/ceph/k\"}";
            assertThat(ok(s, "bdev_rbd_register_cluster", reg).asText()).isEqualTo("c1");
            assertThat(err(s, "bdev_rbd_register_cluster", reg).get("code").asInt()).isEqualTo(-17);
            JsonNode all = ok(s, "bdev_rbd_get_clusters_info", null);
            assertThat(all).hasSize(1);
            JsonNode c = ok(s, "bdev_rbd_get_clusters_info", "{\"name\":\"c1\"}");
            assertThat(c.get("cluster_name").asText()).isEqualTo("c1");
            assertThat(c.get("user_id").asText()).isEqualTo("admin");
            assertThat(c.get("config_param").get("key").asText()).isEqualTo("<redacted>");
            assertThat(c.get("config_param").get("mon_host").asText()).isEqualTo("127.0.0.1");
            assertThat(c.get("key_file").asText()).isEqualTo("/etc/ceph/k");
            assertThat(c.toString()).doesNotContain(SECRET);
            assertThat(err(s, "bdev_rbd_get_clusters_info", "{\"name\":\"c2\"}").get("code").asInt()).isEqualTo(-2);
            JsonNode e = err(s, "bdev_rbd_register_cluster", "{\"name\":\"c3\",\"config_param\":"
                    + "{\"mon_host\":\"unreachable\",\"key\":\"" + SECRET + "\"}}");
            assertThat(e.get("code").asInt()).isEqualTo(-110);
            assertThat(ok(s, "bdev_rbd_get_clusters_info", null)).hasSize(1);

            assertThat(ok(s, "bdev_rbd_create", CREATE + ",\"cluster_name\":\"c1\"}").asText()).isEqualTo("Ceph0");
            e = err(s, "bdev_rbd_unregister_cluster", "{\"name\":\"c1\"}");
            assertThat(e.get("code").asInt()).isEqualTo(-16);
            assertThat(e.get("message").asText()).contains("Ceph0");
            assertThat(ok(s, "bdev_rbd_delete", "{\"name\":\"Ceph0\"}").asBoolean()).isTrue();
            assertThat(ok(s, "bdev_rbd_unregister_cluster", "{\"name\":\"c1\"}").asBoolean()).isTrue();
            assertThat(err(s, "bdev_rbd_unregister_cluster", "{\"name\":\"c1\"}").get("code").asInt()).isEqualTo(-19);
            assertThat(rados.open()).isZero();
        }
    }

    @Test
    void bdevsDescribeClaimAndSaveTheirImages(@TempDir Path dir) throws Exception {
        FakeRados rados = new FakeRados();
        rados.images.put("rbd/img", 8L << 20);
        rados.images.put("rbd/own", 4L << 20);
        String saved;
        try (NvmfTarget t = target(rados)) {
            RpcServer s = new RpcServer(t, null);
            ok(s, "bdev_rbd_register_cluster", "{\"name\":\"c1\",\"config_param\":{\"key\":\"" + SECRET + "\"}}");
            assertThat(ok(s, "bdev_rbd_create", CREATE + ",\"name\":\"R0\",\"cluster_name\":\"c1\"}").asText())
                    .isEqualTo("R0");
            JsonNode e = err(s, "bdev_rbd_create", CREATE + ",\"name\":\"R1\",\"cluster_name\":\"c1\"}");
            assertThat(e.get("code").asInt()).isEqualTo(-16);
            assertThat(e.get("message").asText()).contains("rbd/img").contains("R0");
            e = err(s, "bdev_rbd_create", CREATE + ",\"name\":\"R1\"}"); // own connection, same cluster fsid
            assertThat(e.get("code").asInt()).isEqualTo(-16);
            e = err(s, "bdev_rbd_create", CREATE.replace("\"img\"", "\"nope\"") + ",\"cluster_name\":\"c1\"}");
            assertThat(e.get("code").asInt()).isEqualTo(-19);
            assertThat(e.get("message").asText()).contains("RBD image 'rbd/nope' does not exist");
            assertThat(ok(s, "bdev_rbd_create", CREATE.replace("\"img\"", "\"own\"").replace("4096", "512")
                    + ",\"user_id\":\"admin\",\"config\":{\"mon_host\":\"127.0.0.1\",\"key\":\"" + SECRET + "\"}}")
                    .asText()).isEqualTo("Ceph0");

            JsonNode r0 = ok(s, "bdev_get_bdevs", "{\"name\":\"R0\"}").get(0);
            assertThat(r0.get("product_name").asText()).isEqualTo("Ceph Rbd Disk");
            assertThat(r0.get("num_blocks").asLong()).isEqualTo(2048);
            assertThat(r0.get("jdoca_backend").asText()).isEqualTo("null"); // the fake image
            JsonNode rbd = r0.get("driver_specific").get("rbd");
            assertThat(rbd.get("pool_name").asText()).isEqualTo("rbd");
            assertThat(rbd.get("rbd_name").asText()).isEqualTo("img");
            assertThat(rbd.get("cluster_name").asText()).isEqualTo("c1");
            assertThat(rbd.get("config_param").get("key").asText()).isEqualTo("<redacted>");
            JsonNode own = ok(s, "bdev_get_bdevs", "{\"name\":\"Ceph0\"}").get(0);
            assertThat(own.get("num_blocks").asLong()).isEqualTo(8192);
            assertThat(own.get("driver_specific").get("rbd").get("user_id").asText()).isEqualTo("admin");
            assertThat(own.get("driver_specific").get("rbd").get("config").get("key").asText())
                    .isEqualTo("<redacted>");

            JsonNode cfg = ok(s, "save_config", null);
            saved = cfg.toString();
            assertThat(saved).doesNotContain(SECRET);
            JsonNode bdev = null;
            for (JsonNode sub : cfg.get("subsystems")) {
                if (sub.get("subsystem").asText().equals("bdev")) {
                    bdev = sub.get("config");
                }
            }
            assertThat(bdev.get(0).get("method").asText()).isEqualTo("bdev_rbd_register_cluster");
            assertThat(bdev.get(0).get("params").get("name").asText()).isEqualTo("c1");
            assertThat(bdev.get(0).get("params").get("config_param").has("key")).isFalse();
            assertThat(bdev.get(1).get("method").asText()).isEqualTo("bdev_rbd_create");
            JsonNode p = bdev.get(1).get("params");
            assertThat(p.get("name").asText()).isEqualTo("R0");
            assertThat(p.get("cluster_name").asText()).isEqualTo("c1");
            assertThat(p.get("block_size").asInt()).isEqualTo(4096);
            assertThat(p.get("uuid").asText()).isEqualTo(r0.get("uuid").asText());
            assertThat(bdev.get(2).get("params").get("config").has("key")).isFalse();
            assertThat(bdev.get(2).get("params").get("config").get("mon_host").asText()).isEqualTo("127.0.0.1");

            assertThat(ok(s, "bdev_rbd_delete", "{\"name\":\"Ceph0\"}").asBoolean()).isTrue();
            assertThat(err(s, "bdev_rbd_delete", "{\"name\":\"Ceph0\"}").get("code").asInt()).isEqualTo(-19);
            assertThat(rados.open()).isEqualTo(1); // the cluster's; the bdev's own one is closed
        }
        assertThat(rados.open()).isZero(); // the target's stop closed the cluster

        // The saved config replays: the cluster first, then the bdev on it (same name, UUID).
        Path file = dir.resolve("saved.json");
        Files.writeString(file, saved);
        FakeRados again = new FakeRados();
        again.images.putAll(rados.images);
        try (NvmfTarget t = target(again)) {
            RpcServer s = new RpcServer(t, null);
            SpdkConfigLoader.load(s, file);
            assertThat(ok(s, "bdev_get_bdevs", "{\"name\":\"R0\"}").get(0).get("driver_specific").get("rbd")
                    .get("cluster_name").asText()).isEqualTo("c1");
            assertThat(ok(s, "bdev_get_bdevs", "{\"name\":\"Ceph0\"}")).hasSize(1);
        }
    }

    @Test
    void resizeGrowsTheBdevAndTheNamespaceOnItAndRefusesShrinking() throws Exception {
        FakeRados rados = new FakeRados();
        rados.images.put("rbd/img", 8L << 20);
        try (NvmfTarget t = target(rados)) {
            RpcServer s = new RpcServer(t, null);
            ok(s, "bdev_rbd_create", CREATE + ",\"name\":\"R0\"}");
            String uuid = ok(s, "bdev_get_bdevs", "{\"name\":\"R0\"}").get(0).get("uuid").asText();
            JsonNode shrink = err(s, "bdev_rbd_resize", "{\"name\":\"R0\",\"new_size\":4}");
            assertThat(shrink.get("code").asInt()).isEqualTo(-22);
            assertThat(shrink.get("message").asText()).contains("only grows").doesNotContain("\n");
            System.out.println("bdev_rbd_resize shrinking: " + shrink.get("message").asText());
            assertThat(err(s, "bdev_rbd_resize", "{\"name\":\"nope\",\"new_size\":4}").get("code").asInt())
                    .isEqualTo(-19);
            assertThat(ok(s, "bdev_rbd_resize", "{\"name\":\"R0\",\"new_size\":16}").asBoolean()).isTrue();
            JsonNode d = ok(s, "bdev_get_bdevs", "{\"name\":\"R0\"}").get(0);
            assertThat(d.get("num_blocks").asLong()).isEqualTo(4096);
            assertThat(d.get("uuid").asText()).isEqualTo(uuid);
            assertThat(rados.images.get("rbd/img")).isEqualTo(16L << 20);

            String nqn = "nqn.2016-06.io.spdk:cnode1";
            ok(s, "nvmf_create_subsystem", "{\"nqn\":\"" + nqn + "\",\"allow_any_host\":true}");
            ok(s, "nvmf_subsystem_add_ns", "{\"nqn\":\"" + nqn + "\",\"namespace\":{\"bdev_name\":\"R0\"}}");
            assertThat(ok(s, "bdev_rbd_resize", "{\"name\":\"R0\",\"new_size\":32}").asBoolean()).isTrue();
            assertThat(rados.images.get("rbd/img")).isEqualTo(32L << 20);
            assertThat(ok(s, "bdev_get_bdevs", "{\"name\":\"R0\"}").get(0).get("num_blocks").asLong())
                    .isEqualTo(8192);
            assertThat(t.query("ns", () -> t.subsystem(nqn).ns(1).sizeBlocks())).as("the exported namespace")
                    .isEqualTo(8192);
            assertThat(err(s, "bdev_rbd_resize", "{\"name\":\"R0\",\"new_size\":16}").get("code").asInt())
                    .isEqualTo(-22);
        }
    }
}
