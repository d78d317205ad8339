package io.jdoca.storage.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.storage.initiator.ExecutionStrategy;
import io.jdoca.storage.initiator.InitiatorComch;
import io.jdoca.storage.initiator.InitiatorStats;
import io.jdoca.storage.targetrdma.TargetRdma;
import io.jdoca.storage.zerocopy.ZeroCopyService;
import io.jdoca.testkit.JavaProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** target-rdma, zero-copy and initiator-comch as threads of one JVM (the multi-process runs are in system-tests). */
class InProcessStorageTest {
    @TempDir
    Path dir;

    record Run(int rc, String initiatorOut, String targetOut, String relayOut, InitiatorStats stats) {
    }

    static Run run(ExecutionStrategy s, Path plain, Path sbc, Path backing, long runLimit,
            int blockCount) throws Exception {
        String channel = "t-" + UUID.randomUUID();
        int port = JavaProcess.freePort();
        ByteArrayOutputStream tOut = new ByteArrayOutputStream();
        ByteArrayOutputStream zOut = new ByteArrayOutputStream();
        ByteArrayOutputStream iOut = new ByteArrayOutputStream();
        AtomicBoolean abort = new AtomicBoolean();
        TargetRdma target = new TargetRdma(new TargetRdma.Config("sw0", List.of(0), port, sbc, blockCount, 4096,
                backing,
                10_000_000_000L), abort);
        java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newCachedThreadPool();
        CompletableFuture<Integer> t = CompletableFuture.supplyAsync(() -> target.run(new PrintStream(tOut, true)), ex);
        ZeroCopyService relay = new ZeroCopyService(new ZeroCopyService.Config("sw0", null, List.of(0), "127.0.0.1:"
                + port,
                channel, 5_000_000_000L), abort);
        CompletableFuture<Integer> z = CompletableFuture.supplyAsync(() -> relay.run(new PrintStream(zOut, true)), ex);
        InitiatorComch ini = new InitiatorComch(new InitiatorComch.Config("sw0", List.of(0), s, plain, runLimit, 16,
                channel,
                5_000_000_000L, 0, 1), abort);
        int rc;
        try {
            rc = ini.run(new PrintStream(iOut, true));
        } finally {
            String o = iOut.toString(StandardCharsets.UTF_8);
            System.out.println(o);
            ex.shutdown();
        }
        int zr = z.get(30, TimeUnit.SECONDS);
        int tr = t.get(30, TimeUnit.SECONDS);
        String zs = zOut.toString(StandardCharsets.UTF_8);
        String ts = tOut.toString(StandardCharsets.UTF_8);
        System.out.println(zs);
        System.out.println(ts);
        assertThat(zr).as("relay exit").isZero();
        assertThat(tr).as("target exit").isZero();
        return new Run(rc, iOut.toString(StandardCharsets.UTF_8), ts, zs, ini.stats());
    }

    @Test
    void readWriteValidity() throws Exception {
        Run r = run(ExecutionStrategy.READ_WRITE_DATA_VALIDITY_TEST, null, null, null, 0, 64);
        assertThat(r.rc()).isZero();
        assertThat(r.stats().operations()).isEqualTo(64);
        assertThat(r.initiatorOut()).contains("Test passed");
        assertThat(r.targetOut()).contains("Operation count: 128");
        assertThat(r.relayOut()).contains("Operation count: 128");
    }

    @Test
    void readThroughput() throws Exception {
        Run r = run(ExecutionStrategy.READ_THROUGHPUT_TEST, null, null, null, 5000, 64);
        assertThat(r.rc()).isZero();
        assertThat(r.stats().operations()).isEqualTo(5000);
        assertThat(r.stats().miops()).isPositive();
    }

    /**
     * Steady-state allocation of all three data paths (initiator worker, relay worker, target worker),
     * each measured on its own thread between data-path start and stop: under 1 byte per operation.
     */
    @Test
    void dataPathsAllocateNothingInSteadyState() throws Exception {
        long ops = 150_000;
        Run r = run(ExecutionStrategy.WRITE_THROUGHPUT_TEST, null, null, null, ops, 64);
        assertThat(r.rc()).isZero();
        assertThat(r.stats().dataPathAllocatedBytes()).as("initiator bytes over %d ops", ops).isLessThan(ops);
        for (String out : List.of(r.targetOut(), r.relayOut())) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("Data path allocation: (\\d+) "
                    + "bytes").matcher(out);
            assertThat(m.find()).as(out).isTrue();
            assertThat(Long.parseLong(m.group(1))).as("bytes over %d ops in\n%s", ops, out).isLessThan(ops);
        }
    }
}
