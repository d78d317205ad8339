package io.jdoca.storage.zerocopy;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.comch.ComchConsumer;
import io.jdoca.comch.ComchProducer;
import io.jdoca.comch.ComchProducerTaskSend;
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
import io.jdoca.core.mem.SharedMemory;
import io.jdoca.core.mem.SharedRegion;
import io.jdoca.storage.common.ComchControlChannel;
import io.jdoca.storage.wire.ControlMessage;
import io.jdoca.storage.wire.ControlMessageType;
import io.jdoca.storage.wire.ControlPayload;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;
import io.jdoca.storage.targetrdma.TargetRdma;
import io.jdoca.testkit.JavaProcess;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A hand-driven initiator sends bad IO requests through the relay: the target's error codes reach
 * the initiator unchanged (DOCA's sample would overwrite them with SUCCESS; see docs/STORAGE.md).
 */
class ZeroCopyResultPropagationTest {
    @Test
    void targetErrorsReachTheInitiator() throws Exception {
        ExecutorService ex = Executors.newCachedThreadPool();
        AtomicBoolean abort = new AtomicBoolean();
        String channel = "zc-" + UUID.randomUUID();
        int port = JavaProcess.freePort();
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        TargetRdma target = new TargetRdma(new TargetRdma.Config("sw0", List.of(0), port, null, 16, 4096, null,
                5_000_000_000L),
                abort);
        CompletableFuture<Integer> t = CompletableFuture.supplyAsync(() -> target.run(new PrintStream(sink, true)), ex);
        ZeroCopyService relay = new ZeroCopyService(new ZeroCopyService.Config("sw0", null, List.of(0), "127.0.0.1:"
                + port,
                channel, 5_000_000_000L), abort);
        CompletableFuture<Integer> z = CompletableFuture.supplyAsync(() -> relay.run(new PrintStream(sink, true)), ex);
        Dev dev = Devices.open("sw0");
        long timeout = 10_000_000_000L;
        boolean ok = false;
        try (ComchControlChannel ch = ComchControlChannel.client(dev, channel, timeout); Arena arena = Arena.ofShared();
                SharedRegion io = SharedMemory.allocate(16 * 4096)) {
            ch.request(ControlMessage.of(ControlMessageType.QUERY_STORAGE_REQUEST, 1, 1), timeout);
            MemoryMap ioMap = MemoryMap.create();
            ioMap.setMemrange(io.segment());
            ioMap.addDev(dev);
            ioMap.setPermissions(AccessFlags.LOCAL_READ_WRITE | AccessFlags.PCI_READ_WRITE | AccessFlags.RDMA_READ
                    | AccessFlags.RDMA_WRITE);
            ioMap.start();
            ch.request(new ControlMessage(ControlMessageType.INIT_STORAGE_REQUEST, 2, 1,
                    new ControlPayload.InitStorage(4, 1, ioMap.exportPci(dev))), timeout);

            MemorySegment msgMem = arena.allocate(64 * 8, 64);
            MemoryMap msgMap = MemoryMap.create();
            msgMap.setMemrange(msgMem);
            msgMap.addDev(dev);
            msgMap.setPermissions(AccessFlags.LOCAL_READ_WRITE);
            msgMap.start();
            BufInventory inv = BufInventory.create(64);
            inv.start();
            ProgressEngine pe = ProgressEngine.create();
            List<long[]> responses = new ArrayList<>();
            IoMessage view = new IoMessage();
            ComchConsumer consumer = ComchConsumer.create(ch.connection(), msgMap);
            consumer.setMaxMsgSize(64);
            consumer.taskPostRecvSetConf((r, ud, cud) -> {
                view.wrap(r.buf().segment(), r.buf().dataOffset());
                responses.add(new long[] {view.userData(), view.typeCode(), view.result()});
                r.buf().decRefcount();
                r.free();
            }, (r, ud, cud) -> {
                r.buf().decRefcount();
                r.free();
            }, 8);
            ComchProducer producer = ComchProducer.create(ch.connection());
            producer.taskSendSetConf((s, ud, cud) -> {
                s.buf().decRefcount();
                s.free();
            }, (s, ud, cud) -> {
                s.buf().decRefcount();
                s.free();
            }, 4);
            pe.connectCtx(consumer);
            pe.connectCtx(producer);
            consumer.start();
            producer.start();
            for (int i = 0; i < 4; i++) {
                consumer.taskPostRecvAllocInit(inv.getByAddr(msgMap, msgMap.baseAddress() + 64L * (4 + i), 64),
                        i).submit();
            }
            assertThat(ch.progressUntil(() -> !ch.remoteConsumerIds().isEmpty(), timeout)).isTrue();
            int relayConsumer = ch.remoteConsumerIds().get(0);
            ch.request(ControlMessage.of(ControlMessageType.START_STORAGE_REQUEST, 3, 1), timeout);

            // 1: storage offset past the end; 2: unknown IO type; 3: a valid read
            long[][] reqs = {{1, IoMessageType.READ.code(), 16 * 4096}, {2, 7, 0}, {3, IoMessageType.READ.code(),
                    4096}};
            for (int i = 0; i < reqs.length; i++) {
                Buf b = inv.getByData(msgMap, msgMap.baseAddress() + 64L * i, 64);
                IoMessage m = new IoMessage().wrap(b.segment(), b.dataOffset());
                m.setRequest(IoMessageType.READ, reqs[i][0], 4096, 0, reqs[i][2]);
                m.typeCode((int) reqs[i][1]);
                ComchProducerTaskSend s = producer.taskSendAllocInit(b, null, 0, relayConsumer, i);
                assertThat(s.submit()).isEqualTo(DocaError.SUCCESS);
            }
            assertThat(pe.progressUntil(() -> responses.size() == 3, IdleStrategy.backoff(), timeout)).isTrue();
            responses.sort((a, b) -> Long.compare(a[0], b[0]));
            assertThat(responses.get(0)).containsExactly(1, IoMessageType.RESULT.code(),
                    DocaError.INVALID_VALUE.code());
            assertThat(responses.get(1)).containsExactly(2, IoMessageType.RESULT.code(),
                    DocaError.INVALID_VALUE.code());
            assertThat(responses.get(2)).containsExactly(3, IoMessageType.RESULT.code(), DocaError.SUCCESS.code());

            // Fuzz: random types, sizes and offsets. Every request gets exactly one response, SUCCESS
            // only when it is a read/write inside both memories, INVALID_VALUE otherwise.
            java.util.Random rnd = new java.util.Random(7);
            long cap = 16 * 4096;
            int[] types = {0, 1, 2, 3, 7, -1};
            long[] sizes = {0, 1, 512, 4096, 65536, 65537, 0xFFFFFFFFL};
            int batches = 60;
            for (int batch = 0; batch < batches; batch++) {
                responses.clear();
                long[] expect = new long[4];
                for (int i = 0; i < 4; i++) {
                    consumer.taskPostRecvAllocInit(inv.getByAddr(msgMap, msgMap.baseAddress() + 64L * (4 + i), 64),
                            i).submit();
                }
                for (int i = 0; i < 4; i++) {
                    int type = types[rnd.nextInt(types.length)];
                    long size = sizes[rnd.nextInt(sizes.length)];
                    long so = rnd.nextBoolean() ? rnd.nextInt(16) * 4096L : rnd.nextLong();
                    long ro = rnd.nextBoolean() ? rnd.nextInt(16) * 4096L : rnd.nextLong() >>> rnd.nextInt(64);
                    boolean valid = (type == 1 || type == 2) && size > 0 && so >= 0 && so <= cap - size && ro >= 0
                            && ro <= cap - size;
                    expect[i] = valid ? DocaError.SUCCESS.code() : DocaError.INVALID_VALUE.code();
                    Buf b = inv.getByData(msgMap, msgMap.baseAddress() + 64L * i, 64);
                    IoMessage m = new IoMessage().wrap(b.segment(), b.dataOffset());
                    m.setRequest(IoMessageType.READ, 100 + i, (int) size, ro, so);
                    m.typeCode(type);
                    assertThat(producer.taskSendAllocInit(b, null, 0, relayConsumer,
                            i).submit()).isEqualTo(DocaError.SUCCESS);
                }
                assertThat(pe.progressUntil(() -> responses.size() == 4, IdleStrategy.backoff(), timeout))
                        .as("batch %d answered", batch).isTrue();
                for (long[] r : responses) {
                    int i = (int) (r[0] - 100);
                    assertThat(r[2]).as("batch %d request %d", batch, i).isEqualTo(expect[i]);
                }
            }

            ch.request(ControlMessage.of(ControlMessageType.STOP_STORAGE_REQUEST, 4, 1), timeout);
            ch.request(ControlMessage.of(ControlMessageType.SHUTDOWN_REQUEST, 5, 1), timeout);
            producer.stop();
            consumer.stop();
            pe.progressUntil(() -> producer.state() == CtxState.IDLE && consumer.state() == CtxState.IDLE,
                    IdleStrategy.backoff(), timeout);
            pe.close();
            ioMap.close();
            ok = true;
        } finally {
            if (!ok) {
                abort.set(true);
            }
            int zr = z.get(30, TimeUnit.SECONDS);
            int tr = t.get(30, TimeUnit.SECONDS);
            ex.shutdownNow();
            if (ok) {
                assertThat(zr).isZero();
                assertThat(tr).isZero();
            }
        }
    }
}
