package io.jdoca.systemtests.vm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which guest JVM crash reports {@link GuestRun} treats as the emulator's (one more run) and which not. */
class GuestRunCrashTest {
    @TempDir
    Path out;

    private void report(String frame) throws IOException {
        Files.writeString(out.resolve("hs_err_pid180.log"), """
                #
                # A fatal error has been detected by the Java Runtime Environment:
                #
                #  SIGSEGV (0xb) at pc=0x00007ff4286549ce, pid=180, tid=220
                #
                # JRE version: OpenJDK Runtime Environment Temurin-25.0.3+9 (25.0.3+9) (build 25.0.3+9-LTS)
                # Problematic frame:
                %s
                #
                """.formatted(frame));
    }

    @Test
    void aCrashInTheJvmOrInCompiledJavaIsTheEmulators() throws IOException {
        report("# V  [libjvm.so+0x6ab9ce]  ciObjectFactory::create_new_metadata(Metadata*)+0x2e");
        assertThat(GuestRun.emulatorCrash(out)).contains("SIGSEGV").contains("ciObjectFactory");
        report("# J 2140 c1 io.jdoca.core.ring.SpmcRing.poll()I (74 bytes) @ 0x00007f2d1d1f0f20 [0x7f2d1d1f0f00+0x20]");
        assertThat(GuestRun.emulatorCrash(out)).contains("SpmcRing.poll");
    }

    @Test
    void aCrashInANativeLibraryIsNeverRetried() throws IOException {
        report("# C  [libibverbs.so.1+0x9a3c]  ibv_dereg_mr+0x1c");
        assertThat(GuestRun.emulatorCrash(out)).isNull();
        Files.delete(out.resolve("hs_err_pid180.log"));
        assertThat(GuestRun.emulatorCrash(out)).as("no report").isNull();
        assertThat(GuestRun.emulatorCrash(out.resolve("absent"))).isNull();
    }

    private Path console(String text) throws IOException {
        return Files.writeString(out.resolve("console.log"), text);
    }

    private static final String OOPS = """
            [    1.015761] mtrr: your CPUs had inconsistent fixed MTRR settings
            [    5.870101] BUG: unable to handle page fault for address: 000000003733eed8
            [    5.870200] Oops: 0000 [#1] PREEMPT SMP NOPTI
            [    5.870300] RIP: 0010:native_queued_spin_lock_slowpath+0x1c4/0x2e0
            [    5.871278] CPU: 0 UID: 0 PID: 0 Comm: swapper/0 Tainted: G      D            6.12.117+deb13-amd64
            [    5.871361] Kernel panic - not syncing: Fatal exception in interrupt
            """;

    @Test
    void aKernelPanicBeforeTheGuestsInitIsTheEmulatorsAndItsOopsIsShown() throws IOException {
        Path c = console(OOPS);
        assertThat(GuestRun.bootPanic(c)).contains("while booting").contains("BUG: unable to handle page fault")
                .contains("RIP: 0010:native_queued_spin_lock_slowpath").contains("Fatal exception in interrupt")
                .doesNotContain("MTRR");
    }

    @Test
    void aKernelPanicAfterInitIsNeverRetriedButItsOopsIsStillShown() throws IOException {
        Path c = console("nvmevm: init start, uptime 7.08s, kernel 6.12.117+deb13-amd64\n" + OOPS);
        assertThat(GuestRun.bootPanic(c)).isNull();
        assertThat(GuestRun.panicHead(c)).contains("BUG: unable to handle page fault");
        assertThat(GuestRun.bootPanic(console("nvmevm: init start\nnvmevm: payload exit status 1\n"))).isNull();
        assertThat(GuestRun.panicHead(out.resolve("absent"))).isNull();
    }
}
