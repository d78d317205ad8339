package io.jdoca.systemtests.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * VM test (profile {@code vm}, with {@code system}), issue 33 over NVMe/RDMA: in the Soft-RoCE guest booted
 * with a kernel that has NVMe in-band authentication ({@link VmKernel#withAuth}: Debian 13's 6.12),
 * {@code system-tests/src/test/resources/vm/dhchap-rdma.sh} starts sta-target from an SPDK JSON
 * configuration whose keyring holds secrets nvme-cli generated; the kernel's nvme-rdma host authenticates
 * with DH-HMAC-CHAP bidirectionally (fio verify) and unidirectionally; a wrong secret and a keyless host are
 * refused with no controller left; no secret reaches the target's log. Skips with a message without the
 * harness, QEMU, the RDMA layer or that kernel.
 */
class DhchapRdmaVmTest {
    /** Kept when the test fails: the guest's /out (target log, dmesg, nvme-cli output) is the evidence. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    @Timeout(value = 1500, unit = TimeUnit.SECONDS)
    void linuxAuthenticatesOverNvmeRdmaAndWrongOrMissingSecretsAreRefused() throws Exception {
        String kernel = VmKernel.withAuth();
        GuestRun g = GuestRun.prepare(dir, Map.of("NVME_VM_KPKG", kernel), "cli/target/jdoca.jar");
        int rc = g.run("dhchap-rdma.sh", 1200);
        String lines = g.read("dhchap-summary.txt");
        System.out.println("dhchap-rdma.sh in the guest (" + g.seconds() + " s):\n" + lines);
        assertThat(rc).as("guest exit status; summary:%n%s%n%s", lines, g.logTail(30)).isZero();
        assertThat(lines).doesNotContain("FAIL")
                .contains("ok   bidirectional connect (host SHA-256, controller SHA-384 secrets)")
                .contains("ok   the controller is keyed both ways over rdma")
                .contains("ok   fio write+verify on the authenticated controller")
                .contains("ok   a wrong secret is refused")
                .contains("ok   a host without a key is refused")
                .contains("ok   no secret in the target's log");
    }
}
