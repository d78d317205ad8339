package io.jdoca.nvmf.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 28 item 4: RPC methods live in a registry filled by one class per family; the server only
 * dispatches, and {@code rpc_get_methods} is the registry's list.
 */
class RpcRegistryTest {
    static final ObjectMapper M = new ObjectMapper();

    /** Every method jdoca answered before the registry (issue 16's list), still there. */
    static final List<String> BEFORE = List.of("rpc_get_methods", "nvmf_get_subsystems", "nvmf_create_subsystem",
            "nvmf_delete_subsystem", "nvmf_subsystem_add_ns", "nvmf_subsystem_remove_ns", "nvmf_subsystem_add_listener",
            "nvmf_subsystem_add_host", "nvmf_subsystem_remove_host", "nvmf_get_stats", "spdk_get_version",
            "framework_wait_init", "framework_get_subsystems", "framework_get_config", "save_config", "log_set_level",
            "log_get_level", "log_set_print_level", "log_get_print_level", "nvmf_create_transport",
            "nvmf_get_transports", "nvmf_subsystem_remove_listener", "bdev_malloc_create", "bdev_malloc_delete",
            "bdev_null_create", "bdev_null_delete", "bdev_aio_create", "bdev_aio_delete", "bdev_get_bdevs",
            "bdev_get_iostat", "bdev_wait_for_examine");

    @Test
    void rpcGetMethodsListsTheRegistry() throws Exception {
        RpcServer s = new RpcServer(null, null);
        JsonNode r = M.readTree(s.handle("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"rpc_get_methods\"}"));
        List<String> listed = new ArrayList<>();
        r.get("result").forEach(n -> listed.add(n.asText()));
        assertThat(listed).isEqualTo(s.registry().names()).isEqualTo(RpcServer.METHODS)
                .containsAll(BEFORE).doesNotHaveDuplicates();
    }

    @Test
    void aMethodIsANameAParserAndAHandler() throws Exception {
        RpcRegistry r = new RpcRegistry();
        List<String> handled = new ArrayList<>();
        r.register("demo_echo", p -> new JsonParams(p, "", "word").str("word", true), w -> {
            handled.add(w);
            return w + "!";
        });
        assertThat(r.method("demo_echo").invoke(M.readTree("{\"word\":\"hi\"}"))).isEqualTo("hi!");
        assertThatThrownBy(() -> r.method("demo_echo").invoke(M.readTree("{\"colour\":1}")))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("colour: unknown parameter");
        assertThat(handled).as("a bad request never reaches the handler").containsExactly("hi");
        assertThat(r.method("nope")).isNull();
        assertThatThrownBy(() -> r.register("demo_echo", p -> p, p -> p)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("demo_echo registered twice");
    }
}
