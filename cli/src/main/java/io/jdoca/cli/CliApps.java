package io.jdoca.cli;

import io.jdoca.argp.JdocaApps;
import java.util.List;

/** The launcher module's own apps: demo, devices, rdma-rping, dma-copy ({@link JdocaApps} provider). */
public final class CliApps implements JdocaApps {
    @Override
    public List<Object> commands() {
        return List.of(new DemoCommand(), new DevicesCommand(), new RdmaRpingCommand(), new DmaCopyCommand());
    }
}
