package io.jdoca.systemtests.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * VM test (profile {@code vm}, with {@code system}): the RDMA conformance suite ({@code RdmaConformanceTest}, the
 * one the shm and tcp transports pass) on the verbs transport, over rxe0 in the Soft-RoCE guest of ../shared/nvme-vm
 * ({@code nvme-vm.sh rdma-run} with {@code system-tests/src/test/resources/vm/rdma-verbs-conformance.sh}):
 * {@code io.jdoca.rdma.VerbsConformanceMain} runs {@code VerbsConformanceTest} there with JUnit's launcher, and
 * DOCA's RDMA sample pairs on rxe0 ({@code RdmaSamplesVerbsTest}: each pair completes and verifies its data). Fails if
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
        GuestRun g = GuestRun.prepare(dir, "rdma/target/test-classes/io/jdoca/rdma/VerbsConformanceMain.class");
        Path repo = g.repo();
        Path depLog = dir.resolve("deps.log");
        int deps = GuestRun.exec(List.of(repo.resolve("mvnw").toString(), "-q", "-B", "-o", "-f",
                repo.resolve("pom.xml").toString(),
                "dependency:copy-dependencies", "-pl", "rdma", "-DincludeScope=test",
                "-DoutputDirectory=target/guest-lib"), Map.of(), depLog, 300);
        assertThat(deps).as("copying the rdma module's test dependencies: %s", Files.readString(depLog)).isZero();

        int rc = g.run("rdma-verbs-conformance.sh", 1300);
        String text = g.read("verbs-conformance.txt");
        System.out.println("verbs conformance suite in the guest (" + g.seconds() + " s):\n" + text);
        assertThat(rc).as("guest exit status; output:%n%s%n%s", text, g.logTail(30)).isZero();
        assertThat(text).contains("SUMMARY").doesNotContain("\nFAIL ").contains("PASS  atomicsCompareSwapAndFetchAdd")
                .contains("PASS  steadyStateSendReceiveAllocatesNothing")
                .contains("PASS  rdmaBridgeGivesThePdAndTheMemoryKeys")
                .contains("PASS  theEngineSleepsOnTheCompletionChannelAndTheTransportAddsNoThread")
                .contains("PASS  cmListenAndConnectToAddress")
                .contains("PASS  aPairConnectsThroughRdmaCm");
        for (String pair : new String[] {"READ", "WRITE", "WRITE_IMMEDIATE", "SEND_RECEIVE", "SEND_RECEIVE_IMMEDIATE",
            "SYNC_EVENT"}) {
            assertThat(text).as("DOCA sample pair %s on rxe0", pair).contains("PASS  " + pair + " on verbs");
        }
    }
}
