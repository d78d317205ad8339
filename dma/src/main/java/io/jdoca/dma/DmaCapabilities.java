package io.jdoca.dma;

import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.CapabilityProvider;
import io.jdoca.core.dev.DevInfo;
import java.util.List;

/** Lists the DMA library's capabilities for {@code ./jdoca devices}. */
public final class DmaCapabilities implements CapabilityProvider {
    @Override
    public List<Capability> capabilities(DevInfo d) {
        return List.of(
                new Capability("dma", "task_memcpy_is_supported", String.valueOf(Dma.capTaskMemcpyIsSupported(d))),
                new Capability("dma", "task_memcpy_max_buf_size", String.valueOf(Dma.capTaskMemcpyGetMaxBufSize(d))),
                new Capability("dma", "task_memcpy_max_buf_list_len",
                        String.valueOf(Dma.capTaskMemcpyGetMaxBufListLen(d))));
    }
}
