package io.jdoca.systemtests.vm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.JavaProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * VM test (profile {@code vm}, with {@code system}): in the Soft-RoCE guest of ../shared/nvme-vm
 * ({@code nvme-vm.sh rdma-run}, rxe0 on 10.0.2.15, rdma-core 44), runs
 * {@code system-tests/src/test/resources/vm/rdma-verbs.sh} against this checkout's jars:
 * {@code ./jdoca devices} lists rxe0 with its capabilities; rdma-core's {@code rping -s} serves
 * {@code ./jdoca rdma-rping -c -C 10 -V}; {@code ./jdoca rdma-rping -s} serves {@code rping -c -C 10 -V}.
 * Every check is a line of the guest's verbs-summary.txt. Skips with a message when the harness, QEMU or
 * the RDMA layer is absent. About 4-6 minutes on TCG.
 */
class VerbsRpingVmTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 1500, unit = TimeUnit.SECONDS)
    void rpingInteropBothWaysAndDevicesInTheSoftRoceGuest() throws Exception {
        assumeTrue(Boolean.getBoolean("jdoca.vm"), "VM tests run with -Psystem,vm");
        Path shared = JavaProcess.sharedDir();
        assumeTrue(shared != null, "SKIPPED: ../shared (nvme-vm harness) is absent on this clone");
        Path harness = shared.resolve("nvme-vm/nvme-vm.sh");
        assumeTrue(Files.isExecutable(harness), "SKIPPED: " + harness + " not found");
        Path repo = JavaProcess.repoRoot();
        assumeTrue(Files.exists(repo.resolve("cli/target/jdoca.jar")), "SKIPPED: the launcher jar is not built");
        Path script = repo.resolve("system-tests/src/test/resources/vm/rdma-verbs.sh");

        Path setupLog = dir.resolve("setup.log");
        int setup = run(List.of(harness.toString(), "setup", "--rdma"), setupLog, 600);
        assumeTrue(setup == 0, "SKIPPED: nvme-vm setup --rdma failed (needs root, apt-get, qemu): "
                + Files.readString(setupLog));

        Path rundir = dir.resolve("run");
        Path log = dir.resolve("rdma-run.log");
        int rc = run(List.of("env", "NVME_VM_RUNDIR=" + rundir, "NVME_VM_TIMEOUT=1300",
                harness.toString(), "rdma-run", repo.toString(), script.toString()), log, 1400);
        Path summary = rundir.resolve("out/verbs-summary.txt");
        String lines = Files.exists(summary) ? Files.readString(summary) : "(no summary; log " + log + ")";
        System.out.println("rdma-verbs.sh in the guest:\n" + lines);
        assertThat(rc).as("guest exit status; summary:%n%s%nrun dir %s", lines, rundir).isZero();
        assertThat(lines).doesNotContain("FAIL")
                .contains("ok   ./jdoca devices lists rxe0 port 1 ACTIVE")
                .contains("ok   jdoca client: 10 pings verified")
                .contains("ok   rping client: 10 pings, no data mismatch");
    }

    private static int run(List<String> cmd, Path log, long seconds) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(cmd);
        Process p = new ProcessBuilder(c).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                throw new AssertionError(cmd.get(0) + " timed out after " + seconds + " s; log " + log);
            }
            return p.exitValue();
        } finally {
            p.destroyForcibly();
        }
    }
}
