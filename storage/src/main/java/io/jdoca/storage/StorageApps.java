package io.jdoca.storage;

import io.jdoca.argp.JdocaApps;
import io.jdoca.storage.initiator.InitiatorComchApp;
import io.jdoca.storage.targetrdma.TargetRdmaApp;
import io.jdoca.storage.zerocopy.ZeroCopyApp;
import java.util.List;

/** The storage module's apps: target-rdma, initiator-comch, zero-copy ({@link JdocaApps} provider). */
public final class StorageApps implements JdocaApps {
    @Override
    public List<Object> commands() {
        return List.of(new TargetRdmaApp(), new InitiatorComchApp(), new ZeroCopyApp());
    }
}
