package io.jdoca.gga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 29 item 6: the gateway's dirty-stripe log is a write-ahead file that a restart replays. */
class DirtyLogTest {
    private static final List<String> TARGETS = List.of("127.0.0.1:7001", "127.0.0.1:7002", "127.0.0.1:7003");

    @TempDir
    Path dir;

    @Test
    void markedStripesAreInTheFileAndReplayedByTheNextGateway() {
        Path f = dir.resolve("gga.dirty");
        try (DirtyLog log = DirtyLog.open(f, TARGETS)) {
            log.ensureGeometry(1000, 2048);
            DirtyStripes d2 = log.stripes()[TargetRole.DATA_2];
            assertThat(d2.persistent()).isTrue();
            assertThat(d2.mark(0)).isTrue();
            assertThat(d2.mark(63)).isTrue();
            assertThat(d2.mark(64)).isTrue();
            assertThat(d2.mark(999)).isTrue();
            assertThat(d2.mark(999)).as("already dirty: no second flush").isTrue();
            // no close(): the file must hold the bits as a crash left it (the mapping's pages are the file's)
            DirtyLog other = null;
            try {
                other = DirtyLog.open(f, TARGETS);
                throw new AssertionError("a second gateway opened a locked log");
            } catch (DocaException e) {
                assertThat(e.error()).isEqualTo(DocaError.IN_USE);
            } finally {
                if (other != null) {
                    other.close();
                }
            }
        }
        // close() kept it (dirty); a new gateway replays it
        assertThat(f).exists();
        try (DirtyLog again = DirtyLog.open(f, TARGETS)) {
            assertThat(again.pending(TargetRole.DATA_1)).isZero();
            assertThat(again.pending(TargetRole.DATA_2)).isEqualTo(4);
            assertThat(again.pending(TargetRole.DATA_P)).isZero();
            again.ensureGeometry(1000, 2048); // same geometry: kept
            DirtyStripes d2 = again.stripes()[TargetRole.DATA_2];
            assertThat(d2.nextDirty(0)).isZero();
            assertThat(d2.nextDirty(1)).isEqualTo(63);
            assertThat(d2.nextDirty(65)).isEqualTo(999);
            assertThatThrownBy(() -> again.ensureGeometry(2000, 2048)).isInstanceOfSatisfying(DocaException.class,
                    e -> assertThat(e.error()).isEqualTo(DocaError.BAD_STATE)).hasMessageContaining(
                    "wait for a resync");
            for (long s : new long[] {0, 63, 64, 999}) {
                d2.clear(s);
            }
            again.force();
        }
        assertThat(f).as("a clean log is removed at exit").doesNotExist();
    }

    @Test
    void aDirtyLogOfOtherTargetsIsRefusedNotReplayed() throws Exception {
        Path f = dir.resolve("gga.dirty");
        try (DirtyLog log = DirtyLog.open(f, TARGETS)) {
            log.ensureGeometry(100, 4096);
            log.stripes()[TargetRole.DATA_P].mark(5);
        }
        List<String> others = List.of("127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003");
        assertThatThrownBy(() -> DirtyLog.open(f, others)).isInstanceOfSatisfying(DocaException.class,
                e -> assertThat(e.error()).isEqualTo(DocaError.BAD_STATE)).hasMessageContaining(
                "1 dirty stripes of the targets "
                        + String.join(", ", TARGETS));
        Files.writeString(f, "not a log");
        assertThatThrownBy(() -> DirtyLog.open(f, TARGETS)).isInstanceOfSatisfying(DocaException.class,
                e -> assertThat(e.error()).isEqualTo(DocaError.IO_FAILED)).hasMessageContaining(
                "not a gga-offload dirty");
    }

    @Test
    void aCleanLogOfOtherTargetsIsRewritten() {
        Path f = dir.resolve("gga.dirty");
        try (DirtyLog log = DirtyLog.open(f, TARGETS)) {
            log.ensureGeometry(100, 4096);
            log.stripes()[TargetRole.DATA_1].mark(1);
            log.stripes()[TargetRole.DATA_1].clear(1);
        }
        List<String> others = List.of("127.0.0.1:8001", "127.0.0.1:8002", "127.0.0.1:8003");
        try (DirtyLog log = DirtyLog.open(f, others)) {
            assertThat(log.pending(0) + log.pending(1) + log.pending(2)).isZero();
            log.ensureGeometry(64, 2048);
            assertThat(log.stripes()[0].stripes()).isEqualTo(64);
        }
    }
}
