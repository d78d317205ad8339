package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.auth.DhchapKey;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.sta.nvmf.tls.NvmeTlsKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The target's keys (SPDK's {@code keyring_file} module): each a name for a file the operator
 * wrote, holding a DH-HMAC-CHAP secret in the DHHC-1 representation or an NVMe/TCP TLS PSK in the
 * interchange format ({@code NVMeTLSkey-1:HH:...:}, {@link NvmeTlsKey}). The file must be private to
 * its owner (no group or other permission bits), as SPDK requires; only its name and path are
 * ever shown (RPC answers, {@code save_config}, logs), never its content.
 *
 * <p>Threads: {@code sta-main} only (a plain map).
 */
final class NvmfKeyring {
    /** One key: its file and the secret read from it (one of {@code dhchap}, {@code tls}; the other null). */
    record Key(String name, Path path, DhchapKey dhchap, NvmeTlsKey tls) {
        @Override
        public String toString() {
            return "Key[" + name + ", " + path + "]";
        }
    }

    private final Map<String, Key> keys = new LinkedHashMap<>();

    /** SPDK's {@code keyring_file_add_key}: reads and checks the file now. */
    void add(String name, String path) {
        if (keys.containsKey(name)) {
            throw new DocaException(DocaError.ALREADY_EXIST, "key " + name + " already exists");
        }
        Path p = Path.of(path);
        if (!p.isAbsolute()) {
            throw new ConfigException("path", path + ": the key file's path must be absolute");
        }
        String text;
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
            for (PosixFilePermission x : perms) {
                if (x.name().startsWith("GROUP") || x.name().startsWith("OTHERS")) {
                    throw new ConfigException("path", path + ": the key file must not be readable by others "
                            + "(chmod 600)");
                }
            }
            text = Files.readString(p, StandardCharsets.US_ASCII);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new ConfigException("path", path + ": no such file");
        } catch (IOException e) {
            throw new ConfigException("path", path + ": cannot be read (" + e.getClass().getSimpleName() + ")");
        }
        try {
            // Both parsers' messages name what is wrong, never the secret.
            if (text.strip().startsWith("NVMeTLSkey-")) {
                keys.put(name, new Key(name, p, null, NvmeTlsKey.parse(text)));
            } else {
                keys.put(name, new Key(name, p, DhchapKey.parse(text.strip()), null));
            }
        } catch (IllegalArgumentException e) {
            throw new ConfigException("path", path + ": " + e.getMessage());
        }
    }

    /** SPDK's {@code keyring_file_remove_key}. */
    void remove(String name) {
        if (keys.remove(name) == null) {
            throw new DocaException(DocaError.NOT_FOUND, "no key " + name);
        }
    }

    /** The key {@code name}, or null. */
    Key get(String name) {
        return name == null ? null : keys.get(name);
    }

    /** SPDK's {@code keyring_get_keys}: name, path, module; no secret. */
    List<Map<String, Object>> describe() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Key k : keys.values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", k.name());
            m.put("removed", false);
            m.put("probed", false);
            m.put("refcnt", 1);
            m.put("path", k.path().toString());
            m.put("module", "keyring_file");
            out.add(m);
        }
        return out;
    }
}
