package io.jdoca.comch;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.AccessFlags;
import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import io.jdoca.core.mem.Buf;
import io.jdoca.core.mem.BufInventory;
import io.jdoca.core.mem.MemoryMap;
import io.jdoca.testkit.AllocationMeter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Server and client in one process, progressed from the test thread (socket-level, no child JVM). */
class ComchTest {
    private final Dev dev = Devices.open("sw0");
    private final String name = "test-" + UUID.randomUUID();
    private ProgressEngine spe;
    private ProgressEngine cpe;
    private ComchServer server;
    private ComchClient client;
    private final List<String> serverMsgs = new ArrayList<>();
    private final List<String> clientMsgs = new ArrayList<>();
    private final List<Integer> serverNewConsumers = new ArrayList<>();
    private final List<Integer> serverExpiredConsumers = new ArrayList<>();
    private final List<Boolean> serverConnEvents = new ArrayList<>();

    @BeforeEach
    void setUp() {
        spe = ProgressEngine.create();
        cpe = ProgressEngine.create();
        server = ComchServer.create(dev, null, name);
        server.taskSendSetConf((t, u, c) -> t.free(), (t, u, c) -> t.free(), 8);
        server.eventMsgRecvRegister((conn, msg, len) -> serverMsgs.add(new String(msg, 0, len,
                StandardCharsets.UTF_8)));
        server.eventConsumerRegister((conn, id) -> serverNewConsumers.add(id), (conn, id) ->
                serverExpiredConsumers.add(id));
        server.eventConnectionStatusChangedRegister((conn, up) -> serverConnEvents.add(up));
        spe.connectCtx(server);
        assertThat(server.start()).isEqualTo(DocaError.SUCCESS);
        client = ComchClient.create(dev, name);
        client.taskSendSetConf((t, u, c) -> t.free(), (t, u, c) -> t.free(), 8);
        client.eventMsgRecvRegister((conn, msg, len) -> clientMsgs.add(new String(msg, 0, len,
                StandardCharsets.UTF_8)));
        cpe.connectCtx(client);
        assertThat(client.start()).isEqualTo(DocaError.IN_PROGRESS);
        progressUntil(() -> client.state() == CtxState.RUNNING && server.connection() != null);
    }

    @AfterEach
    void tearDown() {
        if (client.state() != CtxState.IDLE) {
            client.stop();
        }
        progressUntil(() -> client.state() == CtxState.IDLE);
        if (server.state() != CtxState.IDLE) {
            server.stop();
        }
        progressUntil(() -> server.state() == CtxState.IDLE);
        spe.close();
        cpe.close();
    }

    void progressUntil(BooleanSupplier cond) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        IdleStrategy idle = IdleStrategy.backoff();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached; server " + server + ", client " + client);
            }
            boolean w = spe.progress() | cpe.progress();
            idle.idle(w ? 1 : 0);
        }
    }

    @Test
    void controlMessagesBothWays() {
        byte[] hello = "hello server".getBytes(StandardCharsets.UTF_8);
        ComchTaskSend t = client.taskSendAllocInit(client.connection(), hello, hello.length);
        assertThat(t.submit()).isEqualTo(DocaError.SUCCESS);
        progressUntil(() -> serverMsgs.size() == 1);
        assertThat(serverMsgs).containsExactly("hello server");

        byte[] reply = "hello client".getBytes(StandardCharsets.UTF_8);
        assertThat(server.taskSendAllocInit(server.connection(), reply,
                reply.length).submit()).isEqualTo(DocaError.SUCCESS);
        progressUntil(() -> clientMsgs.size() == 1);
        assertThat(clientMsgs).containsExactly("hello client");
        assertThat(serverConnEvents).containsExactly(true);
    }

    @Test
    void tooLongMessageIsRefusedAtAlloc() {
        byte[] big = new byte[Comch.MAX_MSG_SIZE + 1];
        assertThat(client.taskSendAllocInit(client.connection(), big, big.length)).isNull();
        assertThat(client.lastError()).isEqualTo(DocaError.INVALID_VALUE);
    }

    @Test
    void secondClientIsRejected() {
        ProgressEngine pe2 = ProgressEngine.create();
        ComchClient second = ComchClient.create(dev, name);
        pe2.connectCtx(second);
        assertThat(second.start()).isEqualTo(DocaError.IN_PROGRESS);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (second.state() != CtxState.IDLE && System.nanoTime() < deadline) {
            spe.progress();
            cpe.progress();
            pe2.progress();
            Thread.onSpinWait();
        }
        assertThat(second.state()).isEqualTo(CtxState.IDLE);
        assertThat(second.rejectReason()).contains("already has a client");
        assertThat(server.rejectedClients()).isEqualTo(1);
        assertThat(client.state()).isEqualTo(CtxState.RUNNING);
        pe2.close();
    }

    @Test
    void secondServerWithSameNameIsInUse() {
        ProgressEngine pe2 = ProgressEngine.create();
        ComchServer other = ComchServer.create(dev, null, name);
        pe2.connectCtx(other);
        assertThat(other.start()).isEqualTo(DocaError.IN_USE);
        assertThat(other.state()).isEqualTo(CtxState.IDLE);
        pe2.close();
    }

    @Test
    void clientStopIsSeenAsDisconnect() {
        client.stop();
        progressUntil(() -> client.state() == CtxState.IDLE && server.connection() == null);
        assertThat(serverConnEvents).containsExactly(true, false);
    }

    /** Fast path: client-side consumer, server-side producer. */
    @Test
    void producerToConsumerFastPathIsAllocationFree() {
        try (Arena arena = Arena.ofShared()) {
            int slots = 16;
            MemorySegment rxMem = arena.allocate(64L * slots, 64);
            MemorySegment txMem = arena.allocate(64L * slots, 64);
            MemoryMap rxMap = map(rxMem);
            MemoryMap txMap = map(txMem);
            BufInventory inv = BufInventory.create(2 * slots);
            inv.start();

            ComchConsumer consumer = ComchConsumer.create(client.connection(), rxMap);
            consumer.setMaxMsgSize(64);
            consumer.setRingSlots(slots);
            long[] received = {0};
            long[] sumSeen = {0};
            consumer.taskPostRecvSetConf((t, ud, cud) -> {
                Buf b = t.buf();
                sumSeen[0] += b.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, b.dataOffset());
                received[0]++;
                b.resetDataLen();
                t.submit();
            }, (t, ud, cud) -> t.free(), slots);
            cpe.connectCtx(consumer);
            assertThat(consumer.start()).isEqualTo(DocaError.SUCCESS);
            progressUntil(() -> serverNewConsumers.contains(consumer.id()));
            for (int i = 0; i < slots; i++) {
                Buf b = inv.getByAddr(rxMap, rxMap.baseAddress() + 64L * i, 64);
                assertThat(consumer.taskPostRecvAllocInit(b, i).submit()).isEqualTo(DocaError.SUCCESS);
            }

            ComchProducer producer = ComchProducer.create(server.connection());
            long[] sent = {0};
            long[] errors = {0};
            producer.taskSendSetConf((t, ud, cud) -> sent[0]++, (t, ud, cud) -> errors[0]++, slots);
            spe.connectCtx(producer);
            assertThat(producer.start()).isEqualTo(DocaError.SUCCESS);
            ComchProducerTaskSend[] sends = new ComchProducerTaskSend[slots];
            for (int i = 0; i < slots; i++) {
                Buf b = inv.getByData(txMap, txMap.baseAddress() + 64L * i, 64);
                sends[i] = producer.taskSendAllocInit(b, null, 0, consumer.id(), i);
            }
            long[] value = {0};
            long[] expectedSum = {0};
            int[] next = {0};
            Runnable op = () -> {
                // one message per op; a send task is reused once its previous send completed
                ComchProducerTaskSend s = sends[next[0]];
                next[0] = (next[0] + 1) & (slots - 1);
                while (s.state() == io.jdoca.core.exec.TaskState.SUBMITTED) {
                    spe.progress();
                    cpe.progress();
                }
                value[0]++;
                expectedSum[0] += value[0];
                s.buf().segment().set(ValueLayout.JAVA_LONG_UNALIGNED, s.buf().dataOffset(), value[0]);
                s.submit();
                spe.progress();
                cpe.progress();
            };
            AllocationMeter.Result r = AllocationMeter.steadyState(20_000, 200_000, op);
            progressUntil(() -> received[0] == value[0]);
            assertThat(errors[0]).isZero();
            assertThat(sumSeen[0]).isEqualTo(expectedSum[0]);
            assertThat(r.bytesPerOp()).as("bytes allocated per message").isLessThan(1.0);

            // expiry: the server sees it and a further send fails with NOT_CONNECTED
            consumer.stop();
            progressUntil(() -> serverExpiredConsumers.contains(consumer.id()) && consumer.numAllocatedTasks() == 0
                    || consumer.state() == CtxState.STOPPING && consumer.numInflightTasks() == 0
                            && serverExpiredConsumers.contains(consumer.id()));
            ComchProducerTaskSend s = sends[0];
            progressUntil(() -> s.state() != io.jdoca.core.exec.TaskState.SUBMITTED);
            s.submit();
            progressUntil(() -> errors[0] == 1);
            assertThat(s.status()).isEqualTo(DocaError.NOT_CONNECTED);
            for (ComchProducerTaskSend x : sends) {
                progressUntil(() -> x.state() != io.jdoca.core.exec.TaskState.SUBMITTED);
                x.buf().decRefcount();
                x.free();
            }
            producer.stop();
            progressUntil(() -> producer.state() == CtxState.IDLE && consumer.state() == CtxState.IDLE);
        }
    }

    @Test
    void secondProducerToSameConsumerGetsInUse() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment mem = arena.allocate(4096, 64);
            MemoryMap m = map(mem);
            BufInventory inv = BufInventory.create(4);
            inv.start();
            ComchConsumer consumer = ComchConsumer.create(client.connection(), m);
            consumer.taskPostRecvSetConf((t, u, c) -> { }, (t, u, c) -> t.free(), 2);
            cpe.connectCtx(consumer);
            consumer.start();
            progressUntil(() -> serverNewConsumers.contains(consumer.id()));
            List<DocaError> results = new ArrayList<>();
            ComchProducer p1 = ComchProducer.create(server.connection());
            ComchProducer p2 = ComchProducer.create(server.connection());
            for (ComchProducer p : List.of(p1, p2)) {
                p.taskSendSetConf((t, u, c) -> {
                    results.add(t.status());
                    t.free();
                }, (t, u, c) -> {
                    results.add(t.status());
                    t.free();
                }, 1);
                spe.connectCtx(p);
                p.start();
            }
            Buf b = inv.getByData(m, m.baseAddress(), 64);
            p1.taskSendAllocInit(b, null, 0, consumer.id(), 0).submit();
            progressUntil(() -> results.size() == 1);
            p2.taskSendAllocInit(b, null, 0, consumer.id(), 0).submit();
            progressUntil(() -> results.size() == 2);
            assertThat(results).containsExactly(DocaError.SUCCESS, DocaError.IN_USE);
            p1.stop();
            p2.stop();
            consumer.stop();
            progressUntil(() -> p1.state() == CtxState.IDLE && p2.state() == CtxState.IDLE);
        }
    }

    private MemoryMap map(MemorySegment seg) {
        MemoryMap m = MemoryMap.create();
        m.setMemrange(seg);
        m.addDev(dev);
        m.setPermissions(AccessFlags.LOCAL_READ_WRITE);
        m.start();
        return m;
    }
}
