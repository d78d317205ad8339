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
 * VM test (profile {@code vm}, with {@code system}): the RDMA conformance suite ({@code RdmaConformanceTest}, the
 * one the shm and tcp transports pass) on the verbs transport, over rxe0 in the Soft-RoCE guest of ../shared/nvme-vm
 * ({@code nvme-vm.sh rdma-run} with {@code system-tests/src/test/resources/vm/rdma-verbs-conformance.sh}):
 * {@code io.jdoca.rdma.VerbsConformanceMain} runs {@code VerbsConformanceTest} there with JUnit's launcher. Fails if
 * any guest test fails or none ran. Needs the rdma module's test classes (built by the reactor before this module)
 * and copies its test dependencies to {@code rdma/target/guest-lib} (the guest has no Maven repository). Skips with a
 * message when the harness, QEMU or the RDMA layer is absent. About 5-8 minutes on TCG.
 */
class VerbsConformanceVmTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 1500, unit = TimeUnit.SECONDS)
    void rdmaConformanceSuitePassesOnTheVerbsTransportOverRxe0() throws Exception {
        assumeTrue(Boolean.getBoolean("jdoca.vm"), "VM tests run with -Psystem,vm");
        Path shared = JavaProcess.sharedDir();
        assumeTrue(shared != null, "SKIPPED: ../shared (nvme-vm harness) is absent on this clone");
        Path harness = shared.resolve("nvme-vm/nvme-vm.sh");
        assumeTrue(Files.isExecutable(harness), "SKIPPED: " + harness + " not found");
        Path repo = JavaProcess.repoRoot();
        assumeTrue(Files.exists(repo.resolve("rdma/target/test-classes/io/jdoca/rdma/VerbsConformanceMain.class")),
                "SKIPPED: the rdma module's test classes are not built");

        Path depLog = dir.resolve("deps.log");
        int deps = run(List.of(repo.resolve("mvnw").toString(), "-q", "-B", "-o", "-f", repo.resolve("pom.xml").toString(),
                "dependency:copy-dependencies", "-pl", "rdma", "-DincludeScope=test",
                "-DoutputDirectory=target/guest-lib"), depLog, 300);
        assertThat(deps).as("copying the rdma module's test dependencies: %s", Files.readString(depLog)).isZero();

        Path setupLog = dir.resolve("setup.log");
        int setup = run(List.of(harness.toString(), "setup", "--rdma"), setupLog, 600);
        assumeTrue(setup == 0, "SKIPPED: nvme-vm setup --rdma failed (needs root, apt-get, qemu): "
                + Files.readString(setupLog));

        Path rundir = dir.resolve("run");
        Path log = dir.resolve("rdma-run.log");
        int rc = run(List.of("env", "NVME_VM_RUNDIR=" + rundir, "NVME_VM_TIMEOUT=1300", harness.toString(), "rdma-run",
                repo.toString(), repo.resolve("system-tests/src/test/resources/vm/rdma-verbs-conformance.sh").toString()),
                log, 1400);
        Path out = rundir.resolve("out/verbs-conformance.txt");
        String text = Files.exists(out) ? Files.readString(out) : "(no output; log " + log + ")";
        System.out.println("verbs conformance suite in the guest:\n" + text);
        assertThat(rc).as("guest exit status; output:%n%s%nrun dir %s", text, rundir).isZero();
        assertThat(text).contains("SUMMARY").doesNotContain("\nFAIL ").contains("PASS  atomicsCompareSwapAndFetchAdd")
                .contains("PASS  steadyStateSendReceiveAllocatesNothing");
    }

    private static int run(List<String> cmd, Path log, long seconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true).redirectOutput(log.toFile()).start();
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
