package io.jdoca.sta.nvmf;

/**
 * The namespaces a queue pair may reach (a subsystem's, after a valid Connect), by front-end
 * namespace id. The STA API's subsystem implements it with a copy-on-write array.
 *
 * <p>{@link #ns} is called by IO engine threads: lock-free and allocation-free.
 */
@FunctionalInterface
public interface NvmfNamespaceMap {
    /** The namespace with id {@code nsid}, or null. */
    NvmfNamespace ns(int nsid);
}
