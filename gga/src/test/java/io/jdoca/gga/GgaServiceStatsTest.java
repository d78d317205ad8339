package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.ec.EcMatrixType;
import io.jdoca.gga.sbc.SbcGenerator;
import io.jdoca.storage.initiator.ExecutionStrategy;
import io.jdoca.storage.initiator.InitiatorComch;
import io.jdoca.storage.targetrdma.TargetRdma;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three targets, gga-offload and the initiator in one process (as {@code ./jdoca bench storage} runs
 * them): after the service's session has ended, {@link GgaService#stats()} still gives that session's
 * figures. It once returned nothing at that point, so the bench reported "0 recoveries" and 0 B/op for
 * every recovery run without noticing.
 */
class GgaServiceStatsTest {
    private static final int HALF = 2048;
    private static final int BLOCKS = 256;
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    @Test
    @Timeout(120)
    void statsOfAnEndedSessionCountItsRecoveryReads(@TempDir Path dir) throws Exception {
        Path plain = dir.resolve("plain.bin");
        // GGA stores compressed halves: the content must compress (words in random order).
        String[] words = "storage offload erasure parity block target initiator recover engine buffer".split(" ");
        java.util.Random r = new java.util.Random(3);
        StringBuilder sb = new StringBuilder();
        while (sb.length() < BLOCKS * 2 * HALF) {
            sb.append(words[r.nextInt(words.length)]).append(' ');
        }
        Files.writeString(plain, sb.substring(0, BLOCKS * 2 * HALF));
        Path[] sbc = {dir.resolve("d1.sbc"), dir.resolve("d2.sbc"), dir.resolve("dp.sbc")};
        try (Dev dev = Devices.open("sw0")) {
            SbcGenerator.generate(dev, plain, sbc[0], sbc[1], sbc[2], 2 * HALF, EcMatrixType.VANDERMONDE);
        }
        ExecutorService ex = Executors.newCachedThreadPool();
        AtomicBoolean abort = new AtomicBoolean();
        try {
            List<Future<Integer>> targets = new ArrayList<>();
            List<String> addrs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                int port = freePort();
                Path content = sbc[i];
                targets.add(ex.submit(() -> new TargetRdma(new TargetRdma.Config("sw0", List.of(0), port, content,
                        BLOCKS,
                        HALF, null, 30_000_000_000L), abort).run(QUIET)));
                addrs.add("127.0.0.1:" + port);
            }
            String channel = "gga-stats-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            GgaService svc = new GgaService(new GgaService.Config("sw0", null, List.of(0), addrs,
                    EcMatrixType.VANDERMONDE,
                    channel, 30_000_000_000L, 1), abort);
            Future<Integer> g = ex.submit(() -> svc.run(QUIET));
            long ops = 2_000;
            InitiatorComch ini = new InitiatorComch(new InitiatorComch.Config("sw0", List.of(0),
                    ExecutionStrategy.READ_THROUGHPUT_TEST, null, ops, 16, channel, 30_000_000_000L, 0, 1), abort);
            assertThat(ini.run(QUIET)).isZero();
            assertThat(g.get(60, TimeUnit.SECONDS)).isZero();
            for (Future<Integer> t : targets) {
                assertThat(t.get(60, TimeUnit.SECONDS)).isZero();
            }
            List<WorkerStats> stats = svc.stats();
            assertThat(stats).hasSize(1);
            // --trigger-recovery-read-every-n 1: every read is a recovery read.
            assertThat(stats.get(0).reads()).isGreaterThanOrEqualTo(ops);
            assertThat(stats.get(0).recoveries()).isGreaterThanOrEqualTo(ops);
        } finally {
            abort.set(true);
            ex.shutdownNow();
        }
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
