package io.jdoca.ec;

import static org.assertj.core.api.Assertions.assertThat;

import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.dev.Devices;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The EC rows of {@code ./jdoca devices} come through the CapabilityProvider service. */
class EcCapabilitiesTest {
    @Test
    void providerIsRegisteredAndReportsTheLimits() {
        DevInfo d = Devices.find("sw0");
        List<Capability> ec = Devices.capabilities(d).stream().filter(c -> c.library().equals("ec")).toList();
        assertThat(ec).extracting(Capability::name).contains("task_create_is_supported", "task_recover_is_supported",
                "task_update_is_supported", "max_data_blocks", "max_rdnc_blocks", "engine");
        assertThat(ec).filteredOn(c -> c.name().equals("max_data_blocks")).extracting(Capability::value)
                .containsExactly("32");
        assertThat(Ec.capGetMaxRdncBlocks(d)).isEqualTo(8);
    }
}
