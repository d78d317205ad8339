package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaBackend;
import io.jdoca.sta.be.FileBackend;
import io.jdoca.sta.be.MemoryBackend;
import io.jdoca.sta.be.NullBackend;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.bdev.TimedBackend;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.MemoryBudget;
import io.jdoca.nvmf.config.TargetConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NvmfTarget}'s named block devices (SPDK's bdev layer: {@code bdev_malloc_create},
 * {@code bdev_aio_create}, {@code bdev_null_create} and their deletes), in creation order, and the
 * registration of their back-ends with STA: each wrapped in a {@link TimedBackend}, one queue per
 * IO engine. A bdev is claimed by the namespace that exposes it; one made by jdoca's own namespace
 * form goes with its namespace.
 *
 * <p><b>Threads.</b> {@code sta-main} only (the target's management commands); no lock.
 */
final class NvmfBdevs {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfBdevs.class);

    private final NvmfTarget target;
    private final Map<String, Bdev> bdevs = new LinkedHashMap<>();

    NvmfBdevs(NvmfTarget target) {
        this.target = target;
    }

    /** See {@link NvmfTarget#createBdev}. */
    Bdev create(Bdev.Module module, String name, int blockSize, long numBlocks, UUID uuid, Path filename) {
        if (name == null || name.isEmpty()) {
            throw new ConfigException("name", "missing (required)");
        }
        if (bdevs.containsKey(name)) {
            throw new DocaException(DocaError.ALREADY_EXIST, "bdev " + name + " already exists");
        }
        if (!Sta.isLogicalBlockSizeSupported(blockSize)) {
            throw new ConfigException("block_size", blockSize + ": jdoca supports 512 or 4096");
        }
        StaBackend be;
        switch (module) {
            case MALLOC, NULL -> {
                if (numBlocks <= 0 || numBlocks > (Long.MAX_VALUE / blockSize)) {
                    throw new ConfigException("num_blocks", numBlocks + " must be a positive number of blocks");
                }
                long bytes = numBlocks * blockSize;
                if (module == Bdev.Module.MALLOC) {
                    MemoryBudget.check("num_blocks", bytes);
                    be = new MemoryBackend(name, bytes);
                } else {
                    be = new NullBackend(name, bytes);
                }
            }
            case AIO -> {
                if (!Files.exists(filename)) {
                    throw new ConfigException("filename", filename + " does not exist");
                }
                if (Files.isDirectory(filename)) {
                    throw new ConfigException("filename", filename + " is a directory");
                }
                be = FileBackend.open(name, filename, 0);
                numBlocks = be.sizeBytes() / blockSize;
                if (numBlocks == 0) {
                    closeUnregistered(be);
                    throw new ConfigException("filename", filename + " is smaller than one " + blockSize + "-byte block");
                }
            }
            default -> throw new IllegalStateException(module.toString());
        }
        be = register(be);
        Bdev d = new Bdev(name, module, blockSize, numBlocks, uuid != null ? uuid : UUID.randomUUID(), be, filename, false);
        bdevs.put(name, d);
        LOG.info("bdev {} created ({} , {} x {} B)", name, module.productName, numBlocks, blockSize);
        return d;
    }

    /** A bdev made for a namespace in jdoca's own form, and the file it created (null if none). */
    record Made(Bdev bdev, Path createdFile) {
    }

    /**
     * Makes the bdev {@code name} for a namespace in jdoca's own form ({@code backend=memory
     * size_mb=...}): owned by its namespace, gone with it. {@code uuid}: the namespace's.
     */
    Made createForNamespace(String name, TargetConfig.NamespaceConfig n, UUID uuid) {
        if (!Sta.isLogicalBlockSizeSupported(n.blockSize())) {
            throw new ConfigException("namespace.block_size", n.blockSize() + " must be 512 or 4096");
        }
        long size = n.sizeMb() * 1024L * 1024L;
        if (n.isRam()) {
            MemoryBudget.check("namespace.size_mb", size);
        }
        if (bdevs.containsKey(name)) {
            throw new ConfigException("namespace", "a bdev named " + name + " already exists");
        }
        Path created = null;
        Bdev.Module module;
        StaBackend be = switch (n.backend()) {
            case "memory", "malloc" -> {
                if (size <= 0) {
                    throw new DocaException(DocaError.INVALID_VALUE, "memory namespace needs size_mb");
                }
                module = Bdev.Module.MALLOC;
                yield new MemoryBackend(name, size);
            }
            case "null" -> {
                if (size <= 0) {
                    throw new DocaException(DocaError.INVALID_VALUE, "null namespace needs size_mb");
                }
                module = Bdev.Module.NULL;
                yield new NullBackend(name, size);
            }
            case "file", "aio", "bdev" -> {
                if (n.path() == null) {
                    throw new DocaException(DocaError.INVALID_VALUE, "file namespace needs path");
                }
                Path f = Path.of(n.path());
                created = Files.exists(f, LinkOption.NOFOLLOW_LINKS) ? null : f;
                module = Bdev.Module.AIO;
                yield FileBackend.open(name, f, size);
            }
            default -> throw new DocaException(DocaError.INVALID_VALUE, "unknown backend " + n.backend()
                    + " (memory, file, null)");
        };
        be = register(be);
        Bdev d = new Bdev(name, module, n.blockSize(), be.sizeBytes() / n.blockSize(), uuid, be,
                module == Bdev.Module.AIO ? Path.of(n.path()) : null, true);
        bdevs.put(name, d);
        return new Made(d, created);
    }

    /** Undoes {@link #createForNamespace} when its namespace could not be added. */
    void discard(Made m) {
        bdevs.remove(m.bdev().name());
        destroy(m.bdev().backend());
        if (m.createdFile() != null) {
            try {
                Files.deleteIfExists(m.createdFile());
            } catch (IOException ignored) {
                // the caller reports the original error
            }
        }
    }

    /** See {@link NvmfTarget#deleteBdev}. */
    void delete(Bdev.Module module, String name) {
        Bdev d = bdevs.get(name);
        if (d == null || d.module() != module) {
            throw new DocaException(DocaError.NOT_FOUND, "no " + module.id + " bdev " + name);
        }
        if (d.claimedBy() != null) {
            throw new DocaException(DocaError.IN_USE, "bdev " + name + " is used by namespace " + d.claimedBy()
                    + ": remove the namespace first (nvmf_subsystem_remove_ns)");
        }
        bdevs.remove(name);
        destroy(d.backend());
        LOG.info("bdev {} deleted", name);
    }

    Bdev get(String name) {
        return bdevs.get(name);
    }

    List<Bdev> all() {
        return new ArrayList<>(bdevs.values());
    }

    /** The bdev a namespace's back-end belongs to, or null. */
    Bdev of(StaBackend b) {
        for (Bdev d : bdevs.values()) {
            if (d.backend() == b) {
                return d;
            }
        }
        return null;
    }

    /**
     * A namespace let go of its back-end: a bdev is unclaimed (and destroyed when jdoca's own
     * namespace form made it), a bare back-end destroyed.
     */
    void release(StaBackend b) {
        for (Bdev d : bdevs.values()) {
            if (d.backend() == b) {
                d.claim(null);
                if (d.ownedByNamespace()) {
                    bdevs.remove(d.name());
                    destroy(b);
                }
                return;
            }
        }
        destroy(b);
    }

    /**
     * Registers a back-end with STA, wrapped to measure latency ({@link TimedBackend}), with one
     * queue per IO engine. Returns the wrapper (what namespaces use).
     */
    StaBackend register(StaBackend raw) {
        Sta sta = target.sta();
        TimedBackend be = new TimedBackend(raw);
        sta.backendCreate(raw);
        sta.backendCreate(be);
        for (int i = 0; i < target.engineCount() || i == 0; i++) {
            be.addQueue();
        }
        return be;
    }

    /** Destroys a back-end (and the raw one under a {@link TimedBackend}). */
    void destroy(StaBackend b) {
        Sta sta = target.sta();
        sta.backendDestroy(b);
        if (b instanceof TimedBackend t) {
            sta.backendDestroy(t.delegate());
        }
    }

    /** Closes a back-end that was never registered (via STA, which is the only one allowed to). */
    private void closeUnregistered(StaBackend be) {
        target.sta().backendCreate(be);
        target.sta().backendDestroy(be);
    }
}
