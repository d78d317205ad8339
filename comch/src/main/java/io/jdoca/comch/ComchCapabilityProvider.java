package io.jdoca.comch;

import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.CapabilityProvider;
import io.jdoca.core.dev.DevInfo;
import java.util.List;

/** Lists Comch's capabilities for {@code ./jdoca devices}. Stateless. */
public final class ComchCapabilityProvider implements CapabilityProvider {
    @Override
    public List<Capability> capabilities(DevInfo d) {
        return List.of(
                new Capability("comch", "server_is_supported", String.valueOf(Comch.capServerIsSupported(d))),
                new Capability("comch", "client_is_supported", String.valueOf(Comch.capClientIsSupported(d))),
                new Capability("comch", "max_msg_size", String.valueOf(Comch.capGetMaxMsgSize(d))),
                new Capability("comch", "max_clients", String.valueOf(Comch.capGetMaxClients(d))),
                new Capability("comch", "producer_max_imm_data_len",
                        String.valueOf(Comch.capProducerGetMaxImmDataLen(d))),
                new Capability("comch", "consumer_max_buf_size", String.valueOf(Comch.capConsumerGetMaxBufSize(d))));
    }
}
