package io.jdoca.nvmf.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.PerfRun.Out;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.testkit.JavaProcess;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine;

/**
 * Issue 30: every spdk_nvme_perf flag either means what SPDK means or is refused with one line; sizes
 * with units; several -r; a discovery trid; -d, -Q, -m, -k; Connect errors by name; and
 * docs/SPDK-USERS.md's flag table says what the code does. Fails on the commit before: -a was the address,
 * -s the port, -l the log level, -g/-G digests, -V the version, 4k refused, one -r, no -d/-Q/-m.
 */
class NvmePerfFlagsTest {
    /** SPDK's {@code PERF_GETOPT_SHORT} (app/spdk_nvme_perf/perf.c): every short flag and whether it takes a value. */
    static final String SPDK_SHORT = "a:b:c:d:e:ghi:lmo:q:r:k:s:t:v:w:y:z:A:C:DEF:GHILM:NO:P:Q:RS:T:U:VZ:";
    /** SPDK's {@code g_perf_cmdline_opts} long names (perf.c), in its order. */
    static final List<String> SPDK_LONG = List.of("warmup-time", "allowed-pci-addr", "core-mask", "metadata",
            "mem-single-seg", "help", "shmem-grp-id", "enable-ssd-latency-tracking", "cpu-usage", "io-size", "io-depth",
            "transport", "keepalive", "hugemem-size", "time", "number-ios", "io-pattern", "disable-zcopy",
            "buffer-alignment", "max-completion-per-poll", "disable-sq-cmb", "enable-interrupt", "zipf", "enable-debug",
            "enable-tcp-hdgst", "enable-tcp-ddgst", "enable-sw-latency-tracking", "rwmixread", "no-shst-notification",
            "io-unit-size", "num-qpairs", "continue-on-error", "enable-uring", "default-sock-impl", "logflag",
            "num-unused-qpairs", "enable-vmd", "enable-zcopy", "tpoint-group-mask", "transport-stats", "iova-mode",
            "io-queue-size", "disable-ktls", "enable-ktls", "tls-version", "psk-path", "psk-identity",
            "zerocopy-threshold", "zerocopy-threshold-sock-impl", "transport-tos", "rdma-srq-size", "use-every-core",
            "no-huge", "dhchap-key", "dhchap-ctrlr-key", "vfio-vf-token", "log-level", "enforce-numa", "env-context",
            "help-full");
    static final String NQN1 = "nqn.2016-06.io.spdk:cnode1";
    static final String NQN2 = "nqn.2016-06.io.spdk:cnode2";

    private static Out run(String... args) {
        return PerfRun.run(args);
    }

    @Test
    void theListHasEverySpdkFlagWithItsArity() {
        Map<String, Boolean> shortFlags = new LinkedHashMap<>();
        for (int i = 0; i < SPDK_SHORT.length(); i++) {
            boolean arg = i + 1 < SPDK_SHORT.length() && SPDK_SHORT.charAt(i + 1) == ':';
            shortFlags.put("-" + SPDK_SHORT.charAt(i), arg);
            if (arg) {
                i++;
            }
        }
        Map<String, Boolean> listed = new LinkedHashMap<>();
        for (PerfFlags.Flag f : PerfFlags.ALL) {
            if (f.shortName() != null) {
                listed.put(f.shortName(), f.arg());
            }
        }
        shortFlags.put("-v", false); // perf.c's "v:" is a slip: its long form --help-full takes no argument
        assertThat(listed).containsExactlyInAnyOrderEntriesOf(shortFlags);
        assertThat(PerfFlags.ALL.stream().map(f -> f.longName().substring(2)).toList())
                .containsExactlyInAnyOrderElementsOf(SPDK_LONG);
    }

    @Test
    void acceptedFlagsAreOptionsAndRefusedOnesSayWhyInOneLine() {
        CommandLine cl = new CommandLine(new NvmePerfApp());
        for (PerfFlags.Flag f : PerfFlags.ALL) {
            OptionSpec o = cl.getCommandSpec().findOption(f.longName());
            assertThat(o).as(f.longName()).isNotNull();
            if (f.shortName() != null) {
                assertThat(cl.getCommandSpec().findOption(f.shortName())).as(f.shortName()).isSameAs(o);
            }
            assertThat(o.hidden()).as(f.longName() + " hidden").isEqualTo(f.status() == PerfFlags.Status.REFUSED);
            if (f.status() == PerfFlags.Status.REFUSED) {
                List<String> args = new ArrayList<>(List.of(f.shortName() != null ? f.shortName() : f.longName()));
                if (f.arg()) {
                    args.add("1");
                }
                Out r = run(args.toArray(String[]::new));
                assertThat(r.rc()).as(args.toString()).isEqualTo(2);
                assertThat(r.err().lines().toList()).as(args.toString()).hasSize(1);
                assertThat(r.err()).startsWith("nvme-perf: " + args.getFirst()).contains("not supported: ");
            }
        }
        Out v = run("-v");
        assertThat(v.rc()).isZero();
        assertThat(v.out()).contains("spdk_nvme_perf's flags in nvme-perf:", "-V, --enable-vmd", "refused");
        assertThat(run("-V").err()).isEqualTo("nvme-perf: -V (--enable-vmd): not supported: a PCIe/DPDK option: "
                + "nvme-perf connects to NVMe/TCP and NVMe/RDMA targets only (-r trtype:TCP or trtype:RDMA) and "
                + "allocates its memory itself\n");
    }

    @Test
    void sizesTakeSpdksUnits() {
        assertThat(PerfFlags.size("-o", "4096")).isEqualTo(4096);
        assertThat(PerfFlags.size("-o", "4k")).isEqualTo(4096);
        assertThat(PerfFlags.size("-o", "128K")).isEqualTo(128 << 10);
        assertThat(PerfFlags.size("-o", "1M")).isEqualTo(1 << 20);
        assertThat(PerfFlags.size("-o", "2g")).isEqualTo(2L << 30);
        assertThat(PerfFlags.size("-o", "4KiB")).isEqualTo(4096);
        assertThatThrownBy(() -> PerfFlags.size("-o", "4q")).hasMessageContaining("-o: unknown unit 'q'");
        assertThatThrownBy(() -> PerfFlags.size("-o", "k")).hasMessageStartingWith("-o must be a size");
    }

    /** docs/SPDK-USERS.md's table: one row per spdk_nvme_perf flag with the status the code has. */
    @Test
    void theDocsTableIsTheCodesList() throws Exception {
        String doc = Files.readString(JavaProcess.repoRoot().resolve("docs/SPDK-USERS.md"));
        int at = doc.indexOf("| spdk_nvme_perf flag | in nvme-perf |");
        assertThat(at).as("the table's header in docs/SPDK-USERS.md").isNotNegative();
        Map<String, String> rows = new LinkedHashMap<>();
        int end = doc.indexOf("\n#", at); // the table ends at the next heading
        Matcher m = Pattern.compile("(?m)^\\| (`[^|]+`) \\| ([a-z ,]+) \\|")
                .matcher(doc.substring(at, end < 0 ? doc.length() : end));
        while (m.find()) {
            rows.put(m.group(1).replace("`", ""), m.group(2).trim());
        }
        Map<String, String> code = new LinkedHashMap<>();
        for (PerfFlags.Flag f : PerfFlags.ALL) {
            code.put(f.names(), f.status().doc);
        }
        assertThat(rows).containsExactlyEntriesOf(code);
    }

    private static NvmfTarget target() throws Exception {
        NvmfTarget t = new NvmfTarget(TargetConfig.parse("""
                { "io_threads": 1, "subsystems": [
                  { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 4, "block_size": 4096 } ] },
                  { "nqn": "%s", "allow_any_host": true,
                    "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 4, "block_size": 4096 },
                                    { "nsid": 2, "backend": "memory", "size_mb": 4, "block_size": 4096 } ] } ] }
                """.formatted(NQN1, NQN2)));
        t.start();
        return t;
    }

    private static String trid(int port, String nqn) {
        return "trtype:TCP adrfam:IPv4 traddr:127.0.0.1 trsvcid:" + port + (nqn == null ? "" : " subnqn:" + nqn);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void severalTridsADiscoveryTridEveryNamespaceAndNumberIos() throws Exception {
        try (NvmfTarget t = target()) {
            int port = t.addListener("127.0.0.1", 0);
            // Two -r: cnode1's namespace and every active namespace of cnode2 (two).
            Out two = run("-r", trid(port, NQN1), "-r", trid(port, NQN2), "-w", "randrw", "-o", "4k", "-q", "4",
                    "-t", "0.5", "-a", "0", "-m");
            assertThat(two.rc()).as(two.out() + two.err()).isZero();
            assertThat(two.out()).contains("subnqn:" + NQN1 + ") NSID 1 reads", "subnqn:" + NQN2 + ") NSID 1 reads",
                    "subnqn:" + NQN2 + ") NSID 2 reads", "x 3 namespaces", "CPU usage");
            // A discovery trid (no subnqn): the same three namespaces, found through the discovery log.
            Out disc = run("-r", trid(port, null), "-w", "randread", "-o", "4096", "-q", "4", "-t", "0.5", "-a", "0");
            assertThat(disc.rc()).as(disc.out() + disc.err()).isZero();
            assertThat(disc.out()).contains("subnqn:" + NQN1 + ") NSID 1 reads", "subnqn:" + NQN2 + ") NSID 2 reads");
            // -d: 300 I/Os on the one namespace, over two queues, then the run ends (long before -t).
            long t0 = System.nanoTime();
            Out d = run("-r", trid(port, NQN1) + " ns:1", "-w", "randread", "-o", "4k", "-q", "8", "-P", "2", "-d",
                    "300", "-t", "60");
            assertThat(d.rc()).as(d.out() + d.err()).isZero();
            assertThat(d.out()).contains("I/Os: 300 ");
            assertThat((System.nanoTime() - t0) / 1e9).isLessThan(30);
            assertThat(run("-r", trid(port, NQN1), "-d", "300", "-a", "1").err())
                    .isEqualTo("nvme-perf: -d (--number-ios) with -a (--warmup-time) is not supported\n");
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void connectErrorsAreNamedAndQuietErrorsDoNotFailTheRun() throws Exception {
        try (NvmfTarget t = target()) {
            int port = t.addListener("127.0.0.1", 0);
            Out no = run("-r", trid(port, "nqn.2016-06.io.spdk:nosuch"), "-t", "0.5");
            assertThat(no.rc()).isEqualTo(1);
            assertThat(no.err()).isEqualTo("nvme-perf: admin Connect to nqn.2016-06.io.spdk:nosuch refused: Connect "
                    + "Invalid Parameters (SCT 1h, SC 82h): subnqn: the target has no such subsystem\n");
            // Every write fails (in-capsule data larger than the target takes): -Q keeps the exit status 0
            // and prints every 1000th failure; without -Q the exit status is 1.
            String[] failing = {"-r", trid(port, NQN1), "-w", "write", "-o", "16384", "--in-capsule", "16384",
                "-q", "4", "-t", "0.5", "-a", "0"};
            Out strict = run(failing);
            assertThat(strict.rc()).isEqualTo(1);
            assertThat(strict.err()).contains("write of LBA", "failed: Data SGL Length Invalid (SCT 0h, SC 0fh)");
            List<String> quiet = new ArrayList<>(List.of(failing));
            quiet.addAll(List.of("-Q", "1000"));
            Out q = run(quiet.toArray(String[]::new));
            assertThat(q.rc()).as(q.out() + q.err()).isZero();
            assertThat(q.out()).containsPattern("errors: [1-9]");
        }
    }

    /** -k: the keep-alive timeout sent at Connect is kept by Keep Alive commands through a run longer than it. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void keepAliveKeepsTheControllerThroughALongerRun() throws Exception {
        try (NvmfTarget t = target()) {
            int port = t.addListener("127.0.0.1", 0);
            Out r = run("-r", trid(port, NQN1), "-k", "1000", "-w", "randread", "-q", "2", "-t", "3", "-a", "0");
            assertThat(r.rc()).as(r.out() + r.err()).isZero();
            assertThat(r.err()).doesNotContain("Keep Alive failed");
            assertThat(r.out()).containsPattern("errors: 0");
        }
    }
}
