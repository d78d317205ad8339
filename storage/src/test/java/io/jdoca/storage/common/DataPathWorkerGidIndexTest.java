package io.jdoca.storage.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.Ctx;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.mem.Buf;
import io.jdoca.rdma.Rdma;
import io.jdoca.rdma.RdmaTaskReceive;
import io.jdoca.rdma.RdmaTaskSend;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 31 item 5: the storage apps' {@code -g/--gid-index} reaches every RDMA context their workers make
 * ({@link DataPathWorker#createRdmaPair}, used by the target and zero-copy workers; gga-offload's contexts
 * go through {@link DataPathWorker#createRdma} too), and its checks are one line naming the flag. On the
 * software device sw0 (no RDMA device on this host): the index is set on the contexts, which start (the
 * software transports ignore it). That a verbs port refuses an index it lacks is the rdma module's
 * {@code VerbsConformanceTest.theGidIndexIsPerContext} (Soft-RoCE guest).
 */
class DataPathWorkerGidIndexTest {
    /** A data-path worker that has only the RDMA pair the target and zero-copy workers make. */
    static final class PairWorker extends DataPathWorker {
        PairWorker(Dev dev, int gidIndex) {
            super("gid-test-worker", 0, dev, 4, InetAddress.getLoopbackAddress(), gidIndex, true);
            create(() -> {
                createRdmaPair(PairWorker::ignore, PairWorker::ignore, PairWorker::ignoreSend,
                        PairWorker::ignoreSend);
                startRdmaPair();
            });
        }

        private static void ignore(RdmaTaskReceive t, long userData, long ctxData) {
        }

        private static void ignoreSend(RdmaTaskSend t, long userData, long ctxData) {
        }

        /** Control path: {ctrl, data}'s GID index as their getters report it. */
        int[] gidIndexes() {
            return call(() -> new int[] {ctrl.gidIndex(), data.gidIndex()}, CMD_TIMEOUT);
        }

        /** Control path: {ctrl, data}'s states. */
        CtxState[] states() {
            return call(() -> new CtxState[] {ctrl.state(), data.state()}, CMD_TIMEOUT);
        }

        @Override
        protected Ctx[] contexts() {
            return new Ctx[] {ctrl, data};
        }

        @Override
        protected void freeCompletedTasks() {
        }

        @Override
        protected Buf[][] buffers() {
            return new Buf[0][];
        }

        @Override
        protected void releaseMaps() {
        }
    }

    @Test
    @Timeout(60)
    void theWorkersRdmaContextsGetTheGidIndexAndStart() {
        try (Dev sw = Devices.open("sw0")) {
            try (PairWorker w = new PairWorker(sw, 3)) {
                assertThat(w.gidIndexes()).containsExactly(3, 3);
                assertThat(w.states()).doesNotContain(CtxState.IDLE);
            }
            try (PairWorker w = new PairWorker(sw, -1)) {
                assertThat(w.gidIndexes()).as("no -g: the device's default").containsExactly(-1, -1);
            }
            Rdma r = DataPathWorker.createRdma(sw, null, 7);
            assertThat(r.gidIndex()).isEqualTo(7);
            assertThat(DataPathWorker.createRdma(sw, null, -1).gidIndex()).isEqualTo(-1);
        }
    }

    @Test
    void aGidIndexOutsideMinusOneTo255IsOneLineNamingTheFlag() {
        for (int ok : new int[] {-1, 0, 1, 255}) {
            assertThat(AppSupport.checkGidIndex(ok)).isEqualTo(ok);
        }
        for (int bad : new int[] {-2, 256, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> AppSupport.checkGidIndex(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--gid-index: " + bad + " is not a GID index (0..255, or -1 for the device's default)");
        }
    }

    /**
     * A software device has no GID table: any index passes the start-up check and the start line says
     * the flag is ignored; a failed RDMA start with INVALID_VALUE and an index set names the flag.
     */
    @Test
    void onASoftwareDeviceTheIndexIsIgnoredAndAStartErrorNamesTheFlag() {
        try (Dev sw = Devices.open("sw0")) {
            AppSupport.checkGidIndex(sw, 200);
            assertThatThrownBy(() -> AppSupport.checkGidIndex(sw, -2)).hasMessageStartingWith("--gid-index: -2 ");
            assertThat(AppSupport.rdmaLine(sw, -1)).isEqualTo("RDMA on sw0 (software transport)");
            assertThat(AppSupport.rdmaLine(sw, 2))
                    .isEqualTo("RDMA on sw0 (software transport), --gid-index 2 ignored (no GID on a software device)");
            assertThat(AppSupport.rdmaStartFailed(DocaError.INVALID_VALUE, "rdma start", sw, 5).getMessage())
                    .startsWith("rdma start: --gid-index 5: sw0 has no GID 5 (./jdoca devices -d sw0 lists its GIDs)");
            assertThat(AppSupport.rdmaStartFailed(DocaError.INVALID_VALUE, "rdma start", sw, -1).getMessage())
                    .startsWith("rdma start (");
            assertThat(AppSupport.rdmaStartFailed(DocaError.DRIVER, "rdma start", sw, 5).getMessage())
                    .startsWith("rdma start (");
        }
    }
}
