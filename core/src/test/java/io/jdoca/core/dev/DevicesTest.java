package io.jdoca.core.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import org.junit.jupiter.api.Test;

class DevicesTest {
    @Test
    void selectByNamePciIbdevOrInterface() {
        DevInfo d = Devices.find("03:00.0");
        assertThat(d.name()).isEqualTo("sw0");
        assertThat(Devices.find("sw0")).isSameAs(d);
        assertThat(Devices.find("mlx5_0")).isSameAs(d);
        assertThat(Devices.find("0000:03:00.0")).isSameAs(d);
        assertThat(Devices.find("p1").pciAddress().toString()).isEqualTo("03:00.1");
        assertThatThrownBy(() -> Devices.find("99:00.0")).isInstanceOf(DocaException.class)
                .satisfies(e -> assertThat(((DocaException) e).error()).isEqualTo(DocaError.NOT_FOUND));
    }

    @Test
    void representorsAsTheDpuSeesTheHost() {
        DevInfo d = Devices.find("sw0");
        assertThat(d.representors(DevInfo.RepFilter.ALL)).extracting(DevInfoRep::name)
                .contains("hpf0", "hpf0vf0", "hpf0vf1", "pf0sf0");
        DevInfoRep hpf0 = Devices.findRepresentor("0b:00.0");
        assertThat(hpf0.name()).isEqualTo("hpf0");
        assertThat(hpf0.funcType()).isEqualTo(PciFuncType.PF);
        try (DevRep r = hpf0.open()) {
            assertThat(r.info()).isSameAs(hpf0);
        }
        assertThat(d.representors(DevInfo.RepFilter.EMULATED)).isEmpty();
    }

    @Test
    void pciAddressParsing() {
        assertThat(PciAddress.parse("0b:00.2")).isEqualTo(new PciAddress(0, 0x0b, 0, 2));
        assertThat(PciAddress.parse("zz")).isNull();
        assertThat(PciAddress.parse("03:00.9")).isNull();
        assertThat(PciAddress.parse("1:2:3:4")).isNull();
    }

    @Test
    void customDeviceList() {
        assertThat(Devices.build("a@04:00.0,b@05:00.1")).extracting(DevInfo::name).containsExactly("a", "b");
        assertThatThrownBy(() -> Devices.build("bad")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void capabilitiesComeFromProviders() {
        assertThat(Devices.capabilities(Devices.find("sw0"))).extracting(Capability::name)
                .contains("mmap_export_pci_supported");
    }
}
