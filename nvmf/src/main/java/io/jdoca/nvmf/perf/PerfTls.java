package io.jdoca.nvmf.perf;

import io.jdoca.sta.nvmf.tls.NvmeTlsKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import picocli.CommandLine.Option;

/**
 * nvme-perf's NVMe/TCP TLS flags, as spdk_nvme_perf names them: {@code -S ssl} (the socket implementation
 * that does TLS) and {@code --psk-path FILE}, a file holding the configured PSK in the interchange format
 * ({@code NVMeTLSkey-1:HH:...:}, what {@code nvme gen-tls-key} prints), private to its owner. The TLS PSK and
 * the identity ({@code NVMe0R0x <hostnqn> <subnqn>}, SPDK's) are derived per target from the host NQN and the
 * subsystem NQN, as SPDK's host does.
 *
 * <p>Threads: parsed on the main thread; {@link #derive} on any (the key is immutable).
 */
public final class PerfTls {
    @Option(names = {"-S", "--default-sock-impl"}, paramLabel = "IMPL",
            description = "posix (default) or ssl: NVMe/TCP over TLS 1.3 with the PSK of --psk-path.")
    String sockImpl;

    @Option(names = "--psk-path", paramLabel = "FILE", description = "The TLS PSK in the interchange format "
            + "(NVMeTLSkey-1:HH:...:), a file readable by its owner only; implies -S ssl.")
    String pskPath;

    private NvmeTlsKey key;

    /** Checks the flags and reads the key; one line (no secret) when they are wrong, else null. */
    String check() {
        if (sockImpl != null && !sockImpl.equals("ssl") && !sockImpl.equals("posix")) {
            return "-S/--default-sock-impl must be posix or ssl (got '" + sockImpl + "')";
        }
        if ("ssl".equals(sockImpl) && pskPath == null) {
            return "-S ssl needs --psk-path (a file holding the PSK: NVMeTLSkey-1:...)";
        }
        if (pskPath == null) {
            return null;
        }
        if ("posix".equals(sockImpl)) {
            return "--psk-path needs -S ssl (or no -S)";
        }
        Path p = Path.of(pskPath);
        try {
            for (PosixFilePermission x : Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)) {
                if (x.name().startsWith("GROUP") || x.name().startsWith("OTHERS")) {
                    return "--psk-path " + pskPath + ": the key file must not be readable by others (chmod 600)";
                }
            }
            key = NvmeTlsKey.parse(Files.readString(p, StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return "--psk-path " + pskPath + ": cannot be read (" + e.getClass().getSimpleName() + ")";
        } catch (IllegalArgumentException e) {
            return "--psk-path " + pskPath + ": " + e.getMessage();
        }
        return null;
    }

    /** The TLS PSK and identity for {@code t} (NVMe/TCP only), or null without TLS. */
    NvmeTlsKey.Derived derive(PerfTrid t) {
        return key == null ? null : key.derive(0, t.hostnqn(), t.connectNqn());
    }
}
