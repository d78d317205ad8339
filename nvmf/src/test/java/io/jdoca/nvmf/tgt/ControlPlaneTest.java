package io.jdoca.nvmf.tgt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.nvmf.perf.NvmeTcpHost;
import io.jdoca.sta.nvme.NvmeOpcode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 28 item 4: {@code sta-main} is the single writer of the target state. While it is stuck
 * (a command that blocks it), the IO engines keep executing I/O (they never wait for it), admin
 * commands wait for it (they are its commands), and a management call from another thread gives
 * up at its deadline with one line naming what it waited for; a call made on {@code sta-main}
 * itself runs inline.
 */
@Timeout(120)
class ControlPlaneTest {
    static final String NQN = "nqn.2024-01.io.jdoca:plane";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-0000000000c1";

    @Test
    void ioFlowsWhileStaMainIsStuckAndCallsGiveUpAtTheirDeadline() throws Exception {
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("""
                { "subsystems": [ { "nqn": "%s", "allow_any_host": true,
                  "namespaces": [ { "nsid": 1, "backend": "memory", "size_mb": 4, "block_size": 4096 } ] } ] }
                """.formatted(NQN)))) {
            t.start();
            int port = t.addListener("127.0.0.1", 0);
            try (NvmeTcpHost admin = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072);
                 NvmeTcpHost io = new NvmeTcpHost("127.0.0.1", port, false, false, 64, 131072)) {
                admin.initialize();
                int[] c = admin.connect(0, 31, NQN, HOST, 0xffff, 0);
                assertThat(c[0]).isZero();
                assertThat(admin.propertySet(0x14, 1)[0]).isZero();
                io.initialize();
                assertThat(io.connect(1, 127, NQN, HOST, c[1] & 0xffff, 0)[0]).isZero();

                CountDownLatch release = new CountDownLatch(1);
                CountDownLatch stuck = new CountDownLatch(1);
                t.onMainThread(() -> {
                    stuck.countDown();
                    try {
                        release.await(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                assertThat(stuck.await(10, TimeUnit.SECONDS)).as("sta-main took the blocking command").isTrue();
                try {
                    // The data path does not need sta-main: 200 reads complete while it is stuck.
                    int[] done = {0};
                    int[] failed = {0};
                    io.setListener(new NvmeTcpHost.Listener() {
                        @Override
                        public void onData(int cid, MemorySegment seg, long off, int len, int dataOffset) {
                        }

                        @Override
                        public void onCompletion(int cid, int status, int dw0) {
                            done[0]++;
                            failed[0] += status != 0 ? 1 : 0;
                        }
                    });
                    for (int i = 0; i < 200; i++) {
                        assertThat(io.read(0, 1, i, 1, 4096)).isTrue();
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                        while (done[0] <= i && System.nanoTime() < deadline) {
                            io.poll();
                        }
                    }
                    assertThat(done[0]).as("reads completed while sta-main was stuck").isEqualTo(200);
                    assertThat(failed[0]).isZero();

                    // An admin command is sta-main's: it is answered once sta-main runs again.
                    admin.sendCommand(NvmeOpcode.ADMIN_KEEP_ALIVE, 7, 0, 0, 0);

                    // A management call gives up at its deadline, with one line and without executing.
                    t.callDeadlineNanos(TimeUnit.MILLISECONDS.toNanos(300));
                    assertThatThrownBy(() -> t.createSubsystem(new TargetConfig.SubsystemConfig(
                            "nqn.2024-01.io.jdoca:late", null, null, true, null, null)))
                            .isInstanceOf(DocaException.class)
                            .satisfies(e -> assertThat(((DocaException) e).error()).isEqualTo(DocaError.TIME_OUT))
                            .hasMessageStartingWith("sta-main did not answer nvmf_create_subsystem within 300 ms "
                                    + "(not executed)")
                            .hasMessageNotContaining("\n");
                    release.countDown();
                    assertThat(admin.awaitResp(7)[0]).isZero();
                } finally {
                    release.countDown();
                }
                t.callDeadlineNanos(NvmfMain.CALL_NANOS);
                assertThat(t.subsystem("nqn.2024-01.io.jdoca:late")).as("the abandoned call never ran").isNull();
            }
        }
    }

    @Test
    void aCallMadeOnStaMainRunsInline() throws Exception {
        try (NvmfTarget t = new NvmfTarget(TargetConfig.parse("{\"io_threads\":1}"))) {
            t.start();
            CompletableFuture<Integer> seen = new CompletableFuture<>();
            t.onMainThread(() -> {
                try {
                    t.createSubsystem(new TargetConfig.SubsystemConfig("nqn.2024-01.io.jdoca:inline", null, null,
                            true, null, null));
                    seen.complete(t.subsystems().size());
                } catch (RuntimeException e) {
                    seen.completeExceptionally(e);
                }
            });
            assertThat(seen.get(10, TimeUnit.SECONDS)).as("discovery + the new one, no self-deadlock").isEqualTo(2);
        }
    }

    /**
     * No monitor in the target package: its state has one writer, sta-main (before issue 28: 48,
     * in NvmfController, NvmfTarget and RdmaCmService).
     */
    @Test
    void theTargetPackageTakesNoMonitor() throws IOException {
        assertThat(codeLinesMatching(".*\\bsynchronized\\b.*")).as("synchronized in io.jdoca.nvmf.tgt").isEmpty();
    }

    /**
     * No heap array as a segment in the target package: admin commands pass through the flyweights the engines'
     * compiled data path uses on native memory, and one heap segment there deoptimised it at every new connection
     * (NvmfAdminCommand.offHeap; docs/performance/nvmf.md, 2026-12-03 07:35).
     */
    @Test
    void theTargetPackageWrapsNoHeapArrayAsASegment() throws IOException {
        assertThat(codeLinesMatching(".*MemorySegment\\.ofArray\\(.*")).as("MemorySegment.ofArray in io.jdoca.nvmf.tgt")
                .isEmpty();
    }

    /** file:line of every code line (not a comment) of io.jdoca.nvmf.tgt's main sources matching {@code regex}. */
    private static List<String> codeLinesMatching(String regex) throws IOException {
        Path dir = Path.of(System.getProperty("user.dir"), "src/main/java/io/jdoca/nvmf/tgt");
        List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String code = lines.get(i).replaceAll("//.*", "").trim();
                    if (!code.startsWith("*") && code.matches(regex)) {
                        found.add(f.getFileName() + ":" + (i + 1));
                    }
                }
            }
        }
        return found;
    }
}
