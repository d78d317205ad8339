package io.jdoca.cli;

import io.jdoca.core.dev.Capability;
import io.jdoca.core.dev.DevInfo;
import io.jdoca.core.dev.DevInfoRep;
import io.jdoca.core.dev.Devices;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./jdoca devices}: the software devices, their representors and every library's capabilities. */
@Command(name = "devices", mixinStandardHelpOptions = true,
        description = "Lists the devices (name, ibdev, interface, PCI address), their representors and each library's capabilities.")
public final class DevicesCommand implements Callable<Integer> {
    @Option(names = {"-d", "--device"}, description = "only this device (name, ibdev name, interface or PCI address)")
    String device;

    @Option(names = "--no-caps", description = "do not list capabilities")
    boolean noCaps;

    @Override
    public Integer call() {
        List<DevInfo> devs = device == null ? Devices.list() : List.of(Devices.find(device));
        System.out.printf("%-6s %-8s %-6s %-8s%n", "name", "ibdev", "iface", "pci");
        for (DevInfo d : devs) {
            System.out.printf("%-6s %-8s %-6s %-8s%n", d.name(), d.ibdevName(), d.ifaceName(), d.pciAddress());
        }
        for (DevInfo d : devs) {
            System.out.println();
            System.out.println(d.name() + " representors (host functions as the DPU sees them):");
            for (DevInfoRep r : d.representors(DevInfo.RepFilter.ALL)) {
                System.out.printf("  %-8s %-8s %s%n", r.name(), r.pciAddress(), r.funcType());
            }
            if (!noCaps) {
                System.out.println(d.name() + " capabilities:");
                String lib = "";
                for (Capability c : Devices.capabilities(d)) {
                    if (!c.library().equals(lib)) {
                        lib = c.library();
                        System.out.println("  [" + lib + "]");
                    }
                    System.out.printf("    %-40s %s%n", c.name(), c.value());
                }
            }
        }
        return 0;
    }
}
