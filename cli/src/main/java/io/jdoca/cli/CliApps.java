package io.jdoca.cli;

import io.jdoca.argp.JdocaApps;
import java.util.ArrayList;
import java.util.List;

/**
 * The launcher module's own apps: demo, devices, rdma-rping, dma-copy, pe-event and DOCA's RDMA samples
 * ({@link JdocaApps} provider).
 */
public final class CliApps implements JdocaApps {
    @Override
    public List<Object> commands() {
        List<Object> apps = new ArrayList<>(List.of(new DemoCommand(), new DevicesCommand(), new RdmaRpingCommand(),
                new DmaCopyCommand(), new PeEventCommand()));
        apps.addAll(RdmaSampleCommands.all());
        return apps;
    }
}
