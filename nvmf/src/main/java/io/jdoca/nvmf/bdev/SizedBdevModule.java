package io.jdoca.nvmf.bdev;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.JsonParams;
import io.jdoca.nvmf.config.MemoryBudget;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.sta.backend.StaBackend;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the malloc and null modules share: a bdev of {@code num_blocks} blocks of
 * {@code block_size} bytes made in this process, SPDK's create params (metadata and protection
 * information only at their defaults: jdoca has neither), and jdoca's namespace form with
 * {@code size_mb}.
 *
 * <p>Stateless; see {@link BdevModule} for the threads.
 */
abstract class SizedBdevModule implements BdevModule {
    private final String[] createKeys;

    SizedBdevModule(String... createKeys) {
        this.createKeys = createKeys.clone();
    }

    /** The back-end of {@code bytes} bytes named {@code name}. */
    abstract StaBackend make(String name, long bytes);

    @Override
    public BdevSpec parseCreate(JsonNode params) {
        JsonParams p = new JsonParams(params, "", createKeys);
        for (String k : List.of("md_size", "dif_type")) {
            p.onlyDefault(k, 0);
        }
        p.onlyDefault("md_interleave", false);
        p.onlyDefault("dif_is_head_of_md", false);
        long blocks = p.integer("num_blocks", true, 1, Long.MAX_VALUE);
        int bs = p.integer("block_size", true, 1, 1 << 20).intValue();
        Long pbs = p.integer("physical_block_size", false, 0, 1 << 20);
        if (pbs != null && pbs != 0 && pbs != bs) {
            throw new ConfigException("physical_block_size", "jdoca bdevs have physical_block_size = block_size");
        }
        String name = p.str("name", defaultNamePrefix() == null);
        return new BdevSpec(name, bs, blocks, p.uuid("uuid"), Map.of());
    }

    @Override
    public Opened open(String name, BdevSpec spec, Consumer<StaBackend> discard) {
        long n = spec.numBlocks();
        int bs = spec.blockSize();
        if (n <= 0 || n > (Long.MAX_VALUE / bs)) {
            throw new ConfigException("num_blocks", n + " must be a positive number of blocks");
        }
        if (inMemory()) {
            MemoryBudget.check("num_blocks", n * bs);
        }
        return new Opened(make(name, n * bs), n, null);
    }

    @Override
    public Map<String, Object> configParams(Bdev b) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", b.name());
        p.put("num_blocks", b.numBlocks());
        p.put("block_size", b.blockSize());
        p.put("uuid", b.uuid().toString());
        return p;
    }

    @Override
    public void checkNamespace(TargetConfig.NamespaceConfig n, String where) {
        if (n.sizeMb() == 0) {
            throw new ConfigException(field(where, "size_mb"), "a " + n.backend()
                    + " namespace needs a size (MiB > 0)");
        }
        if (n.path() != null) {
            throw new ConfigException(field(where, "path"), "only file namespaces have a path");
        }
    }

    @Override
    public BdevSpec namespaceSpec(TargetConfig.NamespaceConfig n) {
        return new BdevSpec(null, n.blockSize(), (n.sizeMb() << 20) / n.blockSize(), null, Map.of());
    }

    /** "where.name", or "name" when where is empty (RPC parameters). */
    static String field(String where, String name) {
        return where.isEmpty() ? name : where + "." + name;
    }
}
