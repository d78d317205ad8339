package io.jdoca.systemtests.vm;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of a guest script ({@code system-tests/src/test/resources/vm/*.sh}) in the Soft-RoCE guest of
 * ../shared/nvme-vm: what the VM tests share. {@link #prepare} checks the prerequisites (profile {@code vm},
 * ../shared, the harness, the build output the script needs, a path 9p can export) and runs
 * {@code nvme-vm.sh setup --rdma}, skipping with a one-line message when any is missing; {@link #run} runs the
 * script with {@code nvme-vm.sh rdma-run} under a guest time limit; {@link #read} returns one of the files the
 * script left in its {@code /out}. The guest runs this build's jars as they are ({@code JDOCA_NO_BUILD=1}).
 *
 * <p>Threads: one test thread.
 */
final class GuestRun {
    /** Seconds the harness gets beyond the guest's own limit to report (boot, tear-down). */
    private static final int HARNESS_SLACK_S = 100;
    /** The first line of a kernel oops in a console log. */
    private static final String OOPS = ".*\\] (BUG: |Oops|general protection fault|kernel BUG).*";

    private final Path harness;
    private final Path repo;
    private final Path runDir;
    private final Path log;
    private final Map<String, String> env;
    private long seconds;

    private GuestRun(Path harness, Path repo, Path dir, Map<String, String> env) {
        this.harness = harness;
        this.repo = repo;
        this.env = env;
        this.runDir = dir.resolve("run");
        this.log = dir.resolve("rdma-run.log");
    }

    /**
     * Checks the prerequisites and sets the guest up; {@code needs} are files of this build (relative to the
     * repository) the guest script uses, e.g. {@code cli/target/jdoca.jar}. Aborts the test (skipped, with the
     * reason) when one is missing.
     */
    static GuestRun prepare(Path dir, String... needs) throws IOException, InterruptedException {
        return prepare(dir, Map.of(), needs);
    }

    /** {@link #prepare(Path, String...)} with harness variables {@code env}, e.g. {@code NVME_VM_KPKG}. */
    static GuestRun prepare(Path dir, Map<String, String> env, String... needs)
            throws IOException, InterruptedException {
        assumeTrue(Boolean.getBoolean("jdoca.vm"), "SKIPPED: VM tests run with -Psystem,vm");
        Path shared = JavaProcess.sharedDir();
        assumeTrue(shared != null, "SKIPPED: ../shared (nvme-vm harness) is absent on this clone");
        Path harness = shared.resolve("nvme-vm/nvme-vm.sh");
        assumeTrue(Files.isExecutable(harness), "SKIPPED: " + harness + " not found");
        Path repo = JavaProcess.repoRoot().toRealPath();
        assumeTrue(repo.toString().matches("[^\\s,=]+"), "SKIPPED: the repository path " + repo
                + " has a space, comma or '=' (a 9p export cannot)");
        for (String n : needs) {
            assumeTrue(Files.exists(repo.resolve(n)), "SKIPPED: " + n + " is not built");
        }
        GuestRun g = new GuestRun(harness, repo, dir, Map.copyOf(env));
        Path setupLog = dir.resolve("setup.log");
        int setup = exec(List.of(harness.toString(), "setup", "--rdma"), env, setupLog, 900);
        assumeTrue(setup == 0, "SKIPPED: nvme-vm setup --rdma failed (needs root, apt-get, qemu): " + tail(setupLog,
                20));
        return g;
    }

    Path repo() {
        return repo;
    }

    /**
     * Runs {@code script} (a file name under system-tests/src/test/resources/vm) in the guest with
     * {@code guestLimitSeconds} as the guest's own limit; returns the guest's exit status (125: it never reported).
     */
    int run(String script, int guestLimitSeconds) throws IOException, InterruptedException {
        Path s = repo.resolve("system-tests/src/test/resources/vm").resolve(script);
        assertTrue(Files.isRegularFile(s), "guest script " + s);
        long t0 = System.nanoTime();
        int rc = runOnce(s, guestLimitSeconds);
        String crash = rc == 0 ? null : emulatorCrash(runDir.resolve("out"));
        if (crash == null && rc != 0) {
            crash = bootPanic(runDir.resolve("console.log"));
        }
        if (crash != null) {
            // docs/RDMA-HARDWARE.md "Known issue": under multi-threaded TCG a guest JVM sometimes dies in the JIT or
            // in freshly compiled code, before or apart from any jdoca native call; and the guest kernel has panicked
            // while booting, before its init ran anything of ours. Such a run, and only such a run, is made once
            // more; the first run's directory is kept beside the second's and the crash is printed.
            Path kept = runDir.resolveSibling("run-crashed");
            Files.move(runDir, kept);
            Files.move(log, log.resolveSibling("rdma-run-crashed.log"));
            System.out.println("note: the guest crashed (emulator, see docs/RDMA-HARDWARE.md) in " + script
                    + "; kept in " + kept + "; running it once more:\n" + crash);
            rc = runOnce(s, guestLimitSeconds);
        }
        seconds = (System.nanoTime() - t0) / 1_000_000_000L;
        return rc;
    }

    private int runOnce(Path s, int guestLimitSeconds) throws IOException, InterruptedException {
        Map<String, String> e = new HashMap<>(env);
        e.put("NVME_VM_TIMEOUT", Integer.toString(guestLimitSeconds));
        e.put("NVME_VM_RUNDIR", runDir.toString());
        return exec(List.of(harness.toString(), "rdma-run", repo.toString(), s.toString()), e, log,
                guestLimitSeconds + HARNESS_SLACK_S);
    }

    /**
     * The head of a JVM crash report in {@code out} whose problematic frame is the JVM's own (its C++ code, a stub,
     * compiled or interpreted Java), or null: none, or a crash in a native library ({@code C [lib...]}), which
     * may be jdoca's own misuse of it through FFM and is never retried.
     */
    static String emulatorCrash(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return null;
        }
        try (var files = Files.list(out)) {
            for (Path f : files.filter(p -> p.getFileName().toString().matches("hs_err_pid\\d+\\.log")).toList()) {
                List<String> head = Files.readAllLines(f).stream().limit(40).toList();
                int i = head.indexOf("# Problematic frame:");
                if (i >= 0 && i + 1 < head.size() && head.get(i + 1).matches("# (V  \\[libjvm\\.so|J |j |v ).*")) {
                    return String.join("\n", head.subList(0, Math.min(head.size(), i + 2)));
                }
            }
        }
        return null;
    }

    /**
     * The head of a guest kernel panic in {@code console} when the kernel died before the harness's init started
     * (no {@code nvmevm: init start} line), so before any jdoca code or guest script ran; otherwise null. A panic
     * after init may be a host or target bug and is never retried.
     */
    static String bootPanic(Path console) throws IOException {
        String head = panicHead(console);
        return head == null || Files.readString(console, StandardCharsets.ISO_8859_1).contains("nvmevm: init start")
                ? null : "guest kernel panic while booting, " + head;
    }

    /** The oops that led to a guest kernel panic in {@code console} (its first lines, RIP, panic line), or null. */
    static String panicHead(Path console) throws IOException {
        if (!Files.isRegularFile(console)) {
            return null;
        }
        List<String> lines = Files.readAllLines(console, StandardCharsets.ISO_8859_1);
        int panic = 0;
        while (panic < lines.size() && !lines.get(panic).contains("Kernel panic - not syncing")) {
            panic++;
        }
        if (panic == lines.size()) {
            return null;
        }
        int oops = 0;
        while (oops < panic && !lines.get(oops).matches(OOPS)) {
            oops++;
        }
        oops = oops == panic ? Math.max(0, panic - 24) : oops;
        List<String> head = new ArrayList<>(lines.subList(oops, Math.min(panic, oops + 24)));
        head.add(lines.get(panic));
        return console + ":\n" + String.join("\n", head);
    }

    /**
     * The demo tests' common part: runs a demo guest script ({@link #run}), prints its {@code demo.txt} under
     * {@code label} with the contents of the {@code also} files, fails the test unless the guest exited 0, and
     * returns {@code demo.txt}.
     */
    String runDemo(String label, String script, int guestLimitSeconds, String... also)
            throws IOException, InterruptedException {
        int rc = run(script, guestLimitSeconds);
        String out = read("demo.txt");
        StringBuilder extra = new StringBuilder();
        for (String a : also) {
            extra.append("; ").append(read(a).strip());
        }
        System.out.println(label + ": rdma-run exit " + rc + " after " + seconds + " s (guest limit "
                + guestLimitSeconds
                + " s)" + extra + "\n" + out);
        assertTrue(rc == 0, "guest exit status " + rc + " (125 = the guest never reported); harness log:\n"
                + logTail(40)
                + "\ndemo output:\n" + out);
        return out;
    }

    /** Wall-clock seconds of the last {@link #run}. */
    long seconds() {
        return seconds;
    }

    /** The file {@code name} the guest script wrote to its /out, or a line saying it is absent. */
    String read(String name) throws IOException {
        Path f = runDir.resolve("out").resolve(name);
        return Files.exists(f) ? Files.readString(f) : "(no " + name + " from the guest; harness log " + log + ")";
    }

    Path out(String name) {
        return runDir.resolve("out").resolve(name);
    }

    /** The last lines of the harness log, for a failure message, after the oops of a guest kernel panic if any. */
    String logTail(int lines) throws IOException {
        String panic = panicHead(runDir.resolve("console.log"));
        String head = panic == null ? "" : "guest kernel panic, " + panic + "\n...\n";
        return head + tail(log, lines) + "\nrun dir " + runDir;
    }

    /** Runs a host command with its output in {@code log}; fails the test if it outlives {@code limitSeconds}. */
    static int exec(List<String> cmd, Map<String, String> env, Path log, int limitSeconds)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            if (!p.waitFor(limitSeconds, TimeUnit.SECONDS)) {
                throw new AssertionError(cmd.get(0) + " did not finish in " + limitSeconds + " s; log " + log);
            }
            return p.exitValue();
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private static String tail(Path f, int lines) throws IOException {
        if (!Files.exists(f)) {
            return "(" + f + " absent)";
        }
        List<String> all = Files.readAllLines(f);
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }
}
