package io.jdoca.nvmf.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 30, acceptance 4 (RPC half): docs/SPDK-USERS.md's "RPC parity" table lists every RPC
 * issue 30 names, each with a status, and every method it lists is in the registry (so a method
 * said done, partial or refused answers rather than "Method not found").
 */
class SpdkUsersDocTest {
    /** The RPCs issue 30 lists (and the two companions SPDK's rpc.py pairs with them). */
    static final List<String> ISSUE_30 = List.of("nvmf_subsystem_allow_any_host", "nvmf_subsystem_get_controllers",
            "nvmf_subsystem_get_qpairs", "nvmf_subsystem_get_listeners", "nvmf_discovery_add_referral",
            "nvmf_discovery_remove_referral", "nvmf_discovery_get_referrals", "nvmf_set_config", "spdk_kill_instance",
            "framework_get_reactors", "framework_start_init", "thread_get_stats", "bdev_reset_iostat",
            "bdev_enable_histogram", "bdev_get_histogram", "bdev_set_qos_limit", "log_set_flag", "log_clear_flag",
            "log_get_flags");
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z_]+)` \\| (done|partial|refused) \\|(.*)\\|$");

    @Test
    void theRpcTableMatchesTheRegistry() throws Exception {
        Path doc = Path.of("..", "docs", "SPDK-USERS.md");
        String text = Files.readString(doc);
        int at = text.indexOf("\n## RPC parity (issue 30)\n");
        assertThat(at).as("the section in " + doc.toAbsolutePath()).isPositive();
        int end = text.indexOf("\n## ", at + 5);
        String section = end < 0 ? text.substring(at) : text.substring(at, end);
        Map<String, String> status = new LinkedHashMap<>();
        for (String line : section.lines().toList()) {
            Matcher m = ROW.matcher(line);
            if (m.matches()) {
                assertThat(status.put(m.group(1), m.group(2))).as("listed twice: " + m.group(1)).isNull();
                if (!m.group(2).equals("done")) {
                    assertThat(m.group(3)).as("a " + m.group(2) + " method says what differs: " + line).isNotBlank();
                }
            } else if (line.startsWith("| `")) {
                throw new AssertionError("not a row of | `method` | done/partial/refused | notes |: " + line);
            }
        }
        assertThat(status.keySet()).containsExactlyInAnyOrderElementsOf(ISSUE_30);
        assertThat(RpcServer.METHODS).containsAll(status.keySet());
    }
}
