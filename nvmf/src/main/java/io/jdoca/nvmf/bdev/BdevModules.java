package io.jdoca.nvmf.bdev;

import io.jdoca.nvmf.config.ConfigException;
import io.jdoca.nvmf.config.MemoryBudget;
import io.jdoca.nvmf.config.TargetConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The bdev modules jdoca's target has (SPDK's bdev module list): each one a {@link BdevModule}
 * class listed in {@link #ALL}. A new back-end type (e.g. the Ceph RBD one) is a new class
 * added to that list: its {@code bdev_<name>_create/_delete} RPCs, its place in
 * {@code bdev_get_bdevs} and {@code save_config}, and (if it has one) its namespace form follow.
 *
 * <p>Immutable; any thread.
 */
public final class BdevModules {
    /** Every module, in the order rpc_get_methods lists their methods. */
    private static final List<BdevModule> ALL = List.of(new MallocBdevModule(), new NullBdevModule(),
            new AioBdevModule(), new RbdBdevModule());

    private BdevModules() {
    }

    public static List<BdevModule> all() {
        return ALL;
    }

    /** The module SPDK calls {@code name} ("malloc", "null", "aio"), or null. */
    public static BdevModule get(String name) {
        for (BdevModule m : ALL) {
            if (m.name().equals(name)) {
                return m;
            }
        }
        return null;
    }

    /** The module serving {@code backend} in jdoca's namespace form ("memory", "file", "null", ...), or null. */
    public static BdevModule forNamespaceBackend(String backend) {
        for (BdevModule m : ALL) {
            if (m.namespaceBackends().contains(backend)) {
                return m;
            }
        }
        return null;
    }

    /** Every {@code backend} value of jdoca's namespace form. */
    public static List<String> namespaceBackends() {
        List<String> l = new ArrayList<>();
        for (BdevModule m : ALL) {
            l.addAll(m.namespaceBackends());
        }
        return l;
    }

    /**
     * Checks a namespace in jdoca's form against its module (the back-end exists, its fields fit
     * it); {@code where} prefixes field names. Returns the module. Any thread.
     */
    public static BdevModule checkNamespace(TargetConfig.NamespaceConfig n, String where) {
        BdevModule m = forNamespaceBackend(n.backend());
        if (m == null) {
            throw new ConfigException(SizedBdevModule.field(where, "backend"), "\"" + n.backend() + "\" is not one of "
                    + String.join(", ", namespaceBackends()));
        }
        m.checkNamespace(n, where);
        return m;
    }

    /**
     * Checks every namespace of a configuration against its module, and that the namespaces held
     * in memory fit in it together. Throws ConfigException naming the first bad field. Returns
     * {@code config}.
     */
    public static TargetConfig check(TargetConfig config) {
        long ramBytes = 0;
        for (int i = 0; i < config.subsystems().size(); i++) {
            List<TargetConfig.NamespaceConfig> nss = config.subsystems().get(i).namespaces();
            for (int j = 0; j < nss.size(); j++) {
                TargetConfig.NamespaceConfig n = nss.get(j);
                BdevModule m = checkNamespace(n, "subsystems[" + i + "].namespaces[" + j + "]");
                ramBytes += m.inMemory() ? n.sizeMb() << 20 : 0;
            }
        }
        if (ramBytes > 0) {
            MemoryBudget.check("subsystems[].namespaces[].size_mb", ramBytes);
        }
        return config;
    }
}
