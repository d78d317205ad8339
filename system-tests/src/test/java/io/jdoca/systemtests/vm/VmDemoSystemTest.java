package io.jdoca.systemtests.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Profile {@code vm} (with {@code system}): {@code ./jdoca demo} inside the nvme-vm RDMA test bed's
 * guest ({@code ../shared/nvme-vm/nvme-vm.sh rdma-run}), an emulated 2-vCPU machine (QEMU TCG)
 * where five JVMs share two slow CPUs: the liveness rules and startup deadlines must hold there
 * (issue 12). The jars of this build are used as they are ({@code JDOCA_NO_BUILD=1} in the guest:
 * the guest never writes build output into the shared tree); the guest script is
 * {@code src/test/resources/vm/demo-in-guest.sh}. Skips with a message when ../shared, root or
 * QEMU is absent. Takes 6-10 minutes on this 2-core host.
 *
 * <p>Alone: {@code ./jdoca build && ./jdoca mvn -B -Psystem,vm -pl system-tests install -Dtest=VmDemoSystemTest}.
 */
class VmDemoSystemTest {
    /** The guest's own limit (NVME_VM_TIMEOUT); the test waits a little longer for the harness to report. */
    static final int GUEST_LIMIT_S = 1800;

    @TempDir
    Path dir;

    @Test
    @Timeout(value = GUEST_LIMIT_S + 120, unit = TimeUnit.SECONDS)
    void ggaDemoPassesInsideTheEmulatedRdmaGuest() throws Exception {
        GuestRun g = GuestRun.prepare(dir, "cli/target/jdoca.jar");
        String out = g.runDemo("VmDemoSystemTest", "demo-in-guest.sh", GUEST_LIMIT_S);
        assertThat(out).contains("demo: PASSED");
    }
}
