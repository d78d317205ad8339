package io.jdoca.systemtests.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * VM test (profile {@code vm}, with {@code system}): in the Soft-RoCE guest of ../shared/nvme-vm
 * ({@code nvme-vm.sh rdma-run}, rxe0 on 10.0.2.15, rdma-core 44), runs
 * {@code system-tests/src/test/resources/vm/rdma-verbs.sh} against this checkout's jars:
 * {@code ./jdoca devices} lists rxe0 with its capabilities; rdma-core's {@code rping -s} serves
 * {@code ./jdoca rdma-rping -c -C 10 -V}; {@code ./jdoca rdma-rping -s} serves {@code rping -c -C 10 -V}; both at
 * {@code -S} 23 (rping's minimum) and 65535 (its maximum); {@code RPING_SIZES} in the script adds others.
 * Every check is a line of the guest's verbs-summary.txt. Skips with a message when the harness, QEMU or
 * the RDMA layer is absent. About 4-6 minutes on TCG.
 */
class VerbsRpingVmTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 1500, unit = TimeUnit.SECONDS)
    void rpingInteropBothWaysAndDevicesInTheSoftRoceGuest() throws Exception {
        GuestRun g = GuestRun.prepare(dir, "cli/target/jdoca.jar");
        int rc = g.run("rdma-verbs.sh", 1300);
        String lines = g.read("verbs-summary.txt");
        System.out.println("rdma-verbs.sh in the guest (" + g.seconds() + " s):\n" + lines);
        assertThat(rc).as("guest exit status; summary:%n%s%n%s", lines, g.logTail(30)).isZero();
        assertThat(lines).doesNotContain("FAIL")
                .contains("ok   ./jdoca devices lists rxe0 port 1 ACTIVE");
        for (int size : new int[] {23, 65535}) {
            assertThat(lines).contains("ok   jdoca client: 10 pings of " + size + " bytes verified")
                    .contains("ok   rping client: 10 pings of " + size + " bytes, no data mismatch")
                    .contains("ok   rping server read 10 pings of " + size + " bytes")
                    .contains("ok   jdoca server read 10 pings of " + size + " bytes");
        }
    }
}
