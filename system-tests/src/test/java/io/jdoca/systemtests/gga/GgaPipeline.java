package io.jdoca.systemtests.gga;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Three target-rdma processes, gga-offload and initiator-comch on loopback, each a separate JVM
 * started from the test class path; every process is ended when the run is over (try-with-resources).
 */
final class GgaPipeline {
    static final Duration T = Duration.ofSeconds(120);
    private static final Pattern PORT = Pattern.compile("listening on TCP port (\\d+)\\R");

    /** What a run printed. */
    record Outputs(int initiatorRc, String initiator, String service, List<String> targets) {
    }

    /** Target options: geometry or content for each of data_1, data_2, data_p. */
    List<List<String>> targetArgs = List.of(List.of(), List.of(), List.of());
    List<String> serviceArgs = List.of();
    List<String> initiatorArgs = List.of();
    /** Target index to SIGKILL once the data path runs (-1: none), after {@code killDelayMs}. */
    int killTarget = -1;
    long killDelayMs = 300;
    /** Whether gga-offload must exit 0 (false when the initiator is expected to give up early). */
    boolean requireServiceOk = true;
    /** SIGKILL the initiator once the data path runs. */
    boolean killInitiator;
    /** Worker threads (--cpu flags) of every app. */
    int cores = 1;

    private List<String> cpus() {
        List<String> l = new ArrayList<>();
        for (int c = 0; c < cores; c++) {
            l.add("--cpu");
            l.add(String.valueOf(c));
        }
        return l;
    }

    Outputs run() throws IOException {
        String channel = "gga-st-" + UUID.randomUUID();
        List<JavaProcess> targets = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                List<String> a = new ArrayList<>(List.of("target-rdma", "-d", "sw0", "--once", "--listen-address",
                        "127.0.0.1", "--listen-port", "0"));
                a.addAll(cpus());
                a.addAll(targetArgs.get(i));
                targets.add(JavaProcess.start("target-" + i, "io.jdoca.cli.Main", a));
            }
            int[] ports = new int[3];
            for (int i = 0; i < 3; i++) {
                Matcher m = targets.get(i).awaitMatch(PORT, T);
                ports[i] = Integer.parseInt(m.group(1));
            }
            List<String> s = new ArrayList<>(List.of("gga-offload", "-d", "sw0", "-r", "hpf0", "--once",
                    "--data-1-storage", "127.0.0.1:" + ports[0], "--data-2-storage", "127.0.0.1:" + ports[1],
                    "--data-p-storage", "127.0.0.1:" + ports[2], "--command-channel-name", channel,
                    "--control-timeout", "20",
                    "-l", "50"));
            s.addAll(cpus());
            if (!serviceArgs.contains("--dirty-log")) {
                s.addAll(List.of("--dirty-log", "none")); // runs that kill a target would leave dirty logs behind
            }
            s.addAll(serviceArgs);
            try (JavaProcess service = JavaProcess.start("gga-offload", "io.jdoca.cli.Main", s)) {
                service.awaitOutput("serving comch channel", T);
                List<String> i = new ArrayList<>(List.of("initiator-comch", "-d", "sw0",
                        "--command-channel-name", channel, "--control-timeout", "20"));
                i.addAll(cpus());
                i.addAll(initiatorArgs);
                try (JavaProcess ini = JavaProcess.start("initiator-comch", "io.jdoca.cli.Main", i)) {
                    if (killTarget >= 0) {
                        service.awaitOutput("data path started", T);
                        sleep(killDelayMs);
                        assertThat(ini.process().isAlive()).as(
                                "the run must still be going when the target dies").isTrue();
                        targets.get(killTarget).kill();
                    }
                    if (killInitiator) {
                        service.awaitOutput("data path started", T);
                        sleep(killDelayMs);
                        ini.kill();
                    }
                    int rc = ini.awaitExit(T);
                    int src = service.awaitExit(T);
                    assertThat(src == 0 || !requireServiceOk).as("gga-offload exit; output:\n%s\ninitiator:\n%s",
                            service.output(), ini.output()).isTrue();
                    List<String> touts = new ArrayList<>();
                    for (JavaProcess t : targets) {
                        if (t.process().isAlive() && killTarget < 0) {
                            t.awaitExit(T); // the service shuts every target down, also when the initiator vanished
                        }
                        touts.add(t.output());
                    }
                    return new Outputs(rc, ini.output(), service.output(), touts);
                }
            }
        } finally {
            for (JavaProcess t : targets) {
                t.close();
            }
        }
    }

    static double stat(String out, String label) {
        Matcher m = Pattern.compile(Pattern.quote(label) + "\\s*([0-9.]+)").matcher(out);
        assertThat(m.find()).as("'%s' in\n%s", label, out).isTrue();
        return Double.parseDouble(m.group(1));
    }

    static Path repo() {
        return JavaProcess.repoRoot();
    }

    /** A test's pause before a fault is injected mid-run (not a synchronization). */
    static void sleepMillis(long ms) {
        sleep(ms);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
