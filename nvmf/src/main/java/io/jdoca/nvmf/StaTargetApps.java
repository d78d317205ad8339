package io.jdoca.nvmf;

import io.jdoca.argp.JdocaApps;
import io.jdoca.nvmf.perf.NvmePerfApp;
import io.jdoca.nvmf.rpc.StaRpcApp;
import io.jdoca.nvmf.sample.StaOffloadSample;
import java.util.List;

/** The nvmf module's apps: sta-target, sta-rpc, sta-offload-sample, nvme-perf ({@link JdocaApps} provider). */
public final class StaTargetApps implements JdocaApps {
    @Override
    public List<Object> commands() {
        return List.of(new StaTargetApp(), new StaRpcApp(), new StaOffloadSample(), new NvmePerfApp());
    }
}
