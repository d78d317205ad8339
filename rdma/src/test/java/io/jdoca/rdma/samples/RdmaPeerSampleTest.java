package io.jdoca.rdma.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class RdmaPeerSampleTest {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS) // the wait's own bound is 10 minutes: a pass proves it gave up early
    void aDescriptorWhoseWriterDiedIsNotWaitedFor(@TempDir Path dir) throws Exception {
        Process writer = new ProcessBuilder("sh", "-c", "exit 3").start();
        assertThat(writer.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> RdmaPeerSample.readDescriptor(dir.resolve("child.desc"), 600_000, writer))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("exited with status 3");
    }

    @Test
    void aDescriptorWrittenBeforeItsWriterExitedIsRead(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("child.desc");
        RdmaPeerSample.writeDescriptor(p, new byte[] {1, 2, 3});
        Process writer = new ProcessBuilder("sh", "-c", "exit 0").start();
        assertThat(writer.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(RdmaPeerSample.readDescriptor(p, 1_000, writer)).containsExactly(1, 2, 3);
        assertThat(Files.exists(p)).isTrue();
    }
}
