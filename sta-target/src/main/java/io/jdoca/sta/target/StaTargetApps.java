package io.jdoca.sta.target;

import io.jdoca.argp.JdocaApps;
import io.jdoca.sta.target.perf.NvmePerfApp;
import io.jdoca.sta.target.rpc.StaRpcApp;
import io.jdoca.sta.target.sample.StaOffloadSample;
import java.util.List;

/** The sta-target module's apps: sta-target, sta-rpc, sta-offload-sample, nvme-perf ({@link JdocaApps} provider). */
public final class StaTargetApps implements JdocaApps {
    @Override
    public List<Object> commands() {
        return List.of(new StaTargetApp(), new StaRpcApp(), new StaOffloadSample(), new NvmePerfApp());
    }
}
