package io.jdoca.sta.nvmf.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jdoca.testkit.AllocationMeter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link OpenSslGcm} costs besides time: nothing allocated per record on direct buffers after warm-up (a good
 * record sealed and opened at 16 KiB and at 100 bytes, and a forged one refused), and no native memory left behind
 * by closed contexts (glibc's count of bytes in use, {@code mallinfo2}, over rounds of 20 000 contexts made and
 * closed) nor by contexts nobody closed once they are unreachable (the cleaner).
 */
class OpenSslGcmResourceTest {
    @BeforeEach
    void needsLibcrypto() {
        assumeTrue(TlsAead.openSslAvailable(), () -> "skipped: " + Libcrypto.unavailableReason());
    }

    /** Seals and opens records as a connection does, on {@code direct} or heap buffers. */
    private static Runnable records(TlsAead gcm, boolean direct) {
        byte[] nonce = new byte[12];
        byte[] aad = {23, 3, 3, 0x40, 0x11};
        ByteBuffer plain = TlsAeadTest.buffer(direct, 16384);
        ByteBuffer sealed = TlsAeadTest.buffer(direct, 16384 + 16);
        ByteBuffer back = TlsAeadTest.buffer(direct, 16384);
        ByteBuffer forged = TlsAeadTest.buffer(direct, 100 + 16);
        int[] n = {0};
        return () -> {
            try {
                nonce[11] = (byte) n[0]++;
                gcm.seal(nonce, aad, plain, 0, 16384, sealed, 0);
                boolean ok = gcm.open(nonce, aad, sealed, 0, 16384, back, 0);
                gcm.seal(nonce, aad, plain, 0, 100, sealed, 0);
                ok &= gcm.open(nonce, aad, sealed, 0, 100, back, 0);
                ok &= !gcm.open(nonce, aad, forged, 0, 100, back, 0);
                if (!ok) {
                    throw new AssertionError("a record did not open, or a forged one did");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    @Test
    void aRecordAllocatesNothingAfterWarmUp() throws IOException {
        try (TlsAead gcm = TlsAead.openSsl(new byte[32]); TlsAead heap = TlsAead.openSsl(new byte[16])) {
            AllocationMeter.Result r = AllocationMeter.steadyState(20_000, 10_000, records(gcm, true));
            AllocationMeter.Result h = AllocationMeter.steadyState(20_000, 10_000, records(heap, false));
            System.out.printf("OpenSSL AES-GCM, 5 records (16 KiB, 100 B, forged) per run: direct buffers %.1f B/run, "
                    + "heap buffers %.1f B/run%n", r.bytesPerOp(), h.bytesPerOp());
            assertThat(r.bytes()).as(r.toString()).isZero();
        }
    }

    /** glibc's bytes in use by malloc ({@code mallinfo2().uordblks}, every arena). */
    @SuppressWarnings("restricted") // FFM: the test's own binding of mallinfo2
    private static long mallocInUse() {
        Linker l = Linker.nativeLinker();
        MemoryLayout info = MemoryLayout.structLayout(MemoryLayout.sequenceLayout(10, ValueLayout.JAVA_LONG));
        MethodHandle h = l.downcallHandle(l.defaultLookup().findOrThrow("mallinfo2"), FunctionDescriptor.of(info));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment m = (MemorySegment) h.invokeExact((java.lang.foreign.SegmentAllocator) a);
            // arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, then uordblks
            return m.get(ValueLayout.JAVA_LONG, 7 * 8);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    @Test
    void closedContextsLeaveNoNativeMemory() throws IOException {
        byte[] key = new byte[16];
        List<TlsAead> round = new ArrayList<>(20_000);
        long first = 0;
        for (int r = 0; r < 8; r++) {
            for (int i = 0; i < 20_000; i++) {
                round.add(TlsAead.openSsl(key)); // held: only close may free them
            }
            round.forEach(TlsAead::close);
            round.clear();
            if (r == 0) {
                first = mallocInUse();
            }
        }
        long grown = mallocInUse() - first;
        System.out.printf("malloc'd bytes after 7 more rounds of 20 000 contexts: %+d%n", grown);
        assertThat(grown).as("bytes still in use after 140 000 contexts closed (a context is about 1 KB)")
                .isLessThan(16L << 20);
    }

    @Test
    void aContextNobodyClosedIsFreedOnceUnreachable() throws IOException {
        long before = OpenSslGcm.live();
        for (int i = 0; i < 1000; i++) {
            TlsAead.openSsl(new byte[16]).engine(); // dropped without close
        }
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (OpenSslGcm.live() > before && System.nanoTime() < deadline) {
            System.gc(); // the cleaner frees what the collector found unreachable; no fixed wait
            Thread.onSpinWait();
        }
        assertThat(OpenSslGcm.live()).as("contexts left of 1000 dropped").isLessThanOrEqualTo(before);
    }
}
