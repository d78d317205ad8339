package io.jdoca.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 17: the launcher finds its apps with {@code ServiceLoader}, not by class-name strings.
 * Every {@code ./jdoca <app>} the README and docs/*.md show is found (the launcher script's own
 * commands {@code test}, {@code build}, {@code package}, {@code mvn} aside), and so is every app module's app.
 */
class AppDiscoveryTest {
    /** Commands the {@code ./jdoca} shell script handles itself, before Java starts. */
    private static final Set<String> SCRIPT_COMMANDS = Set.of("test", "build", "package", "mvn");
    private static final Pattern MENTION = Pattern.compile("\\./jdoca ([a-z][a-z-]*)");

    @Test
    void everyAppTheDocsShowIsFound() throws IOException {
        Path root = JavaProcess.repoRoot();
        List<Path> docs = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        Set<String> mentioned = new TreeSet<>();
        for (Path d : docs) {
            Matcher m = MENTION.matcher(Files.readString(d));
            while (m.find()) {
                if (!SCRIPT_COMMANDS.contains(m.group(1))) {
                    mentioned.add(m.group(1));
                }
            }
        }
        assertThat(mentioned).as("apps named in README.md and docs/*.md").contains("demo", "bench", "target-rdma");
        assertThat(Main.apps().keySet()).containsAll(mentioned);
    }

    @Test
    void everyModulesAppsAreRegistered() {
        assertThat(Main.apps().keySet()).containsExactlyInAnyOrder("demo", "devices", "rdma-rping", "dma-copy",
                "pe-event", "bench", "target-rdma", "initiator-comch", "zero-copy", "gga-offload", "sbc-generator",
                "sta-target", "sta-rpc", "sta-offload-sample", "nvme-perf",
                // DOCA's RDMA samples, one app each (issue 31)
                "rdma-read-requester", "rdma-read-responder", "rdma-write-requester", "rdma-write-responder",
                "rdma-write-immediate-requester", "rdma-write-immediate-responder", "rdma-send", "rdma-receive",
                "rdma-send-immediate", "rdma-receive-immediate", "rdma-sync-event-requester",
                "rdma-sync-event-responder");
    }

    @Test
    void anAppsNameFromItsAnnotationIsPicocliCommandName() {
        for (var e : Main.apps().entrySet()) {
            assertThat(e.getKey()).isEqualTo(new picocli.CommandLine(e.getValue()).getCommandName());
        }
    }

    @Test
    void namingAnAppBuildsThatAppAlone() {
        assertThat(Main.commandLine(new String[] {"devices", "--help"}).getSubcommands().keySet())
                .containsExactly("devices");
        assertThat(Main.commandLine(new String[] {"no-such-app"}).getSubcommands().keySet())
                .containsExactlyElementsOf(Main.apps().keySet());
    }

    @Test
    void theUsageListsThemByName() {
        assertThat(Main.commandLine().getSubcommands().keySet()).containsExactlyElementsOf(Main.apps().keySet());
    }
}
