package io.jdoca.sta.nvmf;

import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The registry of NVMe-oF transports (SPDK's transport ops list): the built-in TCP and RDMA
 * transports are found through {@link ServiceLoader} ({@code META-INF/services}), others are added
 * with {@link #register}. The STA IO context picks a queue pair's transport here, by name or by the
 * kind of connection it is given.
 *
 * <p>Thread-safe: a copy-on-write list; registration is a control-path event.
 */
public final class NvmfTransports {
    private static final List<NvmfTransportType> TYPES = new CopyOnWriteArrayList<>();

    static {
        for (NvmfTransportType t : ServiceLoader.load(NvmfTransportType.class, NvmfTransports.class.getClassLoader())) {
            TYPES.add(t);
        }
    }

    private NvmfTransports() {
    }

    /** Adds a transport; an existing one of the same name is replaced (a wrapped TCP, in tests). */
    public static void register(NvmfTransportType t) {
        TYPES.removeIf(x -> x.name().equalsIgnoreCase(t.name()));
        TYPES.add(t);
    }

    /** The transport named {@code name} (case-insensitive, as SPDK's trtype), or null. */
    public static NvmfTransportType find(String name) {
        for (NvmfTransportType t : TYPES) {
            if (t.name().equalsIgnoreCase(name)) {
                return t;
            }
        }
        return null;
    }

    /** The transport that serves {@code connection}, or null. */
    public static NvmfTransportType forConnection(Object connection) {
        for (NvmfTransportType t : TYPES) {
            if (t.accepts(connection)) {
                return t;
            }
        }
        return null;
    }

    /** Every registered transport's name, upper case. */
    public static List<String> names() {
        return TYPES.stream().map(t -> t.name().toUpperCase(Locale.ROOT)).toList();
    }
}
