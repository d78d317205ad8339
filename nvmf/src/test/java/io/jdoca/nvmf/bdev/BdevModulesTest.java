package io.jdoca.nvmf.bdev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.rpc.RpcServer;
import org.junit.jupiter.api.Test;

/**
 * Issue 28 item 4: back-end types are bdev modules in one registry; the RPC methods, jdoca's
 * namespace form and its checks come from the registry, not from lists of their own.
 */
class BdevModulesTest {
    static final ObjectMapper M = new ObjectMapper();

    @Test
    void everyModuleHasItsRpcMethodsAndNothingElseNamesAModule() {
        assertThat(BdevModules.all()).extracting(BdevModule::name).containsExactly("malloc", "null", "aio", "rbd");
        for (BdevModule m : BdevModules.all()) {
            assertThat(RpcServer.METHODS).contains("bdev_" + m.name() + "_create", "bdev_" + m.name() + "_delete");
            assertThat(BdevModules.get(m.name())).isSameAs(m);
        }
        assertThat(BdevModules.get("tape")).isNull();
    }

    @Test
    void theNamespaceFormIsTheModulesOwn() {
        assertThat(BdevModules.namespaceBackends()).containsExactly("memory", "malloc", "null", "file", "aio", "bdev");
        assertThat(BdevModules.forNamespaceBackend("memory").name()).isEqualTo("malloc");
        assertThat(BdevModules.forNamespaceBackend("file").name()).isEqualTo("aio");
        assertThatThrownBy(() -> BdevModules.checkNamespace(
                new TargetConfig.NamespaceConfig(1, "tape", 4L, 4096, null, null), "namespace"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("namespace.backend: \"tape\" is not one of memory, malloc, null, file, aio, bdev");
        assertThatThrownBy(() -> BdevModules.checkNamespace(
                new TargetConfig.NamespaceConfig(1, "memory", 0L, 4096, null, null), "ns"))
                .hasMessage("ns.size_mb: a memory namespace needs a size (MiB > 0)");
        assertThatThrownBy(() -> BdevModules.checkNamespace(
                new TargetConfig.NamespaceConfig(1, "file", 1L, 4096, "/nonexistent-dir/x", null), "ns"))
                .hasMessage("ns.path: directory /nonexistent-dir does not exist");
    }

    @Test
    void createParamsAreCheckedByTheModuleBeforeAnythingOpens() throws Exception {
        BdevModule malloc = BdevModules.get("malloc");
        BdevSpec s = malloc.parseCreate(M.readTree("{\"num_blocks\":16,\"block_size\":4096}"));
        assertThat(s.name()).as("named by the target: MallocN").isNull();
        assertThat(s.numBlocks()).isEqualTo(16);
        assertThatThrownBy(() -> BdevModules.get("null")
                .parseCreate(M.readTree("{\"num_blocks\":16,\"block_size\":512}")))
                .hasMessage("name: missing (required)");
        assertThatThrownBy(() -> malloc.parseCreate(M.readTree("{\"num_blocks\":1,\"block_size\":512,\"md_size\":8}")))
                .hasMessage("md_size: only 0 is supported by jdoca");
        BdevSpec aio = BdevModules.get("aio").parseCreate(M.readTree("{\"name\":\"A\",\"filename\":\"/tmp/x\"}"));
        assertThat(aio.blockSize()).isEqualTo(512);
        assertThat(aio.option("filename", null)).isEqualTo("/tmp/x");
        assertThat(aio.numBlocks()).as("the file decides").isZero();
    }
}
