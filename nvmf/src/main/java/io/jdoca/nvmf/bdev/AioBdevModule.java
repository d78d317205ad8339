package io.jdoca.nvmf.bdev;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.sta.backend.FileBackend;
import io.jdoca.sta.backend.StaBackend;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * SPDK's aio module ({@code module/bdev/aio}): an existing file or block device (STA's file
 * back-end), its size rounded down to blocks; read-only and fallocate modes are not offered.
 * jdoca's namespace form: {@code backend=file} (or {@code aio}, {@code bdev}) with {@code path},
 * created or extended to {@code size_mb} when given.
 *
 * <p>Options of its {@link BdevSpec}: {@code filename}, {@code size_bytes} (0: the file's size) and
 * {@code create} (the namespace form may create the file). Stateless; see {@link BdevModule}.
 */
final class AioBdevModule implements BdevModule {
    private static final String FILENAME = "filename";
    private static final String SIZE = "size_bytes";
    private static final String CREATE = "create";

    @Override
    public String name() {
        return "aio";
    }

    @Override
    public String productName() {
        return "AIO disk";
    }

    @Override
    public BdevSpec parseCreate(JsonNode params) {
        JsonParams p = new JsonParams(params, "", "filename", "name", "block_size", "readonly", "fallocate", "uuid");
        p.onlyDefault("readonly", false);
        p.onlyDefault("fallocate", false);
        Long bs = p.integer("block_size", false, 0, 1 << 20);
        String f = Path.of(p.str("filename", true)).toString();
        String name = p.str("name", true);
        return new BdevSpec(name, bs == null || bs == 0 ? 512 : bs.intValue(), 0, p.uuid("uuid"),
                Map.of(FILENAME, f, SIZE, 0L, CREATE, false));
    }

    @Override
    public Opened open(String name, BdevSpec spec, Consumer<StaBackend> discard) {
        Path f = Path.of((String) spec.option(FILENAME, ""));
        boolean create = (Boolean) spec.option(CREATE, false);
        long size = (Long) spec.option(SIZE, 0L);
        boolean existed = Files.exists(f, LinkOption.NOFOLLOW_LINKS);
        if (!create) {
            if (!Files.exists(f)) {
                throw new ConfigException("filename", f + " does not exist");
            }
            if (Files.isDirectory(f)) {
                throw new ConfigException("filename", f + " is a directory");
            }
        }
        StaBackend be = FileBackend.open(name, f, size);
        long blocks = be.sizeBytes() / spec.blockSize();
        if (blocks == 0) {
            discard.accept(be);
            throw new ConfigException("filename", f + " is smaller than one " + spec.blockSize() + "-byte block");
        }
        return new Opened(be, blocks, existed ? null : f);
    }

    @Override
    public Map<String, Object> driverSpecific(Bdev b) {
        return Map.of("aio", Map.of("filename", b.option(FILENAME), "block_size_override", true, "readonly", false,
                "fallocate", false));
    }

    @Override
    public Map<String, Object> configParams(Bdev b) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", b.name());
        p.put("block_size", b.blockSize());
        p.put("filename", b.option(FILENAME));
        p.put("readonly", false);
        p.put("fallocate", false);
        p.put("uuid", b.uuid().toString());
        return p;
    }

    @Override
    public List<String> namespaceBackends() {
        return List.of("file", "aio", "bdev");
    }

    @Override
    public void checkNamespace(TargetConfig.NamespaceConfig n, String where) {
        String path = n.path();
        if (path == null || path.isBlank()) {
            throw new ConfigException(SizedBdevModule.field(where, "path"), "a file namespace needs a path");
        }
        Path p = Path.of(path);
        Path dir = p.toAbsolutePath().getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            throw new ConfigException(SizedBdevModule.field(where, "path"), "directory " + dir + " does not exist");
        }
        if (Files.isDirectory(p)) {
            throw new ConfigException(SizedBdevModule.field(where, "path"), path + " is a directory");
        }
        if (n.sizeMb() == 0 && !Files.exists(p)) {
            throw new ConfigException(SizedBdevModule.field(where, "size_mb"), path
                    + " does not exist: give size_mb to create it");
        }
    }

    @Override
    public BdevSpec namespaceSpec(TargetConfig.NamespaceConfig n) {
        return new BdevSpec(null, n.blockSize(), 0, null, Map.of(FILENAME, n.path(), SIZE, n.sizeMb() << 20,
                CREATE, true));
    }
}
