package io.jdoca.systemtests.sta;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The host side of a guest run of ../shared/nvme-vm (TCP mode, {@code nvme-vm.sh exec} scripts): find
 * the harness or skip the test with the reason ({@link #nvmeVm}, {@link #setUp}), wait for a marker
 * line on the guest's console while it lives, show the tail of a log, stop the guest's harness process.
 *
 * <p>Threads: one test thread.
 */
final class GuestMarkers {
    private GuestMarkers() {
    }

    /** nvme-vm.sh, or the test is skipped: without -Pinterop, without ../shared or without the script. */
    static Path nvmeVm() {
        assumeTrue(!Boolean.parseBoolean(System.getProperty("jdoca.skipInterop", "true")),
                "interop tests run with -Pinterop");
        Path shared = JavaProcess.sharedDir();
        assumeTrue(shared != null, "SKIPPED: ../shared (nvme-vm harness) is absent on this clone");
        Path script = shared.resolve("nvme-vm/nvme-vm.sh");
        assumeTrue(Files.isExecutable(script), "SKIPPED: " + script + " not found");
        return script;
    }

    /** {@code nvme-vm.sh setup} (builds the guest once), or the test is skipped with setup's output. */
    static void setUp(Path script, Path log) throws IOException, InterruptedException {
        setUp(script, log, Map.of());
    }

    /** {@link #setUp(Path, Path)} with harness variables {@code env}, e.g. {@code NVME_VM_KPKG}. */
    static void setUp(Path script, Path log, Map<String, String> env)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(script.toString(), "setup").redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        assumeTrue(!p.isAlive() && p.exitValue() == 0, "SKIPPED: nvme-vm setup failed (needs root, apt-get, qemu): "
                + (Files.exists(log) ? Files.readString(log) : ""));
    }

    /** Waits (at most 150 s) until {@code file} contains {@code text}; fails when the guest ended first. */
    static void await(Path file, String text, Process vm) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
        while (System.nanoTime() < deadline) {
            if (Files.exists(file) && Files.readString(file).contains(text)) {
                return;
            }
            if (!vm.isAlive()) {
                throw new AssertionError("guest ended (status " + vm.exitValue() + ") before '" + text + "':\n"
                        + (Files.exists(file) ? tail(file) : "(no console)"));
            }
            Thread.sleep(200);
        }
        throw new AssertionError("timed out waiting for '" + text + "' in " + file + ":\n" + tail(file));
    }

    /** The last 40 lines of {@code log} ("" when there is none). */
    static String tail(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "";
        }
        List<String> lines = Files.readAllLines(log);
        return redacted(String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
    }

    /**
     * {@code text} with the body of every DH-HMAC-CHAP secret and TLS PSK replaced: a guest's console shows the
     * nvme-cli command lines, and a test's output must not carry key material into CI's log (issue 33 item 5).
     */
    static String redacted(String text) {
        return text.replaceAll("(DHHC-1|NVMeTLSkey-1):([0-9]{2}):[A-Za-z0-9+/=]+:", "$1:$2:<redacted>:");
    }

    /** Ends the harness process of a guest run (it powers the guest off), forcibly after 30 s. */
    static void stop(Process vm) throws InterruptedException {
        vm.destroy();
        if (!vm.waitFor(30, TimeUnit.SECONDS)) {
            vm.destroyForcibly();
        }
    }
}
