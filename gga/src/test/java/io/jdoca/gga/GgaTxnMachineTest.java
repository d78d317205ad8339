package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.storage.wire.IoMessage;
import io.jdoca.storage.wire.IoMessageType;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The GGA transaction machine driven through its events with a recording stub port: no sockets,
 * no processes, no DOCA contexts (issue 17 acceptance 3).
 */
class GgaTxnMachineTest {
    private static final int HALF = 64;
    private static final int BLOCK = 2 * HALF;
    private static final long TARGET_CAPACITY = 64L * HALF;
    private static final long HOST_LEN = 16L * BLOCK;
    private static final int D1 = TargetRole.DATA_1;
    private static final int D2 = TargetRole.DATA_2;
    private static final int DP = TargetRole.DATA_P;

    private final GgaLayout layout = new GgaLayout(HALF);
    private final Arena arena = Arena.ofConfined();
    private final IoMessage host = new IoMessage().wrap(arena.allocate(IoMessage.SIZE), 0);
    private final StubPort port = new StubPort();
    private final DirtyStripes[] dirty = {
        new DirtyStripes(TARGET_CAPACITY / HALF), new DirtyStripes(TARGET_CAPACITY / HALF),
        new DirtyStripes(TARGET_CAPACITY / HALF)};

    @AfterEach
    void close() {
        arena.close();
    }

    /** Records every port call as one line; answers SUCCESS unless told otherwise. */
    static final class StubPort implements GgaTxnPort {
        final List<String> calls = new ArrayList<>();
        DocaError sendResult = DocaError.SUCCESS;
        int[] replies = new int[8];

        @Override
        public DocaError sendRequest(int txn, int role, IoMessageType type, int size, long requesterOffset,
                long storageOffset) {
            calls.add("send " + txn + " " + TargetRole.name(role) + " " + type + " " + size + " " + requesterOffset
                    + " " + storageOffset);
            return sendResult;
        }

        @Override
        public DocaError fetchFromInitiator(int txn, long hostOffset) {
            calls.add("dma " + txn + " " + hostOffset);
            return DocaError.SUCCESS;
        }

        @Override
        public int packBlock(int txn) {
            calls.add("pack " + txn);
            return 40;
        }

        @Override
        public DocaError ecCreate(int txn) {
            calls.add("ecCreate " + txn);
            return DocaError.SUCCESS;
        }

        @Override
        public DocaError ecRecover(int txn, RecoveryKind plan) {
            calls.add("ecRecover " + txn + " " + plan);
            return DocaError.SUCCESS;
        }

        @Override
        public DocaError decompress(int txn, long hostOffset) {
            calls.add("decompress " + txn + " " + hostOffset);
            return DocaError.SUCCESS;
        }

        @Override
        public DocaError reply(int txn, int result) {
            calls.add("reply " + txn + " " + result);
            replies[txn] = result;
            return DocaError.SUCCESS;
        }

        @Override
        public void repostHostReceive(int txn) {
            calls.add("repost " + txn);
        }

        @Override
        public void reportTargetLost(int role) {
            calls.add("lost " + TargetRole.name(role));
        }

        List<String> take() {
            List<String> c = new ArrayList<>(calls);
            calls.clear();
            return c;
        }
    }

    private GgaTxnMachine machine(int recoverEveryN) {
        GgaTxnMachine m = new GgaTxnMachine(0, layout, 2, 2 * TARGET_CAPACITY, HOST_LEN, 1000, recoverEveryN, dirty,
                port);
        assertThat(m.startDataPath()).isEqualTo(DocaError.SUCCESS);
        return m;
    }

    private IoMessage request(IoMessageType type, int blocks, long storageOffset, long requesterOffset) {
        return host.setRequest(type, 77, blocks * BLOCK, requesterOffset, storageOffset);
    }

    /** Sends and answers every request of a storage step (each target answers 0). */
    private static void complete(GgaTxnMachine m, int txn, int... roles) {
        for (int r : roles) {
            assertThat(m.onRequestSent(txn, r, DocaError.SUCCESS)).isEqualTo(DocaError.SUCCESS);
        }
        for (int r : roles) {
            assertThat(m.onResponse(txn, r, 0)).isEqualTo(DocaError.SUCCESS);
        }
    }

    private static long[] counters(GgaTxnMachine m) {
        long[] c = new long[10];
        m.readCounters(c);
        return c;
    }

    @Test
    void normalReadFetchesBothDataHalvesThenDecompresses() {
        GgaTxnMachine m = machine(0);
        long chunk = m.chunkOffset(1);
        assertThat(m.onHostRequest(1, request(IoMessageType.READ, 1, 2 * BLOCK, 3 * BLOCK), IoMessage.SIZE))
                .isEqualTo(DocaError.SUCCESS);
        // storage offset 2 blocks = target offset 2 halves, in every target; halves land at chunk+0 and chunk+b
        assertThat(port.take()).containsExactly(
                "send 1 data_1 READ " + HALF + " " + chunk + " " + 2 * HALF,
                "send 1 data_2 READ " + HALF + " " + (chunk + HALF) + " " + 2 * HALF);
        assertThat(m.state(1)).isEqualTo(TxnState.FETCH_HALVES);
        complete(m, 1, D1, D2);
        assertThat(port.take()).containsExactly("decompress 1 " + 3 * BLOCK);
        assertThat(m.state(1)).isEqualTo(TxnState.DECOMPRESS);
        assertThat(m.onDecompressed(1, true)).isEqualTo(DocaError.SUCCESS);
        assertThat(port.take()).containsExactly("reply 1 0");
        assertThat(m.inflight()).isEqualTo(1);
        assertThat(m.onReplySent(1, DocaError.SUCCESS)).isEqualTo(DocaError.SUCCESS);
        assertThat(port.take()).containsExactly("repost 1");
        assertThat(m.state(1)).isEqualTo(TxnState.IDLE);
        assertThat(m.inflight()).isZero();
        long[] c = counters(m);
        assertThat(c[0]).as("ops").isEqualTo(1);
        assertThat(c[1]).as("reads").isEqualTo(1);
        assertThat(c[7]).as("recoveries").isZero();
    }

    @Test
    void recoveryReadWhenData1IsMissingRebuildsFromData2AndParity() {
        GgaTxnMachine m = machine(0);
        m.targetLost(D1);
        assertThat(port.take()).containsExactly("lost data_1");
        long chunk = m.chunkOffset(0);
        m.onHostRequest(0, request(IoMessageType.READ, 2, 0, 0), IoMessage.SIZE);
        assertThat(port.take()).containsExactly(
                "send 0 data_2 READ " + HALF + " " + (chunk + HALF) + " 0",
                "send 0 data_p READ " + HALF + " " + (chunk + BLOCK) + " 0");
        complete(m, 0, D2, DP);
        assertThat(port.take()).containsExactly("ecRecover 0 RECOVER_A");
        assertThat(m.state(0)).isEqualTo(TxnState.RECOVER);
        m.onEcRecovered(0, DocaError.SUCCESS);
        assertThat(port.take()).containsExactly("decompress 0 0");
        m.onDecompressed(0, true);
        // second block: recovered again, from the next stripe
        assertThat(port.take()).containsExactly(
                "send 0 data_2 READ " + HALF + " " + (chunk + HALF) + " " + HALF,
                "send 0 data_p READ " + HALF + " " + (chunk + BLOCK) + " " + HALF);
        complete(m, 0, D2, DP);
        m.onEcRecovered(0, DocaError.SUCCESS);
        m.onDecompressed(0, true);
        assertThat(port.take()).containsExactly("ecRecover 0 RECOVER_A", "decompress 0 " + BLOCK, "reply 0 0");
        m.onReplySent(0, DocaError.SUCCESS);
        long[] c = counters(m);
        assertThat(c[7]).as("recoveries").isEqualTo(2);
        assertThat(c[8]).as("degraded reads").isEqualTo(2);
        assertThat(c[3]).as("failed").isZero();
    }

    @Test
    void scheduledRecoveryReadsAlternateRecoverAAndB() {
        GgaTxnMachine m = machine(1);
        m.onHostRequest(0, request(IoMessageType.READ, 1, 0, 0), IoMessage.SIZE);
        assertThat(port.take()).extracting(s -> s.split(" ")[2]).containsExactly("data_2", "data_p");
        complete(m, 0, D2, DP);
        assertThat(port.take()).containsExactly("ecRecover 0 RECOVER_A");
        m.onEcRecovered(0, DocaError.SUCCESS);
        m.onDecompressed(0, true);
        m.onReplySent(0, DocaError.SUCCESS);
        port.take();
        m.onHostRequest(0, request(IoMessageType.READ, 1, 0, 0), IoMessage.SIZE);
        assertThat(port.take()).extracting(s -> s.split(" ")[2]).containsExactly("data_1", "data_p");
        complete(m, 0, D1, DP);
        assertThat(port.take()).containsExactly("ecRecover 0 RECOVER_B");
    }

    @Test
    void writeStoresAllThreeHalvesAndMarksNothingDirty() {
        GgaTxnMachine m = machine(0);
        long chunk = m.chunkOffset(0);
        m.onHostRequest(0, request(IoMessageType.WRITE, 1, 4 * BLOCK, BLOCK), IoMessage.SIZE);
        assertThat(port.take()).containsExactly("dma 0 " + BLOCK);
        assertThat(m.onFetchedFromInitiator(0, DocaError.SUCCESS)).isEqualTo(DocaError.SUCCESS);
        assertThat(port.take()).containsExactly("pack 0", "ecCreate 0");
        m.onEcCreated(0, DocaError.SUCCESS);
        assertThat(port.take()).containsExactly(
                "send 0 data_1 WRITE " + HALF + " " + chunk + " " + 4 * HALF,
                "send 0 data_2 WRITE " + HALF + " " + (chunk + HALF) + " " + 4 * HALF,
                "send 0 data_p WRITE " + HALF + " " + (chunk + BLOCK) + " " + 4 * HALF);
        complete(m, 0, D1, D2, DP);
        assertThat(port.take()).containsExactly("reply 0 0");
        m.onReplySent(0, DocaError.SUCCESS);
        assertThat(counters(m)[2]).as("writes").isEqualTo(1);
        for (DirtyStripes d : dirty) {
            assertThat(d.count()).isZero();
        }
    }

    @Test
    void writeWithParityDownLandsOnSurvivorsAndMarksTheStripeDirty() {
        GgaTxnMachine m = machine(0);
        m.targetLost(DP);
        port.take();
        m.onHostRequest(0, request(IoMessageType.WRITE, 1, 4 * BLOCK, 0), IoMessage.SIZE);
        m.onFetchedFromInitiator(0, DocaError.SUCCESS);
        m.onEcCreated(0, DocaError.SUCCESS);
        assertThat(port.take()).filteredOn(s -> s.startsWith("send")).extracting(s -> s.split(" ")[2])
                .containsExactly("data_1", "data_2");
        assertThat(dirty[DP].isDirty(4)).isTrue();
        assertThat(dirty[DP].count()).isEqualTo(1);
        complete(m, 0, D1, D2);
        assertThat(port.take()).containsExactly("reply 0 0");
    }

    @Test
    void writeWithTwoTargetsDownIsRefused() {
        GgaTxnMachine m = machine(0);
        m.targetLost(D1);
        m.targetLost(D2);
        port.take();
        m.onHostRequest(0, request(IoMessageType.WRITE, 1, 0, 0), IoMessage.SIZE);
        assertThat(port.take()).containsExactly("reply 0 " + DegradedPolicy.REFUSED.code());
        assertThat(counters(m)[4]).as("refused writes").isEqualTo(1);
    }

    @Test
    void targetLostMidReadRefetchesFromTheSurvivorsByRecovery() {
        GgaTxnMachine m = machine(0);
        m.onHostRequest(0, request(IoMessageType.READ, 1, 0, 0), IoMessage.SIZE);
        port.take();
        m.onRequestSent(0, D1, DocaError.SUCCESS);
        m.onRequestSent(0, D2, DocaError.SUCCESS);
        m.onResponse(0, D1, 0);
        // data_2 dies before it answers: the block is fetched again from data_1 and parity
        m.targetLost(D2);
        assertThat(port.take()).extracting(s -> s.startsWith("send") ? s.split(" ")[2] : s)
                .containsExactly("lost data_2", "data_1", "data_p");
        assertThat(m.state(0)).isEqualTo(TxnState.FETCH_HALVES);
        // the dead target's late answer is dropped
        assertThat(m.onResponse(0, D2, 0)).isEqualTo(DocaError.SUCCESS);
        complete(m, 0, D1, DP);
        assertThat(port.take()).containsExactly("ecRecover 0 RECOVER_B");
        m.onEcRecovered(0, DocaError.SUCCESS);
        m.onDecompressed(0, true);
        assertThat(port.take()).containsExactly("decompress 0 0", "reply 0 0");
        assertThat(counters(m)[9]).as("refetches").isEqualTo(1);
    }

    @Test
    void targetLossMidWriteLogsTheLostHalfDirtyWhileASendFailureFails() {
        GgaTxnMachine m = machine(0);
        m.onHostRequest(0, request(IoMessageType.WRITE, 1, 2 * BLOCK, 0), IoMessage.SIZE);
        m.onFetchedFromInitiator(0, DocaError.SUCCESS);
        m.onEcCreated(0, DocaError.SUCCESS);
        port.take();
        m.onRequestSent(0, D1, DocaError.SUCCESS);
        m.onRequestSent(0, D2, DocaError.SUCCESS);
        m.onResponse(0, D1, 0);
        m.onResponse(0, D2, 0);
        // the parity target's send fails while it is still up: an IO error, not a dirty stripe
        m.onRequestSent(0, DP, DocaError.CONNECTION_ABORTED);
        assertThat(port.take()).containsExactly("reply 0 " + DocaError.IO_FAILED.code());
        assertThat(dirty[DP].count()).isZero();

        // the same with the target declared lost under the request: survivors hold the stripe, reply OK
        m.onReplySent(0, DocaError.SUCCESS);
        m.onHostRequest(0, request(IoMessageType.WRITE, 1, 2 * BLOCK, 0), IoMessage.SIZE);
        m.onFetchedFromInitiator(0, DocaError.SUCCESS);
        m.onEcCreated(0, DocaError.SUCCESS);
        port.take();
        complete(m, 0, D1, D2);
        m.targetLost(DP);
        assertThat(port.take()).containsExactly("lost data_p", "reply 0 0");
        assertThat(dirty[DP].isDirty(2)).isTrue();
    }

    @Test
    void readWithTwoTargetsLostFailsCleanly() {
        GgaTxnMachine m = machine(0);
        m.onHostRequest(0, request(IoMessageType.READ, 1, 0, 0), IoMessage.SIZE);
        port.take();
        m.targetLost(D1);
        m.targetLost(D2);
        assertThat(port.take()).contains("reply 0 " + DegradedPolicy.REFUSED.code());
        assertThat(m.state(0)).isEqualTo(TxnState.RESPOND);
        m.onReplySent(0, DocaError.SUCCESS);
        assertThat(m.state(0)).isEqualTo(TxnState.IDLE);
        assertThat(m.inflight()).isZero();
        assertThat(counters(m)[3]).as("failed").isEqualTo(1);
    }

    @Test
    void resyncRebuildsEveryDirtyStripeOfTheRejoinedTarget() {
        GgaTxnMachine m = new GgaTxnMachine(0, layout, 1, 2 * TARGET_CAPACITY, HOST_LEN, 0, 0, dirty, port);
        dirty[D1].mark(3);
        assertThat(m.startResync(D1)).isEqualTo(DocaError.SUCCESS);
        assertThat(m.resyncActive()).isEqualTo(1);
        assertThat(port.take()).extracting(s -> s.split(" ")[2]).containsExactly("data_2", "data_p");
        complete(m, 0, D2, DP);
        assertThat(port.take()).containsExactly("ecRecover 0 RECOVER_A");
        m.onEcRecovered(0, DocaError.SUCCESS);
        assertThat(port.take()).containsExactly("send 0 data_1 WRITE " + HALF + " 0 " + 3 * HALF);
        complete(m, 0, D1);
        assertThat(m.resyncActive()).isZero();
        assertThat(m.resyncResult()).containsExactly(1, 0);
        assertThat(dirty[D1].count()).isZero();
    }

    /**
     * Issue 29 item 6: a target that comes back mid-session. The data path pauses (a request arriving
     * meanwhile waits PARKED, nothing goes out for it), the target takes writes again, the idle
     * transaction rebuilds its dirty stripe, and on resume the parked request is served with the
     * target in service (a plain read of both data halves, no recovery).
     */
    @Test
    void aTargetBackMidSessionIsResyncedWhileTheDataPathIsPaused() {
        GgaTxnMachine m = machine(0);
        m.targetLost(D1);
        port.take();
        m.onHostRequest(0, request(IoMessageType.WRITE, 1, 5 * BLOCK, 0), IoMessage.SIZE);
        m.onFetchedFromInitiator(0, DocaError.SUCCESS);
        m.onEcCreated(0, DocaError.SUCCESS);
        complete(m, 0, D2, DP);
        m.onReplySent(0, DocaError.SUCCESS);
        port.take();
        assertThat(dirty[D1].isDirty(5)).isTrue();
        assertThat(m.canStartResync(D1)).as("not while the data path runs").isFalse();

        m.pauseDataPath();
        m.onHostRequest(0, request(IoMessageType.READ, 1, 5 * BLOCK, 0), IoMessage.SIZE);
        assertThat(m.state(0)).isEqualTo(TxnState.PARKED);
        assertThat(port.take()).as("a parked request sends nothing").isEmpty();
        assertThat(m.inflight()).isZero();
        m.targetBack(D1);
        assertThat(m.canStartResync(D1)).isTrue();
        assertThat(m.startResync(D1)).isEqualTo(DocaError.SUCCESS);
        assertThat(port.take()).extracting(s -> s.split(" ")[1] + " " + s.split(" ")[2])
                .as("the idle transaction fetches the survivors' halves").containsExactly("1 data_2", "1 data_p");
        complete(m, 1, D2, DP);
        assertThat(port.take()).containsExactly("ecRecover 1 RECOVER_A");
        m.onEcRecovered(1, DocaError.SUCCESS);
        assertThat(port.take()).extracting(s -> s.split(" ")[2] + " "
                + s.split(" ")[3]).containsExactly("data_1 WRITE");
        complete(m, 1, D1);
        assertThat(m.resyncActive()).isZero();
        assertThat(dirty[D1].count()).isZero();

        m.resumeDataPath();
        assertThat(m.unpark(0)).isTrue();
        assertThat(m.unpark(1)).as("nothing waited in slot 1").isFalse();
        m.onHostRequest(0, request(IoMessageType.READ, 1, 5 * BLOCK, 0), IoMessage.SIZE);
        assertThat(port.take()).extracting(s -> s.split(" ")[2]).containsExactly("data_1", "data_2");
    }

    @Test
    void illegalEventsAreRejectedWithBadState() {
        GgaTxnMachine m = machine(0);
        assertThat(m.onDecompressed(0, true)).isEqualTo(DocaError.BAD_STATE);
        assertThat(m.onEcCreated(0, DocaError.SUCCESS)).isEqualTo(DocaError.BAD_STATE);
        assertThat(m.onEcRecovered(0, DocaError.SUCCESS)).isEqualTo(DocaError.BAD_STATE);
        assertThat(m.onFetchedFromInitiator(0, DocaError.SUCCESS)).isEqualTo(DocaError.BAD_STATE);
        assertThat(m.onReplySent(0, DocaError.SUCCESS)).isEqualTo(DocaError.BAD_STATE);
        m.onHostRequest(0, request(IoMessageType.READ, 1, 0, 0), IoMessage.SIZE);
        assertThat(m.onHostRequest(0, request(IoMessageType.READ, 1, 0, 0), IoMessage.SIZE))
                .as("a second request on a busy transaction").isEqualTo(DocaError.BAD_STATE);
        assertThat(m.startResync(D1)).as("resync with the data path open").isEqualTo(DocaError.BAD_STATE);
        assertThat(m.state(0)).isEqualTo(TxnState.FETCH_HALVES);
        assertThat(m.state(1)).isEqualTo(TxnState.IDLE);
        assertThat(port.take()).hasSize(2); // only the first request's two sends: nothing else moved
        assertThat(m.inflight()).isEqualTo(1);
        assertThat(counters(m)[6]).as("illegal transitions").isEqualTo(6);
    }

    @Test
    void badRequestIsAnsweredInvalidValue() {
        GgaTxnMachine m = machine(0);
        m.onHostRequest(0, host.setRequest(IoMessageType.READ, 1, BLOCK + 1, 0, 0), IoMessage.SIZE);
        assertThat(port.take()).containsExactly("reply 0 " + DocaError.INVALID_VALUE.code());
    }
}
