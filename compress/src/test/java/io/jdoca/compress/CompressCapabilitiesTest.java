package io.jdoca.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.dev.Devices;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Compress rows of {@code ./jdoca devices} come through the CapabilityProvider service. */
class CompressCapabilitiesTest {
    @Test
    void providerIsRegistered() {
        DevInfo d = Devices.find("sw0");
        List<Capability> c = Devices.capabilities(d).stream().filter(x -> x.library().equals("compress")).toList();
        assertThat(c).extracting(Capability::name).contains("task_decompress_lz4_stream_is_supported",
                "task_compress_deflate_is_supported", "max_buf_list_len", "max_chained_task_size", "lz4_engine");
        assertThat(Compress.capGetMaxBufListLen(d)).isEqualTo(Compress.MAX_BUF_LIST_LEN).isGreaterThan(1);
    }
}
