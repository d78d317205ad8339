package io.jdoca.nvmf.bdev;

import com.fasterxml.jackson.databind.JsonNode;
import io.jdoca.nvmf.config.TargetConfig;
import io.jdoca.sta.backend.StaBackend;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A bdev module in SPDK's sense ({@code struct spdk_bdev_module}: malloc, null, aio, and the Ceph
 * RBD one): one kind of back-end, named as SPDK spells it ({@link #name}), created from its
 * {@code bdev_<name>_create} params, described for {@code bdev_get_bdevs} and {@code save_config},
 * and deleted with {@code bdev_<name>_delete}. A module may also serve jdoca's own namespace form
 * ({@code nvmf_subsystem_add_ns} with {@code backend=...}, the JSON config's namespaces).
 * Modules are listed in {@link BdevModules}; a new back-end type is a new module class there,
 * nothing else changes (the RPC methods, the namespace form and the descriptions follow).
 *
 * <p>Threads: modules are stateless. {@link #parseCreate} and {@link #checkNamespace} on any
 * thread (they open nothing); {@link #open}, the descriptions and {@link #deleted} on the target's
 * {@code sta-main} (the bdev table's owner).
 */
public interface BdevModule {
    /** SPDK's module name: "malloc", "null", "aio"; its methods are {@code bdev_<name>_create/_delete}. */
    String name();

    /** {@code bdev_get_bdevs}' product_name (SPDK's: "Malloc disk", "Null disk", "AIO disk"). */
    String productName();

    /**
     * Reads and checks {@code bdev_<name>_create}'s params: throws ConfigException naming the
     * field; opens nothing. Any thread.
     */
    BdevSpec parseCreate(JsonNode params);

    /** Prefix of the name SPDK gives an unnamed bdev ("Malloc": Malloc0, Malloc1...), or null: a name is required. */
    default String defaultNamePrefix() {
        return null;
    }

    /**
     * Opens the back-end of {@code spec} under {@code name} (not yet registered with STA; the
     * caller registers it). A back-end opened and then refused is given to {@code discard}, which
     * closes it properly. Throws ConfigException (a bad value found now) or DocaException.
     */
    Opened open(String name, BdevSpec spec, Consumer<StaBackend> discard);

    /**
     * {@link #open(String, BdevSpec, Consumer)} for a module that keeps state in its target
     * ({@code states}: e.g. the rbd module's clusters). By default the stateless form.
     */
    default Opened open(States states, String name, BdevSpec spec, Consumer<StaBackend> discard) {
        return open(name, spec, discard);
    }

    /**
     * A target's per-module state: one object per type, made on first use, closed with the target
     * when it is {@link AutoCloseable}. Threads: {@code sta-main} only (the bdev table's owner).
     */
    interface States {
        /** The target's state of {@code type}, made by {@code make} on first use. */
        <T> T state(Class<T> type, Supplier<T> make);
    }

    /**
     * True when the module registers its own {@code bdev_<name>_create} (rbd: it connects to the
     * cluster on the RPC thread first); {@code BdevRpcs} then registers only {@code _delete}.
     */
    default boolean ownCreateRpc() {
        return false;
    }

    /** An opened back-end: its block count and the file it created (null if none; removed if what follows fails). */
    record Opened(StaBackend backend, long numBlocks, Path createdFile) {
    }

    /** Whether the bdev supports unmap (bdev_get_bdevs' supported_io_types). */
    default boolean supportsUnmap() {
        return true;
    }

    /** bdev_get_bdevs' driver_specific object for {@code b} (empty: none). */
    default Map<String, Object> driverSpecific(Bdev b) {
        return Map.of();
    }

    /** The params of the {@code bdev_<name>_create} entry that recreates {@code b} (save_config). */
    Map<String, Object> configParams(Bdev b);

    /** {@code b} was deleted and its back-end destroyed: the module lets go of what else it held. */
    default void deleted(Bdev b) {
    }

    /** {@link #deleted(Bdev)} for a module that keeps state in its target. */
    default void deleted(States states, Bdev b) {
        deleted(b);
    }

    // ------------------------------------------------------------------ jdoca's namespace form

    /** The {@code backend} values of jdoca's namespace form this module serves (none by default). */
    default List<String> namespaceBackends() {
        return List.of();
    }

    /** True when the back-end lives in this process's memory (counted against the memory budget). */
    default boolean inMemory() {
        return false;
    }

    /** Checks a namespace in jdoca's form for this module; {@code where} prefixes field names. Any thread. */
    default void checkNamespace(TargetConfig.NamespaceConfig n, String where) {
    }

    /** The spec of the bdev a namespace in jdoca's form makes for itself (named by the caller). */
    default BdevSpec namespaceSpec(TargetConfig.NamespaceConfig n) {
        throw new UnsupportedOperationException(name() + " has no namespace form");
    }
}
