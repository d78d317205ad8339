package io.jdoca.systemtests.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * VM test (profile {@code vm}, with {@code system}), issue 32 over NVMe/RDMA: in the Soft-RoCE guest
 * ({@code nvme-vm.sh rdma-run}), {@code system-tests/src/test/resources/vm/nvmf-rdma-multipath.sh} runs
 * sta-target with one subsystem reporting ANA on two NVMe/RDMA listeners (optimized, non-optimized);
 * the Linux nvme-rdma host connects to both (native multipath, one namespace, two paths) and runs fio
 * write+verify on the multipath device while {@code sta-rpc} sets the optimized listener inaccessible
 * and then optimized again: the host follows each state, I/O moves and comes back, fio ends without
 * error. Skips with a message without the harness, QEMU or the RDMA layer. About 5 minutes on TCG.
 */
class NvmfRdmaMultipathVmTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 1500, unit = TimeUnit.SECONDS)
    void linuxNativeMultipathOverTwoNvmeRdmaListenersFollowsTheAnaStates() throws Exception {
        GuestRun g = GuestRun.prepare(dir, "cli/target/jdoca.jar");
        int rc = g.run("nvmf-rdma-multipath.sh", 1200);
        String lines = g.read("multipath-summary.txt");
        System.out.println("nvmf-rdma-multipath.sh in the guest (" + g.seconds() + " s):\n" + lines);
        assertThat(rc).as("guest exit status; summary:%n%s%n%s", lines, g.logTail(30)).isZero();
        assertThat(lines).doesNotContain("FAIL")
                .contains("ok   nvme list-subsys: two live rdma paths with their ANA states")
                .contains("inaccessible")
                .contains("ok   fio write+verify on the multipath device ended without error");
    }
}
