package io.jdoca.nvmf.bdev;

import java.util.Map;
import java.util.UUID;

/**
 * What a bdev is to be, as its module parsed it (from {@code bdev_<module>_create}'s params or a
 * namespace in jdoca's own form), before anything is opened: the name (null: the module's default
 * name, chosen when it is created), block size, block count (0 when the back-end decides, e.g. a
 * file's size), UUID (null: a random one) and the module's own options (e.g. aio's
 * {@code filename}), JSON-ready values.
 *
 * <p>Immutable; any thread.
 */
public record BdevSpec(String name, int blockSize, long numBlocks, UUID uuid, Map<String, Object> options) {
    public BdevSpec {
        options = Map.copyOf(options);
    }

    /** An option's value, or {@code dflt}. */
    public Object option(String key, Object dflt) {
        return options.getOrDefault(key, dflt);
    }
}
