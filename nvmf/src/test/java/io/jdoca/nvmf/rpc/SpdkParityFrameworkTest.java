package io.jdoca.nvmf.rpc;

import static io.jdoca.nvmf.rpc.SpdkMethodsTest.code;
import static io.jdoca.nvmf.rpc.SpdkMethodsTest.ok;
import static io.jdoca.nvmf.rpc.SpdkMethodsTest.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.testkit.Await;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30 (RPC half): SPDK's application framework methods and behaviours: RPC states with
 * {@code --wait-for-rpc} ({@code framework_start_init}, {@code nvmf_set_config} before the start
 * only, -1 in the wrong state), {@code spdk_kill_instance}, {@code framework_get_reactors},
 * {@code thread_get_stats}, the log flags, {@code -c} with comments and its startup phase, JSON
 * errors without the parser's internals, IPv6 text. Fails on main: every method here was
 * "Method not found", {@code -c} refused comments.
 */
class SpdkParityFrameworkTest {
    static final String NQN = "nqn.2016-06.io.spdk:cnode1";

    @TempDir
    Path dir;

    private static NvmfTarget target() throws Exception {
        NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":2}"));
        t.start();
        return t;
    }

    /** An application that records what the RPCs ask of it. */
    private static final class RecordingApp implements RpcFramework.App {
        final List<String> calls = new ArrayList<>();
        final NvmfTarget target;

        RecordingApp(NvmfTarget target) {
            this.target = target;
        }

        @Override
        public void startInit() throws Exception {
            calls.add("start");
            target.start();
        }

        @Override
        public void kill(String signal) {
            calls.add(signal);
        }
    }

    @Test
    void waitForRpcRunsStartupMethodsThenFrameworkStartInit() throws Exception {
        RpcFramework fw = RpcFramework.waitingForRpc();
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
            RpcServer s = new RpcServer(t, null, fw);
            RecordingApp app = new RecordingApp(t);
            fw.setApp(app);
            // Before the start: runtime methods are refused with SPDK's -1 and words.
            JsonNode early = req(s, "bdev_get_bdevs", null);
            assertThat(early.get("error").get("code").asInt()).isEqualTo(-1);
            assertThat(early.get("error").get("message").asText()).isEqualTo("Method may only be called after "
                    + "framework is initialized using framework_start_init RPC.");
            List<String> current = new ArrayList<>();
            ok(s, "rpc_get_methods", "{\"current\":true}").forEach(n -> current.add(n.asText()));
            assertThat(current).contains("nvmf_set_config", "framework_start_init", "log_set_flag", "rpc_get_methods")
                    .doesNotContain("bdev_get_bdevs", "nvmf_create_subsystem");
            // nvmf_set_config: SPDK's refusals, then a real setting.
            assertThat(code(s, "nvmf_set_config", "{\"admin_cmd_passthru\":{\"identify_ctrlr\":true}}"))
                    .isEqualTo(-32602);
            assertThat(code(s, "nvmf_set_config", "{\"dhchap_digests\":[\"md5\"]}")).isEqualTo(-32602);
            assertThat(code(s, "nvmf_set_config", "{\"dhchap_dhgroups\":[\"ffdhe1024\"]}")).isEqualTo(-32602);
            assertThat(code(s, "nvmf_set_config", "{\"dhchap_digests\":\"sha256\"}")).isEqualTo(-32602);
            assertThat(ok(s, "nvmf_set_config", "{\"dhchap_digests\":[\"sha384\",\"sha256\"],"
                    + "\"dhchap_dhgroups\":[\"null\",\"ffdhe3072\"]}").asBoolean()).isTrue();
            assertThat(code(s, "nvmf_set_config", "{\"discovery_filter\":\"everything\"}")).isEqualTo(-32602);
            assertThat(ok(s, "nvmf_set_config", "{\"discovery_filter\":\"match_any\",\"poll_groups_mask\":\"0x1\","
                    + "\"admin_cmd_passthru\":{\"identify_ctrlr\":false}}").asBoolean()).isTrue();
            assertThat(ok(s, "framework_start_init", null).asBoolean()).isTrue();
            assertThat(app.calls).containsExactly("start");
            assertThat(fw.state()).isEqualTo(RpcRegistry.RUNTIME);
            assertThat(ok(s, "framework_wait_init", null).asBoolean()).isTrue();
            // The DH-HMAC-CHAP lists are saved as SPDK saves them: nvmf_set_config first in the nvmf subsystem.
            JsonNode nvmf = null;
            for (JsonNode sub : ok(s, "save_config", null).get("subsystems")) {
                if ("nvmf".equals(sub.get("subsystem").asText())) {
                    nvmf = sub.get("config");
                }
            }
            assertThat(nvmf).isNotNull();
            assertThat(nvmf.get(0).get("method").asText()).isEqualTo("nvmf_set_config");
            assertThat(nvmf.get(0).get("params").toString()).isEqualTo("{\"dhchap_digests\":[\"sha384\",\"sha256\"],"
                    + "\"dhchap_dhgroups\":[\"ffdhe3072\",\"null\"]}");
            JsonNode late = req(s, "nvmf_set_config", "{\"discovery_filter\":\"match_any\"}");
            assertThat(late.get("error").get("code").asInt()).isEqualTo(-1);
            assertThat(late.get("error").get("message").asText()).startsWith("Method may only be called before "
                    + "framework is initialized. Use --wait-for-rpc");
            assertThat(code(s, "framework_start_init", null)).isEqualTo(-1);
            // poll_groups_mask pinned the IO engine to CPU 0 (framework_get_reactors shows where it runs).
            JsonNode io = ok(s, "framework_get_reactors", null).get("reactors").get(1);
            assertThat(io.get("lcore").asInt()).isZero();
            assertThat(io.get("lw_threads").get(0).get("cpumask").asText()).isEqualTo("1");
        }
    }

    @Test
    void killInstanceAnswersThenSignalsTheApplication() throws Exception {
        try (NvmfTarget t = target()) {
            RpcServer s = new RpcServer(t, null);
            assertThat(code(s, "spdk_kill_instance", "{\"sig_name\":\"SIGTERM\"}")).as("no application")
                    .isEqualTo(-32603);
            RecordingApp app = new RecordingApp(t);
            s.framework().setApp(app);
            assertThat(ok(s, "spdk_kill_instance", "{\"sig_name\":\"SIGTERM\"}").asBoolean()).isTrue();
            assertThat(ok(s, "spdk_kill_instance", "{\"sig_name\":\"2\"}").asBoolean()).isTrue();
            assertThat(app.calls).containsExactly("SIGTERM", "SIGINT");
            JsonNode quit = req(s, "spdk_kill_instance", "{\"sig_name\":\"SIGQUIT\"}");
            assertThat(quit.get("error").get("code").asInt()).isEqualTo(-95);
            assertThat(quit.get("error").get("message").asText()).contains("SIGQUIT").doesNotContain("\n");
            assertThat(code(s, "spdk_kill_instance", "{\"sig_name\":\"SIGFOO\"}")).isEqualTo(-32602);
            assertThat(code(s, "spdk_kill_instance", null)).isEqualTo(-32602);
            assertThat(app.calls).hasSize(2);
        }
    }

    @Test
    void reactorsAndThreadsAreTheTargetsThreads() throws Exception {
        try (NvmfTarget t = target()) {
            RpcServer s = new RpcServer(t, null);
            JsonNode r = ok(s, "framework_get_reactors", null);
            assertThat(r.get("tick_rate").asLong()).isEqualTo(1_000_000_000L);
            assertThat(r.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
            assertThat(r.get("reactors")).hasSize(3);
            List<String> names = new ArrayList<>();
            for (JsonNode reactor : r.get("reactors")) {
                assertThat(reactor.get("tid").asLong()).as(reactor.toString()).isPositive()
                        .isNotEqualTo(ProcessHandle.current().pid());
                assertThat(reactor.get("busy").asLong()).isNotNegative();
                assertThat(reactor.get("idle").asLong()).isNotNegative();
                assertThat(reactor.get("lcore").asInt()).isNotNegative();
                names.add(reactor.get("lw_threads").get(0).get("name").asText());
            }
            assertThat(names).containsExactly("sta-main", "sta-io-0", "sta-io-1");
            JsonNode th = ok(s, "thread_get_stats", null);
            assertThat(th.get("threads")).hasSize(3);
            JsonNode engine = th.get("threads").get(1);
            assertThat(engine.get("name").asText()).isEqualTo("sta-io-0");
            assertThat(engine.get("active_pollers_count").asInt()).isEqualTo(1);
            // An idle engine sleeps: its idle time grows (it is measured, not reported as zero). On a loaded
            // machine the first sleep may come after the first query: wait for it (bounded).
            Await.until(Duration.ofSeconds(20), () -> engineIdle(s) > 0, "sta-io-0's idle time grows");
            assertThat(code(s, "thread_get_stats", "{\"x\":1}")).isEqualTo(-32602);
        }
    }

    @Test
    void logFlagsAreJdocasComponents() throws Exception {
        RpcServer s = new RpcServer(null, null);
        JsonNode f = ok(s, "log_get_flags", null);
        assertThat(f.get("nvmf").asBoolean()).isFalse();
        assertThat(ok(s, "log_set_flag", "{\"flag\":\"nvmf\"}").asBoolean()).isTrue();
        assertThat(ok(s, "log_get_flags", null).get("nvmf").asBoolean()).isTrue();
        assertThat(ok(s, "log_get_flags", null).get("bdev").asBoolean()).isFalse();
        ok(s, "log_set_flag", "{\"flag\":\"all\"}");
        ok(s, "log_get_flags", null).forEach(v -> assertThat(v.asBoolean()).isTrue());
        ok(s, "log_clear_flag", "{\"flag\":\"all\"}");
        ok(s, "log_get_flags", null).forEach(v -> assertThat(v.asBoolean()).isFalse());
        JsonNode bad = req(s, "log_set_flag", "{\"flag\":\"scsi\"}");
        assertThat(bad.get("error").get("code").asInt()).isEqualTo(-32602);
        assertThat(bad.get("error").get("message").asText()).startsWith("invalid log flag");
    }

    @Test
    void configAcceptsCommentsAndRunsStartupMethodsBeforeTheStart() throws Exception {
        Path cfg = dir.resolve("c.json");
        Files.writeString(cfg, """
                // saved from SPDK, annotated by hand
                {"subsystems":[
                  {"subsystem":"nvmf","config":[
                    /* SPDK writes this one first; it applies before the start */
                    {"method":"nvmf_set_config","params":{"discovery_filter":"match_any"}},
                    {"method":"nvmf_create_subsystem","params":{"nqn":"%s","allow_any_host":true}} // one
                  ]}]}""".formatted(NQN));
        RpcFramework fw = RpcFramework.waitingForRpc();
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
            RpcServer s = new RpcServer(t, null, fw);
            JsonNode root = SpdkConfigLoader.read(cfg);
            assertThat(SpdkConfigLoader.apply(s, cfg, root, RpcRegistry.STARTUP, false)).isEqualTo(1);
            t.start();
            fw.initialized();
            assertThat(SpdkConfigLoader.apply(s, cfg, root, RpcRegistry.RUNTIME, false)).isEqualTo(1);
            assertThat(t.subsystem(NQN)).isNotNull();
        }
        // On a running target (load): the startup-only method is skipped, the rest applied.
        try (NvmfTarget t = target()) {
            assertThat(SpdkConfigLoader.load(new RpcServer(t, null), cfg)).isEqualTo(1);
        }
        Files.writeString(cfg, "{\"subsystems\": [ {\"subsystem\": \"nvmf\", \"config\": [ }");
        assertThatThrownBy(() -> SpdkConfigLoader.read(cfg)).isInstanceOf(ConfigException.class)
                .hasMessageMatching("-c .*: not valid JSON at line 1, column \\d+");
    }

    @Test
    void jsonErrorsSayWhereNotTheParsersWords() throws Exception {
        RpcServer s = new RpcServer(null, null);
        JsonNode r = SpdkMethodsTest.M.readTree(s.handle("{\"jsonrpc\":\"2.0\",\"id\":1,\n \"method\": }"));
        assertThat(r.get("error").get("code").asInt()).isEqualTo(-32700);
        assertThat(r.get("error").get("message").asText())
                .matches("Parse error: not valid JSON at line 2, column \\d+");
        assertThatThrownBy(() -> StaRpcApp.buildParams(List.of("{\"a\": }")))
                .hasMessageMatching("params: not a JSON object: not valid JSON at line 1, column \\d+");
    }

    @Test
    void ipv6LoopbackIsWrittenAsPeopleWriteIt() throws Exception {
        assertThat(TargetConfig.ipText(InetAddress.ofLiteral("::1"))).isEqualTo("::1");
        assertThat(TargetConfig.ipText(InetAddress.ofLiteral("::"))).isEqualTo("::");
        assertThat(TargetConfig.ipText(InetAddress.ofLiteral("fe80:0:0:0:0:0:0:1"))).isEqualTo("fe80::1");
        assertThat(TargetConfig.ipText(InetAddress.ofLiteral("1:0:0:2:0:0:0:3"))).isEqualTo("1:0:0:2::3");
        assertThat(TargetConfig.ipText(InetAddress.ofLiteral("1:0:2:3:4:5:6:7"))).as("one zero group stays")
                .isEqualTo("1:0:2:3:4:5:6:7");
        assertThat(TargetConfig.ipText(InetAddress.ofLiteral("127.0.0.1"))).isEqualTo("127.0.0.1");
    }

    private static long engineIdle(RpcServer s) {
        try {
            return ok(s, "thread_get_stats", null).get("threads").get(1).get("idle").asLong();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
