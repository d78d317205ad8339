package io.jdoca.systemtests.sta;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The host side of a guest run that reports its progress as marker lines on its console (an
 * {@code nvme-vm.sh exec} script): wait for a marker while the guest lives, show the tail of a log,
 * stop the guest's harness process.
 *
 * <p>Threads: one test thread.
 */
final class GuestMarkers {
    private GuestMarkers() {
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
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** Ends the harness process of a guest run (it powers the guest off), forcibly after 30 s. */
    static void stop(Process vm) throws InterruptedException {
        vm.destroy();
        if (!vm.waitFor(30, TimeUnit.SECONDS)) {
            vm.destroyForcibly();
        }
    }
}
