package io.jdoca.ec;

import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.CapabilityProvider;
import io.jdoca.core.dev.DevInfo;
import java.util.List;

/** Lists the EC library's capabilities for {@code ./jdoca devices}. Stateless. */
public final class EcCapabilities implements CapabilityProvider {
    @Override
    public List<Capability> capabilities(DevInfo d) {
        return List.of(
                new Capability("ec", "task_create_is_supported", String.valueOf(Ec.capTaskCreateIsSupported(d))),
                new Capability("ec", "task_recover_is_supported", String.valueOf(Ec.capTaskRecoverIsSupported(d))),
                new Capability("ec", "task_update_is_supported", String.valueOf(Ec.capTaskUpdateIsSupported(d))),
                new Capability("ec", "max_block_size", String.valueOf(Ec.capGetMaxBlockSize(d))),
                new Capability("ec", "max_buf_list_len", String.valueOf(Ec.capGetMaxBufListLen(d))),
                new Capability("ec", "max_data_blocks", String.valueOf(Ec.capGetMaxDataBlocks(d))),
                new Capability("ec", "max_rdnc_blocks", String.valueOf(Ec.capGetMaxRdncBlocks(d))),
                new Capability("ec", "engine", RsEngine.isNativeAvailable() ? "native (ISA-L)" : "java (Vector API)"));
    }
}
