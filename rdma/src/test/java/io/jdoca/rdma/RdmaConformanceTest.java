package io.jdoca.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.MemoryMap;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The RDMA conformance suite: every task type and every error path, run against each transport by
 * a subclass ({@link ShmConformanceTest}, {@link TcpConformanceTest}). Both sides live in this JVM
 * and are progressed by the test thread; the multi-process cases are in {@link RdmaPeerDeathTest}.
 */
abstract class RdmaConformanceTest {
    static final Duration T = Duration.ofSeconds(10);

    abstract RdmaTransportType transport();

    /** Extra arguments for the {@link io.jdoca.rdma.samples.RdmaPeerSample} child (its device, for verbs). */
    java.util.List<String> childArgs() {
        return java.util.List.of();
    }

    /** How long a child JVM may take to start and write its descriptor (ms). */
    long childStartMillis() {
        return 60_000;
    }

    /** How soon after a peer's death its in-flight tasks must have failed (ms). */
    long peerDeathBoundMillis() {
        return 1000;
    }

    /** Warm-up operations before a zero-allocation measurement (enough for C2 to compile the loop). */
    long allocWarmup() {
        return 20_000;
    }

    /** Wall-clock bound of one zero-allocation measurement (s). */
    long allocDeadlineSeconds() {
        return 60;
    }

    /** Operations measured by the zero-allocation tests ({@code def} on the software transports). */
    long allocOps(long def) {
        return def;
    }

    Side a;
    Side b;

    @AfterEach
    void tearDown() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    RdmaConnection pair() {
        return pair(AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA,
                AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA);
    }

    RdmaConnection pair(int bCtxPerms, int bMapPerms) {
        a = new Side(transport());
        b = new Side(transport(), bCtxPerms, bMapPerms);
        RdmaConnection c = Side.connect(a, b, 1, null)[0];
        assertEquals(RdmaConnectionState.ESTABLISHED, c.state());
        assertEquals(transport(), c.transport());
        return c;
    }

    void await(java.util.function.BooleanSupplier cond, String what) {
        Side.progressUntil(cond, T, what, a, b);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void sendAndReceiveReportLengthOpcodeAndConnection() {
        RdmaConnection c = pair();
        Buf dst = b.buf(0, 256, 0);
        assertEquals(DocaError.SUCCESS, b.rdma.taskReceiveAllocInit(dst, 7).submit());
        a.fill(1000, bytes("hello rdma"));
        assertEquals(DocaError.SUCCESS, a.rdma.taskSendAllocInit(c, a.buf(1000, 10, 10), 1).submit());
        await(() -> b.done.size() == 1 && a.done.size() == 1, "send + receive completions");
        Side.Done r = b.done.get(0);
        assertEquals(DocaError.SUCCESS, r.status());
        assertEquals(10, r.resultLen());
        assertEquals(RdmaOpcode.SEND, r.opcode());
        assertEquals(7, r.userData());
        assertNotNull(r.conn());
        assertEquals(10, dst.dataLen());
        assertEquals("hello rdma", new String(b.read(0, 10), StandardCharsets.UTF_8));
        assertEquals(DocaError.SUCCESS, a.done.get(0).status());
    }

    @Test
    void sendWithImmediateDeliversImmediate() {
        RdmaConnection c = pair();
        b.rdma.taskReceiveAllocInit(b.buf(0, 64, 0), 0).submit();
        a.fill(0, bytes("imm"));
        assertEquals(DocaError.SUCCESS, a.rdma.taskSendImmAllocInit(c, a.buf(0, 3, 3), 0xCAFEBABE, 0).submit());
        await(() -> b.done.size() == 1 && a.done.size() == 1, "completions");
        assertEquals(RdmaOpcode.SEND_WITH_IMM, b.done.get(0).opcode());
        assertEquals(0xCAFEBABE, b.done.get(0).immediate());
        assertEquals(3, b.done.get(0).resultLen());
    }

    @Test
    void receiveAppendsAfterExistingData() {
        RdmaConnection c = pair();
        b.fill(0, bytes("AB"));
        Buf dst = b.buf(0, 64, 2);
        b.rdma.taskReceiveAllocInit(dst, 0).submit();
        a.fill(0, bytes("CD"));
        a.rdma.taskSendAllocInit(c, a.buf(0, 2, 2), 0).submit();
        await(() -> b.done.size() == 1, "receive");
        assertEquals(4, dst.dataLen());
        assertEquals("ABCD", new String(b.read(0, 4), StandardCharsets.UTF_8));
    }

    @Test
    void writeAppendsToRemoteBufferAndReadAppendsToLocal() {
        RdmaConnection c = pair();
        MemoryMap remote = a.importMap(b.exportMap());
        byte[] data = new byte[65536];
        new Random(1).nextBytes(data);
        a.fill(0, data);
        Buf rdst = a.remoteBuf(remote, 100_000, 70_000, 0);
        assertEquals(DocaError.SUCCESS, a.rdma.taskWriteAllocInit(c, a.buf(0, data.length, data.length), rdst,
                1).submit());
        await(() -> a.done.size() == 1, "write");
        assertEquals(DocaError.SUCCESS, a.done.get(0).status());
        assertArrayEquals(data, b.read(100_000, data.length));
        assertEquals(data.length, rdst.dataLen());
        // read it back into a fresh local buffer that already holds 5 bytes
        Buf ldst = a.buf(200_000, 70_000, 5);
        Buf rsrc = a.remoteBuf(remote, 100_000, data.length, data.length);
        assertEquals(DocaError.SUCCESS, a.rdma.taskReadAllocInit(c, rsrc, ldst, 2).submit());
        await(() -> a.done.size() == 2, "read");
        assertEquals(DocaError.SUCCESS, a.done.get(1).status());
        assertEquals(data.length, a.done.get(1).resultLen());
        assertEquals(5 + data.length, ldst.dataLen());
        assertArrayEquals(data, a.read(200_005, data.length));
    }

    @Test
    void writeWithImmediateConsumesAReceive() {
        RdmaConnection c = pair();
        MemoryMap remote = a.importMap(b.exportMap());
        b.rdma.taskReceiveAllocInit(b.buf(0, 16, 0), 3).submit();
        a.fill(0, bytes("written"));
        Buf rdst = a.remoteBuf(remote, 4096, 64, 0);
        assertEquals(DocaError.SUCCESS, a.rdma.taskWriteImmAllocInit(c, a.buf(0, 7, 7), rdst, 42, 0).submit());
        await(() -> a.done.size() == 1 && b.done.size() == 1, "write-imm and receive");
        assertEquals(DocaError.SUCCESS, a.done.get(0).status());
        assertEquals(RdmaOpcode.WRITE_WITH_IMM, b.done.get(0).opcode());
        assertEquals(42, b.done.get(0).immediate());
        assertEquals("written", new String(b.read(4096, 7), StandardCharsets.UTF_8));
        assertEquals(7, rdst.dataLen());
    }

    @Test
    void atomicsCompareSwapAndFetchAdd() {
        RdmaConnection c = pair();
        MemoryMap remote = a.importMap(b.exportMap());
        b.mem.set(ValueLayout.JAVA_LONG, 8192, 100);
        Buf target = a.remoteBuf(remote, 8192, 8, 8);
        Buf res = a.buf(0, 64, 0);
        a.rdma.taskAtomicCmpSwpAllocInit(c, target, res, 100, 200, 1).submit();
        a.rdma.taskAtomicCmpSwpAllocInit(c, target, res, 100, 300, 2).submit(); // fails to compare: stays 200
        a.rdma.taskAtomicFetchAddAllocInit(c, target, res, 5, 3).submit();
        await(() -> a.done.size() == 3, "atomics");
        for (Side.Done d : a.done) {
            assertEquals(DocaError.SUCCESS, d.status());
        }
        assertEquals(205, b.mem.get(ValueLayout.JAVA_LONG, 8192));
        assertEquals(24, res.dataLen());
        assertEquals(100, a.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
        assertEquals(200, a.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 8));
        assertEquals(200, a.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 16));
    }

    @Test
    void remoteSyncEventGetSetAdd() {
        RdmaConnection c = pair();
        try (NetSyncEvent ev = NetSyncEvent.create(b.dev);
                SyncEventRemoteNet rev = SyncEventRemoteNet.createFromExport(ev.exportToRemoteNet(), a.dev)) {
            ev.set(11);
            Buf got = a.buf(0, 64, 0);
            a.rdma.taskRemoteNetSyncEventGetAllocInit(c, rev, got, 1).submit();
            a.mem.set(ValueLayout.JAVA_LONG_UNALIGNED, 128, 77);
            a.rdma.taskRemoteNetSyncEventNotifySetAllocInit(c, rev, a.buf(128, 8, 8), 2).submit();
            Buf prev = a.buf(256, 64, 0);
            a.rdma.taskRemoteNetSyncEventNotifyAddAllocInit(c, rev, prev, 3, 3).submit();
            await(() -> a.done.size() == 3, "sync event tasks");
            for (Side.Done d : a.done) {
                assertEquals(DocaError.SUCCESS, d.status(), "kind " + d.kind());
            }
            assertEquals(11, a.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            assertEquals(8, got.dataLen());
            assertEquals(77, a.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 256));
            assertEquals(80, ev.get());
        }
    }

    /** Issue 12 item 10: core's SyncEvent.exportToRemoteNet() blob is what SyncEventRemoteNet reads. */
    @Test
    void coreSyncEventExportedToRemoteNetIsReachable() {
        RdmaConnection c = pair();
        io.jdoca.core.sync.SyncEvent ev = io.jdoca.core.sync.SyncEvent.create();
        assertEquals(DocaError.SUCCESS, ev.addPublisherLocationCpu(b.dev));
        assertEquals(DocaError.SUCCESS, ev.addSubscriberLocationRemoteNet());
        assertEquals(DocaError.SUCCESS, ev.start());
        try (SyncEventRemoteNet rev = SyncEventRemoteNet.createFromExport(ev.exportToRemoteNet(), a.dev)) {
            ev.updateSet(5);
            a.mem.set(ValueLayout.JAVA_LONG_UNALIGNED, 128, 40);
            a.rdma.taskRemoteNetSyncEventNotifySetAllocInit(c, rev, a.buf(128, 8, 8), 1).submit();
            Buf prev = a.buf(256, 64, 0);
            a.rdma.taskRemoteNetSyncEventNotifyAddAllocInit(c, rev, prev, 2, 2).submit();
            Buf got = a.buf(0, 64, 0);
            a.rdma.taskRemoteNetSyncEventGetAllocInit(c, rev, got, 3).submit();
            await(() -> a.done.size() == 3, "sync event tasks");
            for (Side.Done d : a.done) {
                assertEquals(DocaError.SUCCESS, d.status(), "kind " + d.kind());
            }
            assertEquals(40, a.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 256));
            assertEquals(42, a.mem.get(ValueLayout.JAVA_LONG_UNALIGNED, 0));
            assertEquals(42, ev.get());
        } finally {
            ev.close();
        }
    }

    @Test
    void writeWithoutRemoteWritePermissionFailsWithoutTouchingMemory() {
        RdmaConnection c = pair(AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA,
                AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_READ);
        MemoryMap remote = a.importMap(b.exportMap());
        a.fill(0, bytes("XXXX"));
        a.rdma.taskWriteAllocInit(c, a.buf(0, 4, 4), a.remoteBuf(remote, 0, 64, 0), 1).submit();
        a.rdma.taskAtomicFetchAddAllocInit(c, a.remoteBuf(remote, 64, 8, 8), a.buf(100, 8, 0), 1, 2).submit();
        a.rdma.taskReadAllocInit(c, a.remoteBuf(remote, 0, 4, 4), a.buf(200, 8, 0), 3).submit();
        await(() -> a.done.size() == 3, "completions");
        assertEquals(DocaError.NOT_PERMITTED, a.done.get(0).status());
        assertEquals(DocaError.NOT_PERMITTED, a.done.get(1).status());
        assertEquals(DocaError.SUCCESS, a.done.get(2).status());
        assertArrayEquals(new byte[72], b.read(0, 72));
        assertEquals(CtxState.RUNNING, a.rdma.state(), "a permission error is not fatal");
    }

    @Test
    void peerContextPermissionsAreEnforced() {
        RdmaConnection c = pair(AccessFlags.LOCAL_READ_WRITE | AccessFlags.RDMA_WRITE,
                AccessFlags.LOCAL_READ_WRITE | AccessFlags.ANY_RDMA);
        MemoryMap remote = a.importMap(b.exportMap());
        b.fill(0, bytes("secret"));
        Buf dst = a.buf(0, 64, 0);
        a.rdma.taskReadAllocInit(c, a.remoteBuf(remote, 0, 6, 6), dst, 1).submit();
        await(() -> a.done.size() == 1, "read");
        assertEquals(DocaError.NOT_PERMITTED, a.done.get(0).status());
        assertEquals(0, dst.dataLen());
        assertArrayEquals(new byte[6], a.read(0, 6));
    }

    @Test
    void outOfRangeAndMisalignedFailWithInvalidValue() {
        RdmaConnection c = pair();
        MemoryMap remote = a.importMap(b.exportMap());
        a.fill(0, new byte[128]);
        Arrays.fill(new byte[0], (byte) 0);
        a.mem.asSlice(0, 128).fill((byte) 0x5A);
        // source longer than the remote buffer's tailroom
        a.rdma.taskWriteAllocInit(c, a.buf(0, 128, 128), a.remoteBuf(remote, 0, 64, 0), 1).submit();
        // misaligned atomic
        a.rdma.taskAtomicFetchAddAllocInit(c, a.remoteBuf(remote, 1001, 16, 8), a.buf(512, 8, 0), 1, 2).submit();
        // read into a local buffer that is too small
        a.rdma.taskReadAllocInit(c, a.remoteBuf(remote, 0, 64, 64), a.buf(600, 16, 0), 3).submit();
        await(() -> a.done.size() == 3, "completions");
        assertEquals(DocaError.INVALID_VALUE, a.done.get(0).status());
        assertEquals(DocaError.INVALID_VALUE, a.done.get(1).status());
        assertEquals(DocaError.INVALID_VALUE, a.done.get(2).status());
        assertArrayEquals(new byte[2048], b.read(0, 2048));
    }

    @Test
    void receiveTooSmallFailsTheReceive() {
        RdmaConnection c = pair();
        b.rdma.taskReceiveAllocInit(b.buf(0, 4, 0), 0).submit();
        a.rdma.taskSendAllocInit(c, a.buf(0, 100, 100), 0).submit();
        await(() -> b.done.size() == 1 && a.done.size() == 1, "completions");
        assertEquals(DocaError.INVALID_VALUE, b.done.get(0).status());
        assertArrayEquals(new byte[4], b.read(0, 4));
    }

    @Test
    void tasksOnOneConnectionCompleteInSubmissionOrder() {
        RdmaConnection c = pair();
        MemoryMap remote = a.importMap(b.exportMap());
        int n = 300;
        for (int i = 0; i < 200; i++) {
            assertEquals(DocaError.SUCCESS, b.rdma.taskReceiveAllocInit(b.buf(100_000 + i * 64L, 64, 0), i).submit());
        }
        Random rnd = new Random(7);
        int submitted = 0;
        while (submitted < n) {
            int k = rnd.nextInt(4);
            if (k == 0 && b.done.size() + 150 < submitted) {
                k = 1;
            }
            RdmaTask t = switch (k) {
                case 0 -> a.rdma.taskSendAllocInit(c, a.buf(submitted * 8L, 8, 8), submitted);
                case 1 -> a.rdma.taskWriteAllocInit(c, a.buf(0, 4096, 4096), a.remoteBuf(remote, 200_000
                        + submitted * 4096L, 4096, 0),
                        submitted);
                case 2 -> a.rdma.taskReadAllocInit(c, a.remoteBuf(remote, 0, 1024, 1024), a.buf(3_000_000, 1024, 0),
                        submitted);
                default -> a.rdma.taskAtomicFetchAddAllocInit(c, a.remoteBuf(remote, 64, 8, 8), a.buf(3_100_000
                        + submitted * 8L, 8, 0), 1,
                        submitted);
            };
            DocaError e = t.submit();
            if (e == DocaError.AGAIN) {
                t.free();
                a.pe.progress();
                b.pe.progress();
                continue;
            }
            assertEquals(DocaError.SUCCESS, e);
            submitted++;
        }
        await(() -> a.done.size() == n, "all completions");
        for (int i = 0; i < n; i++) {
            assertEquals(i, a.done.get(i).userData(), "completion " + i + " out of order");
            assertEquals(DocaError.SUCCESS, a.done.get(i).status());
        }
    }

    @Test
    void scatterGatherListsUpToTheConfiguredLength() {
        RdmaConnection c = pair();
        a.fill(0, bytes("one-"));
        a.fill(100, bytes("two-"));
        a.fill(200, bytes("three"));
        Buf head = a.buf(0, 4, 4);
        head.chainList(a.buf(100, 4, 4));
        head.chainList(a.buf(200, 5, 5));
        Buf d1 = b.buf(0, 6, 0);
        d1.chainList(b.buf(1000, 64, 0));
        b.rdma.taskReceiveAllocInit(d1, 0).submit();
        assertEquals(DocaError.SUCCESS, a.rdma.taskSendAllocInit(c, head, 0).submit());
        await(() -> b.done.size() == 1, "receive");
        assertEquals(13, b.done.get(0).resultLen());
        assertEquals("one-tw", new String(b.read(0, 6), StandardCharsets.UTF_8));
        assertEquals("o-three", new String(b.read(1000, 7), StandardCharsets.UTF_8));
        // a list longer than max_send_buf_list_len (4) is refused at submit
        Buf longList = a.buf(0, 1, 1);
        for (int i = 1; i <= 4; i++) {
            longList.chainList(a.buf(i, 1, 1));
        }
        RdmaTaskSend t = a.rdma.taskSendAllocInit(c, longList, 0);
        assertEquals(DocaError.INVALID_VALUE, t.submit());
        t.free();
    }

    @Test
    void largeMessagesAreFragmentedAndReassembled() {
        RdmaConnection c = pair();
        byte[] data = new byte[1 << 20];
        new Random(3).nextBytes(data);
        a.fill(0, data);
        b.rdma.taskReceiveAllocInit(b.buf(0, data.length, 0), 0).submit();
        a.rdma.taskSendAllocInit(c, a.buf(0, data.length, data.length), 0).submit();
        await(() -> b.done.size() == 1 && a.done.size() == 1, "large send");
        assertEquals(DocaError.SUCCESS, b.done.get(0).status());
        assertArrayEquals(data, b.read(0, data.length));
    }

    @Test
    void severalConnectionsPerContext() {
        a = new Side(transport());
        b = new Side(transport());
        RdmaConnection[] bc = new RdmaConnection[3];
        RdmaConnection[] ac = Side.connect(a, b, 3, bc);
        for (int i = 0; i < 3; i++) {
            b.rdma.taskReceiveAllocInit(b.buf(i * 64L, 64, 0), i).submit();
        }
        for (int i = 0; i < 3; i++) {
            a.fill(i * 8L, bytes("conn" + i));
            assertEquals(DocaError.SUCCESS, a.rdma.taskSendAllocInit(ac[i], a.buf(i * 8L, 5, 5), i).submit());
            int k = i;
            await(() -> b.done.size() == k + 1, "receive " + k);
            assertTrue(b.done.get(k).conn() == bc[k], "receive reports the connection it came on");
        }
    }

    @Test
    void sendWithoutPostedReceiveFailsAfterTheRetryTimeAndStopsTheContext() {
        a = new Side(transport());
        b = new Side(transport());
        Side.check(a.rdma.setRnrRetryTimeoutMillis(300));
        Side.check(b.rdma.setRnrRetryTimeoutMillis(300));
        RdmaConnection c = Side.connect(a, b, 1, null)[0];
        long t0 = System.nanoTime();
        a.rdma.taskSendAllocInit(c, a.buf(0, 8, 8), 1).submit();
        await(() -> a.done.size() == 1, "send failure");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertEquals(DocaError.TIME_OUT, a.done.get(0).status());
        assertTrue(ms >= 250 && ms < 5000, "failed after " + ms + " ms");
        await(() -> a.rdma.state() == CtxState.IDLE && b.rdma.state() == CtxState.IDLE, "both contexts IDLE");
    }

    @Test
    void stopFlushesPostedReceivesThroughErrorCallbacks() {
        pair();
        for (int i = 0; i < 5; i++) {
            b.rdma.taskReceiveAllocInit(b.buf(i * 64L, 64, 0), i).submit();
        }
        assertEquals(DocaError.IN_PROGRESS, b.rdma.stop());
        await(() -> b.rdma.state() == CtxState.IDLE, "b IDLE");
        assertEquals(5, b.done.size());
        for (Side.Done d : b.done) {
            assertEquals(DocaError.SHUTDOWN, d.status());
        }
        await(() -> a.rdma.state() == CtxState.IDLE, "the peer notices and stops");
    }

    @Test
    void connectRejectsGarbageBlobs() {
        a = new Side(transport());
        a.rdma.start();
        RdmaExport x = a.rdma.export();
        assertEquals(DocaError.INVALID_VALUE, a.rdma.connect(new byte[] {1, 2, 3}, x.connection()));
        byte[] blob = x.blob().clone();
        blob[0] ^= 1;
        assertEquals(DocaError.INVALID_VALUE, a.rdma.connect(blob, x.connection()));
    }

    // ------------------------------------------------------------------ multi-process cases

    /** Starts an {@link io.jdoca.rdma.samples.RdmaPeerSample} child and connects {@code side} to it. */
    RdmaConnection connectToChild(Side side, io.jdoca.testkit.JavaProcess[] out, java.nio.file.Path dir, String mode,
            long count)
            throws Exception {
        java.nio.file.Path ld = dir.resolve(mode + "-child.desc");
        java.nio.file.Path re = dir.resolve(mode + "-parent.desc");
        java.nio.file.Path mm = dir.resolve(mode + "-mmap.desc");
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(mode, "--transport",
                transport().name(), "-ld",
                ld.toString(), "-re", re.toString(), "-m", mm.toString(), "--count", Long.toString(count), "--go",
                dir.getParent().resolve("go").toString()));
        args.addAll(childArgs());
        out[0] = io.jdoca.testkit.JavaProcess.start("rdma-" + mode, "io.jdoca.rdma.samples.RdmaPeerSample", args);
        if (mode.equals("fetch-add")) {
            io.jdoca.rdma.samples.RdmaPeerSample.writeDescriptor(mm, side.exportMap());
        }
        if (side.rdma.state() == CtxState.IDLE) {
            side.rdma.start();
        }
        RdmaExport x = side.rdma.export();
        io.jdoca.rdma.samples.RdmaPeerSample.writeDescriptor(re, x.blob());
        byte[] childBlob;
        try {
            childBlob = io.jdoca.rdma.samples.RdmaPeerSample.readDescriptor(ld, childStartMillis(), out[0].process());
        } catch (java.io.IOException e) {
            throw new java.io.IOException(e.getMessage() + "; child output:\n" + out[0].output(), e);
        }
        Side.check(side.rdma.connect(childBlob, x.connection()));
        Side.progressUntil(() -> x.connection().state() == RdmaConnectionState.ESTABLISHED, Duration.ofSeconds(60),
                "connection to the child", side);
        return x.connection();
    }

    @Test
    void peerDeathMidStreamFailsInFlightTasksWithinOneSecond(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        a = new Side(transport());
        io.jdoca.testkit.JavaProcess[] child = new io.jdoca.testkit.JavaProcess[1];
        try {
            RdmaConnection c = connectToChild(a, child, dir, "echo", 0);
            child[0].awaitOutput("RUNNING", Duration.ofMillis(childStartMillis()));
            MemoryMap remote = a.importMap(
                    io.jdoca.rdma.samples.RdmaPeerSample.readDescriptor(dir.resolve("echo-mmap.desc"), 10_000));
            // a steady stream: 16 echo round trips and 16 writes always in flight
            for (int i = 0; i < 16; i++) {
                a.rdma.taskReceiveAllocInit(a.buf(1_000_000 + i * 4096L, 4096, 0), 100 + i).submit();
            }
            int[] submitted = {0};
            int seen = 0;
            long deadline = System.nanoTime() + 500_000_000L;
            while (System.nanoTime() < deadline) {
                if (a.rdma.numInflightTasks() < 40 && submitted[0] < 20_000) {
                    int i = submitted[0]++;
                    if ((i & 1) == 0) {
                        a.rdma.taskWriteAllocInit(c, a.buf(0, 4096, 4096), a.remoteBuf(remote, (i % 32) * 4096L, 4096,
                                0), i).submit();
                    } else {
                        a.rdma.taskSendAllocInit(c, a.buf(8192, 512, 512), i).submit();
                    }
                }
                a.pe.progress();
                while (seen < a.done.size()) {
                    Side.Done d = a.done.get(seen++);
                    if (d.kind() == RdmaTask.K_RECV && d.status() == DocaError.SUCCESS) {
                        // an echo came back: repost a receive for the next one
                        RdmaTaskReceive r = a.rdma.taskReceiveAllocInit(a.buf(2_000_000 + (seen % 16) * 4096L, 4096,
                                0), 0);
                        if (r.submit() != DocaError.SUCCESS) {
                            r.free();
                        }
                    }
                }
            }
            int inflight = a.rdma.numInflightTasks();
            assertTrue(inflight > 0, "tasks in flight before the kill");
            long okBefore = a.done.stream().filter(d -> d.status() == DocaError.SUCCESS).count();
            assertTrue(okBefore > 10, "traffic flowed before the kill (" + okBefore + " completions)");
            int before = a.done.size();
            child[0].kill();
            // Time from the moment the peer is really gone (SIGKILL delivery is asynchronous).
            assertTrue(child[0].process().waitFor(10, java.util.concurrent.TimeUnit.SECONDS), "child died");
            long t0 = System.nanoTime();
            Side.progressUntil(() -> a.rdma.state() == CtxState.IDLE, Duration.ofMillis(5 * Math.max(1000,
                    peerDeathBoundMillis())),
                    "context IDLE after peer death", a);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms <= peerDeathBoundMillis(), "in-flight tasks flushed and context IDLE after " + ms
                    + " ms (limit "
                    + peerDeathBoundMillis() + ")");
            java.util.List<Side.Done> after = a.done.subList(before, a.done.size());
            assertTrue(after.size() >= inflight, "every in-flight task completed");
            for (Side.Done d : after) {
                if (d.status() == DocaError.SUCCESS) {
                    continue; // completed by the peer just before it died
                }
                assertTrue(d.status() == DocaError.CONNECTION_RESET || d.status() == DocaError.IO_FAILED, "status "
                        + d.status());
            }
            assertEquals(0, a.rdma.numInflightTasks());
        } finally {
            if (child[0] != null) {
                child[0].close();
            }
        }
    }

    static void signal(io.jdoca.testkit.JavaProcess p, String sig) throws Exception {
        Process k = new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).inheritIO().start();
        assertEquals(0, k.waitFor(), "kill -" + sig);
    }

    /** One send to the echo child and its echo back (the child answers every message it gets). */
    void roundTrip(RdmaConnection c, long ud) {
        int before = a.done.size();
        Side.check(a.rdma.taskReceiveAllocInit(a.buf(1_000_000, 4096, 0), ud).submit());
        Side.check(a.rdma.taskSendAllocInit(c, a.buf(8192, 64, 64), ud + 1).submit());
        Side.progressUntil(() -> a.done.size() >= before + 2, Duration.ofSeconds(30), "echo round trip", a);
        for (Side.Done d : a.done.subList(before, a.done.size())) {
            assertEquals(DocaError.SUCCESS, d.status(), "round trip " + ud + ": " + d);
        }
    }

    /**
     * Regression (issue 12): a peer whose whole process stalls (a GC pause, a starved or stopped
     * JVM) while a send waits in it was declared dead: over shm by the 1 s RNR rule (its head did
     * not move), over tcp by the fixed 3 s silence rule. A stalled peer is not dead: after 4.5 s
     * frozen it is still connected, and the send and its echo complete once it runs again.
     */
    @Test
    void peerPausedWithASendInFlightIsNotDeclaredDead(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        a = new Side(transport());
        io.jdoca.testkit.JavaProcess[] child = new io.jdoca.testkit.JavaProcess[1];
        try {
            RdmaConnection c = connectToChild(a, child, dir, "echo", 0);
            child[0].awaitOutput("RUNNING", Duration.ofMillis(childStartMillis()));
            roundTrip(c, 10);
            signal(child[0], "STOP");
            int before = a.done.size();
            try {
                Side.check(a.rdma.taskReceiveAllocInit(a.buf(1_000_000, 4096, 0), 20).submit());
                Side.check(a.rdma.taskSendAllocInit(c, a.buf(8192, 64, 64), 21).submit());
                // The stimulus is the pause itself: 4.5 s with the peer frozen, this side polling.
                long end = System.nanoTime() + 4_500_000_000L;
                while (System.nanoTime() - end < 0 && a.rdma.state() == CtxState.RUNNING) {
                    if (!a.pe.progress()) {
                        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                    }
                }
                assertEquals(CtxState.RUNNING, a.rdma.state(), "context after a 4.5 s peer pause; completions "
                        + a.done);
                assertEquals(RdmaConnectionState.ESTABLISHED, c.state());
            } finally {
                signal(child[0], "CONT");
            }
            Side.progressUntil(() -> a.done.size() >= before + 2, Duration.ofSeconds(30),
                    "send + echo after the pause", a);
            for (Side.Done d : a.done.subList(before, a.done.size())) {
                assertEquals(DocaError.SUCCESS, d.status(), "after the pause: " + d);
            }
            roundTrip(c, 30);
        } finally {
            if (child[0] != null) {
                child[0].close();
            }
        }
    }

    @Test
    void atomicsAreAtomicUnderContentionFromTwoProcesses(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        a = new Side(transport());
        a.mem.set(ValueLayout.JAVA_LONG, 0, 0);
        io.jdoca.testkit.JavaProcess[] c1 = new io.jdoca.testkit.JavaProcess[1];
        io.jdoca.testkit.JavaProcess[] c2 = new io.jdoca.testkit.JavaProcess[1];
        java.nio.file.Path d1 = java.nio.file.Files.createDirectory(dir.resolve("one"));
        java.nio.file.Path d2 = java.nio.file.Files.createDirectory(dir.resolve("two"));
        int n = 20_000;
        try {
            connectToChild(a, c1, d1, "fetch-add", n);
            connectToChild(a, c2, d2, "fetch-add", n);
            c1[0].awaitOutput("RUNNING", Duration.ofMillis(childStartMillis()));
            c2[0].awaitOutput("RUNNING", Duration.ofMillis(childStartMillis()));
            java.nio.file.Files.writeString(dir.resolve("go"), "go");
            long deadline = System.nanoTime() + 90_000_000_000L + childStartMillis() * 1_000_000L;
            while (!(c1[0].output().contains("DONE") && c2[0].output().contains("DONE"))) {
                assertTrue(System.nanoTime() < deadline, "children did not finish:\n" + c1[0].output() + "\n"
                        + c2[0].output());
                if (!a.pe.progress()) {
                    Thread.sleep(1);
                }
            }
            assertEquals(0, c1[0].awaitExit(Duration.ofSeconds(20)), c1[0].output());
            assertEquals(0, c2[0].awaitExit(Duration.ofSeconds(20)), c2[0].output());
            assertEquals(2L * n, a.mem.get(ValueLayout.JAVA_LONG, 0),
                    "every fetch-add from both processes counted once");
        } finally {
            if (c1[0] != null) {
                c1[0].close();
            }
            if (c2[0] != null) {
                c2[0].close();
            }
        }
    }

    // ------------------------------------------------------------------ zero allocation

    private static long ioThreadsAllocated() {
        com.sun.management.ThreadMXBean bean =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread th : Thread.getAllStackTraces().keySet()) {
            // The tcp transport's agent (jdoca-rdma-tcp-N) and the verbs CQ waker (jdoca-rdma-io-verbs-cq-*).
            if (th.getName().startsWith("jdoca-rdma-io-") || th.getName().startsWith("jdoca-rdma-tcp-")) {
                sum += bean.getThreadAllocatedBytes(th.threadId());
            }
        }
        return sum;
    }

    /** Measures bytes allocated per completed operation with {@code depth} self-re-arming tasks in flight. */
    private double bytesPerOp(Runnable post, long ops) {
        a.count = 0;
        b.count = 0;
        post.run();
        long[] deadline = {System.nanoTime() + allocDeadlineSeconds() * 1_000_000_000L};
        Runnable op = () -> {
            long target = a.count + 1;
            while (a.count < target) {
                if (!(a.pe.progress() | b.pe.progress())) {
                    // Two cores: leave the CPU to the transport threads while waiting.
                    Thread.yield();
                }
                if (System.nanoTime() - deadline[0] > 0) {
                    throw new AssertionError("stalled: count " + a.count + ", errors " + a.errors + "/" + b.errors
                            + ", in flight "
                            + a.rdma.numInflightTasks() + ", state " + a.rdma.state() + " " + b.rdma.state() + ", done "
                                    + a.done);
                }
            }
        };
        io.jdoca.testkit.AllocationMeter.steadyState(allocWarmup(), 1, op);
        long io0 = ioThreadsAllocated();
        io.jdoca.testkit.AllocationMeter.Result r = io.jdoca.testkit.AllocationMeter.steadyState(0, ops, op);
        long io1 = ioThreadsAllocated();
        assertEquals(0, a.errors + b.errors, "errors during the measurement");
        System.out.println(transport() + " PE bytes " + r.bytes() + ", transport threads " + (io1 - io0) + " over "
                + ops + " ops");
        return (double) (r.bytes() + (io1 - io0)) / ops;
    }

    private RdmaConnection allocPair() {
        RdmaConnection c = pair();
        a.rearm = true;
        b.rearm = true;
        return c;
    }

    private void assertNoAllocation(String what, double bytesPerOp) {
        String msg = transport() + " " + what + ": " + bytesPerOp + " bytes/op";
        System.out.println(msg);
        assertTrue(bytesPerOp < 1, msg);
    }

    @Test
    void steadyStateWriteAllocatesNothing() {
        RdmaConnection c = allocPair();
        MemoryMap remote = a.importMap(b.exportMap());
        assertNoAllocation("write 4 KiB", bytesPerOp(() -> {
            for (int i = 0; i < 16; i++) {
                a.rdma.taskWriteAllocInit(c, a.buf(i * 4096L, 4096, 4096), a.remoteBuf(remote, i * 4096L, 4096, 0),
                        i).submit();
            }
        }, allocOps(100_000)));
        a.rdma.taskWriteAllocInit(c, a.buf(0, 65536, 65536), a.remoteBuf(remote, 1 << 20, 65536, 0), 99).submit();
        assertNoAllocation("write 64 KiB", bytesPerOp(() -> {
        }, allocOps(5_000)));
        drain();
    }

    @Test
    void steadyStateReadAllocatesNothing() {
        RdmaConnection c = allocPair();
        MemoryMap remote = a.importMap(b.exportMap());
        assertNoAllocation("read 4 KiB", bytesPerOp(() -> {
            for (int i = 0; i < 16; i++) {
                a.rdma.taskReadAllocInit(c, a.remoteBuf(remote, i * 4096L, 4096, 4096), a.buf(100_000 + i * 4096L,
                        4096, 0), i).submit();
            }
        }, allocOps(100_000)));
        drain();
        assertNoAllocation("read 64 KiB", bytesPerOp(() -> a.rdma.taskReadAllocInit(c, a.remoteBuf(remote, 0, 65536,
                65536),
                a.buf(1 << 20, 65536, 0), 1).submit(), allocOps(5_000)));
    }

    @Test
    void steadyStateAtomicsAllocateNothing() {
        RdmaConnection c = allocPair();
        MemoryMap remote = a.importMap(b.exportMap());
        assertNoAllocation("fetch-add", bytesPerOp(() -> {
            for (int i = 0; i < 8; i++) {
                a.rdma.taskAtomicFetchAddAllocInit(c, a.remoteBuf(remote, 0, 8, 8), a.buf(200_000 + i * 64L, 64, 0), 1,
                        i).submit();
            }
        }, allocOps(100_000)));
        drain();
    }

    @Test
    void steadyStateSendReceiveAllocatesNothing() {
        RdmaConnection c = allocPair();
        assertNoAllocation("send/receive 64 B", bytesPerOp(() -> {
            for (int i = 0; i < 64; i++) {
                b.rdma.taskReceiveAllocInit(b.buf(300_000 + i * 256L, 256, 0), i).submit();
            }
            for (int i = 0; i < 16; i++) {
                a.rdma.taskSendAllocInit(c, a.buf(300_000 + i * 64L, 64, 64), i).submit();
            }
        }, allocOps(100_000)));
        drain();
    }

    /** Stops re-arming and lets the in-flight tasks finish (they are freed by the callbacks). */
    private void drain() {
        a.rearm = false;
        await(() -> a.rdma.numInflightTasks() == 0, "in-flight tasks done");
        // Tasks completed after rearm=false were recorded and freed; start counting afresh.
        a.done.clear();
        a.rearm = true;
    }

    // ------------------------------------------------------------------ CM-style connection management

    /** Where the CM tests listen and dial: loopback for shm/tcp; the RDMA device's address for verbs (rdma_cm). */
    java.net.InetAddress cmAddress() {
        return java.net.InetAddress.getLoopbackAddress();
    }

    /** Both contexts started, a listening with a request callback that rejects; b's connection to it. */
    @Test
    void cmRejectReportsFailureToTheDialer() {
        a = new Side(transport());
        b = new Side(transport());
        java.util.List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        Side.check(a.rdma.setConnectionStateCallbacks((req, ud) -> {
            events.add("a:request");
            assertEquals(DocaError.SUCCESS, a.rdma.connectionReject(req));
        }, (conn, ud) -> events.add("a:established"), (conn, ud) -> events.add("a:failure"),
                (conn, ud) -> events.add("a:disconnect")));
        Side.check(b.rdma.setConnectionStateCallbacks((req, ud) -> events.add("b:request"),
                (conn, ud) -> events.add("b:established"), (conn, ud) -> events.add("b:failure:" + ud),
                (conn, ud) -> events.add("b:disconnect")));
        a.rdma.start();
        b.rdma.start();
        Side.check(a.rdma.startListenToPort(0));
        RdmaConnection c = b.rdma.connectToAddr(new java.net.InetSocketAddress(cmAddress(), a.rdma.listenPort()), 5);
        await(() -> c.state() == RdmaConnectionState.FAILED, "the rejected connection FAILED");
        assertTrue(events.contains("a:request") && events.contains("b:failure:5"), events.toString());
        assertTrue(!events.contains("a:established") && !events.contains("b:established"), events.toString());
        assertTrue(a.rdma.connections().isEmpty(), "a made no connection: " + a.rdma.connections());
    }

    /** A CM connection closed by one side ({@code connectionDisconnect}) is lost at once on the other. */
    @Test
    void cmDisconnectIsSeenByThePeer() {
        a = new Side(transport());
        b = new Side(transport());
        java.util.List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        Side.check(a.rdma.setConnectionStateCallbacks((req, ud) -> a.rdma.connectionAccept(req),
                (conn, ud) -> events.add("a:established"), (conn, ud) -> events.add("a:failure"),
                (conn, ud) -> events.add("a:disconnect")));
        Side.check(b.rdma.setConnectionStateCallbacks((req, ud) -> { }, (conn, ud) -> events.add("b:established"),
                (conn, ud) -> events.add("b:failure"), (conn, ud) -> events.add("b:disconnect")));
        a.rdma.start();
        b.rdma.start();
        Side.check(a.rdma.startListenToPort(0));
        RdmaConnection c = b.rdma.connectToAddr(new java.net.InetSocketAddress(cmAddress(), a.rdma.listenPort()), 1);
        await(() -> c.state() == RdmaConnectionState.ESTABLISHED && a.rdma.state() == CtxState.RUNNING,
                "CM connection established");
        long t0 = System.nanoTime();
        Side.check(b.rdma.connectionDisconnect(c));
        await(() -> events.contains("a:disconnect") && a.rdma.state() == CtxState.IDLE, "a notices the disconnect");
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 5_000, "the peer noticed after " + ms + " ms");
        assertEquals(RdmaConnectionState.DISCONNECTED, c.state());
    }

    @Test
    void cmListenAndConnectToAddress() {
        a = new Side(transport());
        b = new Side(transport());
        java.util.List<String> events = new java.util.ArrayList<>();
        Side.check(a.rdma.setConnectionStateCallbacks((req, ud) -> {
            events.add("a:request");
            assertEquals(DocaError.SUCCESS, a.rdma.connectionAccept(req));
        }, (conn, ud) -> events.add("a:established"), (conn, ud) -> events.add("a:failure"),
                (conn, ud) -> events.add("a:disconnect")));
        Side.check(b.rdma.setConnectionStateCallbacks((req, ud) -> events.add("b:request"),
                (conn, ud) -> events.add("b:established:" + ud), (conn, ud) -> events.add("b:failure"),
                (conn, ud) -> events.add("b:disconnect")));
        a.rdma.start();
        b.rdma.start();
        Side.check(a.rdma.startListenToPort(0));
        int port = a.rdma.listenPort();
        assertTrue(port > 0);
        RdmaConnection c = b.rdma.connectToAddr(new java.net.InetSocketAddress(cmAddress(), port), 77);
        try {
            await(() -> a.rdma.state() == CtxState.RUNNING && b.rdma.state() == CtxState.RUNNING
                    && c.state() == RdmaConnectionState.ESTABLISHED, "CM connection established");
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + ": events " + events + ", a " + a.rdma.state() + " "
                    + a.rdma.connections()
                    + ", b " + b.rdma.state() + " " + b.rdma.connections() + " failure " + c.failure, e);
        }
        assertTrue(events.contains("a:request") && events.contains("a:established")
                && events.contains("b:established:77"),
                events.toString());
        assertEquals(transport(), c.transport());
        a.rdma.taskReceiveAllocInit(a.buf(0, 64, 0), 0).submit();
        b.fill(0, bytes("via CM"));
        b.rdma.taskSendAllocInit(c, b.buf(0, 6, 6), 0).submit();
        await(() -> a.done.size() == 1, "receive over the CM connection");
        assertEquals("via CM", new String(a.read(0, 6), StandardCharsets.UTF_8));
        b.stop(a);
        await(() -> a.rdma.state() == CtxState.IDLE, "a notices");
        assertTrue(events.contains("a:disconnect"), events.toString());
    }

    @Test
    void cmConnectToNobodyReportsFailure() throws Exception {
        b = new Side(transport());
        java.util.List<String> events = new java.util.ArrayList<>();
        Side.check(b.rdma.setConnectionStateCallbacks((req, ud) -> { }, (conn, ud) -> events.add("established"),
                (conn, ud) -> events.add("failure"), (conn, ud) -> { }));
        b.rdma.start();
        int port = io.jdoca.testkit.JavaProcess.freePort();
        RdmaConnection c = b.rdma.connectToAddr(new java.net.InetSocketAddress(cmAddress(), port), 1);
        Side.progressUntil(() -> c.state() == RdmaConnectionState.FAILED, T, "failure", b);
        assertEquals(java.util.List.of("failure"), events);
    }
}
