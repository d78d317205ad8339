package io.jdoca.comch;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.DocaError;
import io.jdoca.core.dev.Dev;
import io.jdoca.core.dev.Devices;
import io.jdoca.core.exec.CtxState;
import io.jdoca.core.exec.IdleStrategy;
import io.jdoca.core.exec.ProgressEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rendezvous directory and sockets are private to their owner (project rule "management
 * sockets are private to their owner"): created 0700, socket 0600, a directory others may write
 * to is refused. Fails on main: the directory was created with the umask's mode and any existing
 * one was used as is.
 */
class ComchRuntimeDirTest {
    @TempDir
    Path tmp;

    @AfterEach
    void restore() {
        System.clearProperty("jdoca.comch.dir");
    }

    @Test
    void aFreshDirectoryAndTheSocketArePrivate() throws Exception {
        Path dir = tmp.resolve("fresh");
        System.setProperty("jdoca.comch.dir", dir.toString());
        try (Dev dev = Devices.open("sw0")) {
            ProgressEngine pe = ProgressEngine.create();
            ComchServer s = ComchServer.create(dev, null, "private-test");
            s.taskSendSetConf((t, u, c) -> t.free(), (t, u, c) -> t.free(), 1);
            pe.connectCtx(s);
            assertThat(s.start()).isEqualTo(DocaError.SUCCESS);
            try {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
                assertThat(PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(Comch.socketPath("private-test")))).isEqualTo("rw-------");
            } finally {
                s.stop();
                pe.progressUntil(() -> s.state() == CtxState.IDLE, IdleStrategy.backoff(), 2_000_000_000L);
                pe.close();
            }
        }
    }

    @Test
    void aDirectoryOthersMayWriteIsRefused() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        System.setProperty("jdoca.comch.dir", dir.toString());
        try (Dev dev = Devices.open("sw0")) {
            ProgressEngine pe = ProgressEngine.create();
            ComchServer s = ComchServer.create(dev, null, "squatted");
            s.taskSendSetConf((t, u, c) -> t.free(), (t, u, c) -> t.free(), 1);
            pe.connectCtx(s);
            assertThat(s.start()).isEqualTo(DocaError.NOT_PERMITTED);
            pe.close();
            assertThat(Files.exists(Comch.socketPath("squatted"))).isFalse();
        }
    }
}
