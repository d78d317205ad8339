package io.jdoca.nvmf.rpc;

import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.tgt.NvmfTarget;
import io.jdoca.nvmf.tgt.NvmfTargetOps;
import java.util.function.Supplier;

/**
 * SPDK's keyring methods ({@code lib/keyring/keyring_rpc.c}, {@code module/keyring/file}):
 * {@code keyring_file_add_key {name, path}} (the file must be 0600 and hold a DHHC-1 secret or an NVMe/TCP TLS
 * PSK {@code NVMeTLSkey-1:...}),
 * {@code keyring_file_remove_key {name}}, {@code keyring_get_keys}. No answer and no log line
 * carries a secret: keys are named, the files stay where the operator put them.
 *
 * <p>Threads: handlers on the RPC client's thread; each target call is a {@code sta-main} command.
 */
final class KeyringRpcs implements RpcRegistry.Family {
    private final Supplier<NvmfTarget> target;

    KeyringRpcs(Supplier<NvmfTarget> target) {
        this.target = target;
    }

    /** keyring_file_add_key's params. */
    private record FileKey(String name, String path) {
    }

    @Override
    public void registerWith(RpcRegistry r) {
        r.register("keyring_file_add_key", p -> {
            JsonParams a = new JsonParams(p, "", "name", "path");
            return new FileKey(a.str("name", true), a.str("path", true));
        }, k -> {
            NvmfTargetOps.addKey(target.get(), k.name(), k.path());
            return true;
        });
        r.register("keyring_file_remove_key", p -> new JsonParams(p, "", "name").str("name", true), name -> {
            NvmfTargetOps.removeKey(target.get(), name);
            return true;
        });
        r.register("keyring_get_keys", p -> {
            new JsonParams(p, "");
            return Boolean.TRUE;
        }, x -> NvmfTargetOps.keys(target.get()));
    }
}
