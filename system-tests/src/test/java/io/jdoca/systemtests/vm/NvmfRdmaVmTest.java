package io.jdoca.systemtests.vm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * VM test (profile {@code vm}, with {@code system}), issue 15: in the Soft-RoCE guest of ../shared/nvme-vm
 * ({@code nvme-vm.sh rdma-run}), runs {@code system-tests/src/test/resources/vm/nvmf-rdma.sh}: the Linux
 * nvme-rdma host against {@code ./jdoca sta-target} with an NVMe/RDMA listener on 10.0.2.15:4420 (and a TCP
 * one on the same port): discover, connect, list, id-ctrl, id-ns, fio verify, blkdiscard, disconnect and
 * reconnect, a namespace hot-added over RPC; the target killed during fio writes and restarted, the host
 * reconnecting and a verify pass reading every acknowledged write back; then the same verify job against the
 * kernel's nvmet-rdma, and {@code ./jdoca nvme-perf -r 'trtype:RDMA ...'} (4K randread QD32) against both targets.
 * Every check is a line of the guest's nvmf-rdma-summary.txt; the IOPS of both targets
 * are printed side by side (emulated CPUs: a relative figure). Skips with a message when the harness, QEMU
 * or the RDMA layer is absent. About 4-7 minutes on TCG.
 */
class NvmfRdmaVmTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 2100, unit = TimeUnit.SECONDS)
    void linuxNvmeRdmaHostAgainstStaTargetInTheSoftRoceGuest() throws Exception {
        GuestRun g = GuestRun.prepare(dir, "cli/target/jdoca.jar");
        int rc = g.run("nvmf-rdma.sh", 1800);
        String lines = g.read("nvmf-rdma-summary.txt");
        System.out.println("nvmf-rdma.sh in the guest (" + g.seconds() + " s):\n" + lines);
        String table = iopsTable(g.out("jdoca-verify.json"), g.out("kernel-verify.json"));
        System.out.println(table);
        assertThat(rc).as("guest exit status; summary:%n%s%n%s", lines, g.logTail(30)).isZero();
        assertThat(lines).doesNotContain("FAIL")
                .contains("ok   nvme discover -t rdma lists")
                .contains("ok   nvme connect -t rdma")
                .contains("ok   fio verify.fio over NVMe/RDMA")
                .contains("ok   blkdiscard")
                .contains("ok   reconnect after disconnect")
                .contains("namespace 2 appears on the host")
                .contains("ok   the host reconnected within ctrl-loss-tmo")
                .contains("ok   verify-only pass reads back every acknowledged write")
                .contains("ok   fio verify.fio against nvmet-rdma")
                // issue 15 item 3: ./jdoca nvme-perf -r 'trtype:RDMA ...' against both targets, and the ratio
                .contains("ok   nvme-perf -r trtype:RDMA 4K randread QD32 against jdoca sta-target: ")
                .contains("ok   nvme-perf -r trtype:RDMA 4K randread QD32 against nvmet-rdma (null_blk): ")
                .contains("ok   nvme-perf RDMA ratio jdoca/nvmet-rdma: ");
    }

    /** fio IOPS per job and direction, jdoca beside nvmet-rdma, with the ratio. */
    static String iopsTable(Path jdoca, Path kernel) throws IOException {
        if (!Files.exists(jdoca) || !Files.exists(kernel)) {
            return "(no fio JSON for both targets)";
        }
        Map<String, double[]> a = iops(jdoca);
        Map<String, double[]> b = iops(kernel);
        StringBuilder s = new StringBuilder("| fio job (verify.fio) | jdoca sta-target IOPS | nvmet-rdma IOPS | ratio "
                + "|\n|---|---|---|---|\n");
        for (var e : a.entrySet()) {
            double[] k = b.getOrDefault(e.getKey(), new double[] {0, 0});
            for (int d = 0; d < 2; d++) {
                double x = e.getValue()[d];
                double y = k[d];
                if (x > 0 || y > 0) {
                    s.append(String.format(Locale.ROOT, "| %s %s | %.0f | %.0f | %.2f |%n", e.getKey(), d == 0
                            ? "write" : "verify-read",
                            x, y, y > 0 ? x / y : 0));
                }
            }
        }
        return s.toString();
    }

    private static Map<String, double[]> iops(Path json) throws IOException {
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        Map<String, double[]> m = new LinkedHashMap<>();
        for (JsonNode j : root.path("jobs")) {
            m.put(j.path("jobname").asText(), new double[] {j.path("write").path("iops").asDouble(),
                    j.path("read").path("iops").asDouble()});
        }
        return m;
    }
}
