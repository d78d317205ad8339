package io.jdoca.systemtests.vm;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The guest kernel a VM test needs beyond the test bed's default: {@link #withAuth} runs the project's
 * {@code scripts/vm-kernel.sh}, which prepares Debian 13's Linux 6.12 (built with {@code CONFIG_NVME_AUTH},
 * unlike the test bed's 6.1) for ../shared/nvme-vm, and returns the package name to pass as
 * {@code NVME_VM_KPKG}; the test is skipped with the script's one-line reason when it cannot.
 *
 * <p>Threads: a test thread.
 */
public final class VmKernel {
    private VmKernel() {
    }

    /** The kernel package with NVMe in-band authentication, prepared in the harness's cache; or the test skips. */
    public static String withAuth() throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(JavaProcess.repoRoot().resolve("scripts/vm-kernel.sh").toString(),
                "auth").redirectError(ProcessBuilder.Redirect.PIPE);
        Process p = pb.start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        boolean done = p.waitFor(600, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String pkg = new String(out, StandardCharsets.UTF_8).strip();
        assumeTrue(done && p.exitValue() == 0 && !pkg.isEmpty(), "SKIPPED: no guest kernel with NVMe in-band "
                + "authentication: " + new String(err, StandardCharsets.UTF_8).strip());
        return pkg;
    }
}
