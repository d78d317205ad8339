package io.jdoca.storage.common;

import io.jdoca.core.DocaError;
import io.jdoca.core.PeerLiveness;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code --peer-timeout-ms}: how long a peer may stay silent before this app declares it dead
 * ({@link PeerLiveness}). The storage apps mix it in. Control path (argument parsing).
 */
public final class PeerTimeoutOption {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--peer-timeout-ms", paramLabel = "MS",
            description = "Declare an RDMA peer dead after MS ms with nothing from it (default: -D"
                    + PeerLiveness.PROPERTY
                    + ", else " + PeerLiveness.DEFAULT_TIMEOUT_MS
                            + "). A peer that exits or closes is seen at once (EOF/RST).")
    void peerTimeout(long ms) {
        if (PeerLiveness.setTimeoutMillis(ms) != DocaError.SUCCESS) {
            throw new ParameterException(spec.commandLine(),
                    "--peer-timeout-ms: " + ms + " is outside 1.." + PeerLiveness.MAX_TIMEOUT_MS);
        }
    }
}
