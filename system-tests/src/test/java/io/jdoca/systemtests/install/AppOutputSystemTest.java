package io.jdoca.systemtests.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.JavaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 30, "What it must show" 5: through the launcher a user runs ({@code ./jdoca}), every app's
 * {@code --help} and an error run print only the app's own lines: no JVM warning first (the incubator
 * module's "WARNING: Using incubator modules" made every one-line error two lines on gga-offload,
 * sbc-generator, bench, demo, target-rdma, zero-copy and initiator-comch), no SLF4J or Logback status
 * line, no stack trace; and every log line has the one log format (LogbackConfigurator's: date, time, pid,
 * level, thread, logger).
 */
class AppOutputSystemTest {
    static final List<String> APPS = List.of("bench", "demo", "devices", "dma-copy", "gga-offload", "initiator-comch",
            "nvme-perf", "pe-event", "rdma-read-requester", "rdma-read-responder", "rdma-receive",
            "rdma-receive-immediate", "rdma-rping", "rdma-send", "rdma-send-immediate", "rdma-sync-event-requester",
            "rdma-sync-event-responder", "rdma-write-immediate-requester", "rdma-write-immediate-responder",
            "rdma-write-requester", "rdma-write-responder", "sbc-generator", "sta-offload-sample", "sta-rpc",
            "sta-target", "target-rdma", "zero-copy");
    /** Lines an app does not write: the JVM's, a logging library's own, an uncaught exception's. */
    static final Pattern FOREIGN = Pattern.compile("^(WARNING: |OpenJDK .*[Ww]arning|Java HotSpot|Picked up |SLF4J|"
            + "\\|-|\\d\\d:\\d\\d:\\d\\d,\\d{3} \\|-|Exception in thread|\\tat |Caused by: )");
    /** A line that looks like a log line (starts with a date or a time). */
    static final Pattern LOG_LIKE = Pattern.compile(
            "^(\\d{4}-\\d\\d-\\d\\d|\\d\\d:\\d\\d:\\d\\d|\\[\\d{4}|[A-Z][a-z]{2} \\d\\d, )");
    /** The one log format (cli's LogbackConfigurator). */
    static final Pattern LOG_LINE = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\d+ "
            + "(TRACE|DEBUG|INFO |WARN |ERROR) \\[[^]]+\\] \\S+ - .*");

    @TempDir
    Path dir;

    record Run(int rc, List<String> lines) {
    }

    @Test
    void helpAndAnErrorRunPrintOnlyTheAppsOwnLines() throws Exception {
        assertThat(APPS).containsExactlyInAnyOrderElementsOf(appsTheLauncherLists());
        List<String> problems = new ArrayList<>();
        for (String app : APPS) {
            Run help = launcher(app, "--help");
            check(app + " --help", help, problems);
            boolean usageFirst = !help.lines().isEmpty() && help.lines().getFirst().startsWith("Usage: jdoca " + app);
            if (help.rc() != 0 || !usageFirst) {
                problems.add(app + " --help: exit " + help.rc() + ", first line not the usage: " + help.lines());
            }
            Run bad = launcher(app, "--no-such-flag");
            check(app + " --no-such-flag", bad, problems);
            if (bad.rc() == 0) {
                problems.add(app + " --no-such-flag: exit 0");
            }
        }
        // An error the app itself reports (not picocli): one line.
        Run rpc = launcher("sta-rpc", "-s", dir.resolve("none.sock").toString(), "nvmf_get_subsystems");
        check("sta-rpc (no socket)", rpc, problems);
        assertThat(rpc.lines()).hasSize(1);
        assertThat(rpc.lines().getFirst()).startsWith("sta-rpc: cannot reach ");
        Run tgt = launcher("sta-target", "-c", dir.resolve("missing.json").toString());
        check("sta-target -c missing", tgt, problems);
        assertThat(tgt.rc()).isNotZero();
        assertThat(tgt.lines().getLast()).startsWith("sta-target: -c ");
        assertThat(problems).isEmpty();
    }

    private static void check(String what, Run r, List<String> problems) {
        if (!r.lines().isEmpty() && FOREIGN.matcher(r.lines().getFirst()).find()) {
            problems.add(what + ": first line is not the app's: " + r.lines().getFirst());
        }
        for (String l : r.lines()) {
            if (FOREIGN.matcher(l).find()) {
                problems.add(what + ": foreign line: " + l);
            } else if (LOG_LIKE.matcher(l).find() && !LOG_LINE.matcher(l).matches()) {
                problems.add(what + ": a log line in another format: " + l);
            }
        }
    }

    private List<String> appsTheLauncherLists() throws Exception {
        List<String> apps = new ArrayList<>();
        boolean in = false;
        for (String l : launcher("--help").lines()) {
            if (l.equals("Apps:")) {
                in = true;
            } else if (in && l.matches("  [a-z][a-z-]+ .*")) {
                apps.add(l.trim().split("\\s+")[0]);
            }
        }
        return apps;
    }

    /** {@code ./jdoca ARGS} (the jars of this build: no rebuild), stdout and stderr together. */
    private Run launcher(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(JavaProcess.repoRoot().resolve("jdoca").toString());
        cmd.addAll(List.of(args));
        Path log = Files.createTempFile(dir, "out", ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put("JDOCA_NO_BUILD", "1");
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not finish within 60 s:\n" + Files.readString(log));
        }
        return new Run(p.exitValue(), Files.readAllLines(log));
    }
}
