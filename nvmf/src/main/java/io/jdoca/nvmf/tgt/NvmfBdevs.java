package io.jdoca.nvmf.tgt;

import io.jdoca.core.DocaError;
import io.jdoca.core.DocaException;
import io.jdoca.nvmf.bdev.Bdev;
import io.jdoca.nvmf.bdev.BdevModule;
import io.jdoca.nvmf.bdev.BdevModules;
import io.jdoca.nvmf.bdev.BdevSpec;
import io.jdoca.nvmf.bdev.TimedBackend;
import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.MemoryBudget;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.sta.Sta;
import io.jdoca.sta.StaNamespace;
import io.jdoca.sta.backend.StaBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link NvmfTarget}'s named block devices (SPDK's bdev layer), in creation order: made by
 * their {@link BdevModule} ({@code bdev_<module>_create}, or a namespace in jdoca's own form),
 * deleted ({@code bdev_<module>_delete}), and the registration of their back-ends with STA: each
 * wrapped in a {@link TimedBackend}, one queue per IO engine. A bdev is claimed by the namespace
 * that exposes it; one made by jdoca's own namespace form goes with its namespace. No module is
 * named here: they are {@link BdevModules}'.
 *
 * <p><b>Threads.</b> {@code sta-main} only (the target's management commands); no lock.
 */
final class NvmfBdevs implements BdevModule.States {
    private static final Logger LOG = LoggerFactory.getLogger(NvmfBdevs.class);

    private final NvmfTarget target;
    private final Map<String, Bdev> bdevs = new LinkedHashMap<>();
    /** The modules' per-target states ({@link BdevModule.States}), by type. */
    private final Map<Class<?>, Object> states = new LinkedHashMap<>();

    NvmfBdevs(NvmfTarget target) {
        this.target = target;
    }

    /** See {@link NvmfTarget#createBdev}. */
    Bdev create(BdevModule module, BdevSpec spec) {
        String name = spec.name() != null ? spec.name() : defaultName(module);
        if (name == null || name.isEmpty()) {
            throw new ConfigException("name", "missing (required)");
        }
        if (bdevs.containsKey(name)) {
            throw new DocaException(DocaError.ALREADY_EXIST, "bdev " + name + " already exists");
        }
        if (!Sta.isLogicalBlockSizeSupported(spec.blockSize())) {
            throw new ConfigException("block_size", spec.blockSize() + ": jdoca supports 512 or 4096");
        }
        BdevModule.Opened o = module.open(this, name, spec, this::closeUnregistered);
        StaBackend be = register(o.backend());
        Bdev d = new Bdev(name, module, spec.blockSize(), o.numBlocks(),
                spec.uuid() != null ? spec.uuid() : UUID.randomUUID(), be, spec.options(), false);
        bdevs.put(name, d);
        LOG.info("bdev {} created ({}, {} x {} B)", name, module.productName(), o.numBlocks(), spec.blockSize());
        return d;
    }

    /** SPDK's name for an unnamed bdev of {@code module}: its prefix and the first free number (Malloc0...). */
    private String defaultName(BdevModule module) {
        String prefix = module.defaultNamePrefix();
        if (prefix == null) {
            return null;
        }
        int i = 0;
        while (bdevs.containsKey(prefix + i)) {
            i++;
        }
        return prefix + i;
    }

    /** A bdev made for a namespace in jdoca's own form, and the file it created (null if none). */
    record Made(Bdev bdev, Path createdFile) {
    }

    /**
     * Makes the bdev {@code name} for a namespace in jdoca's own form ({@code backend=memory
     * size_mb=...}): owned by its namespace, gone with it. {@code uuid}: the namespace's.
     */
    Made createForNamespace(String name, TargetConfig.NamespaceConfig n, UUID uuid) {
        BdevModule module = BdevModules.checkNamespace(n, "namespace");
        if (!Sta.isLogicalBlockSizeSupported(n.blockSize())) {
            throw new ConfigException("namespace.block_size", n.blockSize() + " must be 512 or 4096");
        }
        if (module.inMemory()) {
            MemoryBudget.check("namespace.size_mb", n.sizeMb() << 20);
        }
        if (bdevs.containsKey(name)) {
            throw new ConfigException("namespace", "a bdev named " + name + " already exists");
        }
        BdevSpec spec = module.namespaceSpec(n);
        BdevModule.Opened o = module.open(this, name, spec, this::closeUnregistered);
        StaBackend be = register(o.backend());
        Bdev d = new Bdev(name, module, n.blockSize(), o.numBlocks(), uuid, be, spec.options(), true);
        bdevs.put(name, d);
        return new Made(d, o.createdFile());
    }

    /** Undoes {@link #createForNamespace} when its namespace could not be added. */
    void discard(Made m) {
        bdevs.remove(m.bdev().name());
        destroy(m.bdev().backend());
        m.bdev().module().deleted(this, m.bdev());
        if (m.createdFile() != null) {
            try {
                Files.deleteIfExists(m.createdFile());
            } catch (IOException ignored) {
                // the caller reports the original error
            }
        }
    }

    /**
     * See {@link NvmfTarget#deleteBdev}. A bdev a namespace uses is hot-removed from it first, as
     * SPDK's bdev layer tells the nvmf subsystem on unregister: new I/O to the namespace fails at
     * once, the I/O in flight drains, the hosts get the namespace-changed event; then the bdev goes.
     * The result completes (on sta-main) once the bdev is gone.
     */
    CompletableFuture<Void> delete(String module, String name) {
        Bdev d = bdevs.get(name);
        if (d == null || !d.module().name().equals(module)) {
            throw new DocaException(DocaError.NOT_FOUND, "no " + module + " bdev " + name);
        }
        if (d.claimedBy() != null) {
            for (NvmfSubsystem s : target.subsystems()) {
                for (StaNamespace ns : s.isDiscovery() ? List.<StaNamespace>of() : s.sta().namespaces()) {
                    if (ns.backend() == d.backend()) {
                        LOG.info("bdev {} deleted while namespace {} of {} uses it: hot-removing the namespace",
                                name, ns.nsid(), s.nqn());
                        return target.removeNamespace(s.nqn(), ns.nsid()).thenRun(() -> {
                            if (bdevs.get(name) == d) { // a namespace's own bdev went with its namespace
                                unregister(d);
                            }
                        });
                    }
                }
            }
        }
        unregister(d);
        return CompletableFuture.completedFuture(null);
    }

    private void unregister(Bdev d) {
        String name = d.name();
        bdevs.remove(name);
        destroy(d.backend());
        d.module().deleted(this, d);
        LOG.info("bdev {} deleted", name);
    }

    /**
     * SPDK's {@code spdk_bdev_notify_blockcnt_change}: {@code d}'s back-end grew
     * ({@link StaBackend#grow}); its block count follows, then the namespace that exposes it (the IO
     * engines see the new size at their next command, no lock) and every controller with the
     * namespace attached gets the Namespace Attribute Changed notice (log page 04h) as the spec's
     * masking allows. Returns the new block count.
     */
    long grown(Bdev d) {
        long blocks = d.backend().sizeBytes() / d.blockSize();
        if (blocks == d.numBlocks()) {
            return blocks;
        }
        d.setNumBlocks(blocks);
        for (NvmfSubsystem s : target.subsystems()) {
            for (StaNamespace ns : s.isDiscovery() ? List.<StaNamespace>of() : s.sta().namespaces()) {
                if (ns.backend() == d.backend()) {
                    ns.grow(blocks);
                    target.controllerRegistry().namespaceChanged(s, ns.nsid());
                    LOG.info("namespace {} of {} grew to {} blocks with bdev {}", ns.nsid(), s.nqn(), blocks,
                            d.name());
                }
            }
        }
        LOG.info("bdev {} grew to {} x {} B", d.name(), blocks, d.blockSize());
        return blocks;
    }

    @Override
    public <T> T state(Class<T> type, java.util.function.Supplier<T> make) {
        return type.cast(states.computeIfAbsent(type, k -> make.get()));
    }

    /**
     * The target stops (its IO engines and namespaces are gone): destroys every back-end left,
     * then closes the modules' states (the rbd clusters, once their images are closed).
     */
    void destroyAll() {
        Sta sta = target.sta();
        for (StaBackend b : sta.backends()) {
            sta.backendDestroy(b);
        }
        for (Object s : states.values()) {
            if (s instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    LOG.warn("closing {}: {}", s.getClass().getSimpleName(), e.getMessage());
                }
            }
        }
        states.clear();
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
        Bdev d = of(b);
        if (d == null) {
            destroy(b);
            return;
        }
        d.claim(null);
        if (d.ownedByNamespace()) {
            bdevs.remove(d.name());
            destroy(b);
            d.module().deleted(this, d);
        }
    }

    /**
     * Registers a back-end with STA, wrapped to measure latency ({@link TimedBackend}), with one
     * queue per IO engine. Returns the wrapper (what namespaces use).
     */
    private StaBackend register(StaBackend raw) {
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
