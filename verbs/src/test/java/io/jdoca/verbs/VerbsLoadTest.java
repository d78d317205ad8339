package io.jdoca.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** Loading rdma-core fails soft, and the listing never throws, with or without libibverbs and devices. */
class VerbsLoadTest {

    @Test
    void missingLibraryGivesAReasonInsteadOfThrowing() {
        NativeLib lib = NativeLib.open("libjdoca-no-such-library.so.1", "nothing");
        assertThat(lib.fn("ibv_get_device_list", true, null)).isNull();
        assertThat(lib.reason()).contains("libjdoca-no-such-library.so.1 not found").contains("apt-get install "
                + "nothing");
    }

    @Test
    void missingSymbolGivesAReasonInsteadOfThrowing() {
        NativeLib libc = NativeLib.open("libc.so.6", "libc6");
        assertThat(libc.fn("getpid", false, JAVA_INT)).isNotNull();
        assertThat(libc.reason()).isNull();
        assertThat(libc.fn("jdoca_no_such_symbol", false, JAVA_INT)).isNull();
        assertThat(libc.reason()).contains("no symbol jdoca_no_such_symbol");
    }

    @Test
    void availabilityAndListingNeverThrow() {
        boolean available = Verbs.isAvailable();
        assertThat(available).isEqualTo(Verbs.unavailableReason() == null);
        if (!RdmaCm.isAvailable()) {
            assertThat(RdmaCm.unavailableReason()).isNotBlank();
        }
        VerbsDevices.Listing l = VerbsDevices.list();
        // without a device there is always a one-line reason; with devices, none
        assertThat(l.devices().isEmpty()).isEqualTo(l.note() != null);
        if (l.note() != null) {
            assertThat(l.note()).startsWith("no RDMA devices: ").doesNotContain("\n");
        }
        if (!available) {
            assertThatThrownBy(Verbs::deviceList).isInstanceOf(VerbsException.class)
                    .hasMessageContaining("libibverbs.so.1");
        }
    }

    @Test
    void heapMemoryIsRefusedBeforeAnyNativeCall() {
        // checked before the library is touched, so it holds on every machine
        MemorySegment heap = MemorySegment.ofArray(new byte[64]);
        if (Verbs.isAvailable()) {
            assertThatThrownBy(() -> Verbs.regMr(MemorySegment.NULL, heap, 0)).isInstanceOf(VerbsException.class)
                    .hasMessageContaining("native");
        }
        try (Arena a = Arena.ofConfined()) {
            assertThat(a.allocate(8).isNative()).isTrue();
        }
    }

    @Test
    void errnoMessagesNameTheCallAndTheError() {
        VerbsException e = new VerbsException("ibv_reg_mr", 12);
        assertThat(e.getMessage()).startsWith("ibv_reg_mr failed: ").contains("errno 12");
        assertThat(e.errno()).isEqualTo(12);
        assertThat(e.call()).isEqualTo("ibv_reg_mr");
    }
}
